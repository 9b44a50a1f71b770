extension Voice {
  /// Replaces the voice's modulators: sources that move its volume while it plays, sample by
  /// sample (a game parameter through a curve, an LFO, an envelope, a follower of another bus).
  /// Their gains multiply, on top of its ``volume`` and its tweens; an empty list removes them. A
  /// voice still starting takes them at its start; an oscillator and an envelope run from the
  /// voice's first mixed frame, and a stop waits for an envelope's release.
  ///
  /// ```swift
  /// try engine.defineParameter("speed", range: 0...1, default: 0)
  /// let engineHum = engine.play(humSound, loops: -1)
  /// try engineHum.setModulators([.parameter("speed", curve: ParameterCurve([(0, -30), (1, 0)]))])
  /// try engine.setParameter("speed", to: 0.8, tween: Tween(duration: 2, easing: .easeOut))
  /// ```
  /// - Throws: ``ParameterError/tooMany(_:)`` for more than four (or a follower's bus when the
  ///   engine has no bus left to give it),
  ///   ``ParameterError/unknownParameter(_:suggestion:)`` for a parameter the engine does not
  ///   define. The voice keeps its modulators then.
  public func setModulators(_ modulators: [Modulator]) throws(ParameterError) {
    guard let core else { return }
    store(try core.modulatorSlots(for: modulators))
    core.updateModulators(of: self)
    core.noteUncaptured("voice modulators")
  }

  /// Keeps `slots` as the voice's modulators, for its next start (and its channel's update).
  func store(_ slots: [ModulatorSlot]) {
    modulatorSlots.withLock { $0 = slots }
    hasModulators.store(!slots.isEmpty, ordering: .releasing)
  }

  /// Sets this voice's own value of game parameter `name`, at once or along `tween`: the voice's
  /// modulators that follow `name` read it in place of the engine's value, which every other voice
  /// still follows (each car its own engine speed). From the first call on, the voice keeps its
  /// own value; a voice that starts, or comes back from virtual, takes it at once.
  ///
  /// ```swift
  /// try engine.defineParameter("rpm", range: 0...1, default: 0)
  /// let car = engine.play(motorSound, loops: -1)
  /// try car.setModulators([.parameter("rpm", curve: ParameterCurve([(0, -20), (1, 0)]))])
  /// try car.setParameter("rpm", to: 0.7, tween: Tween(duration: 0.5, easing: .easeOut))
  /// ```
  /// - Throws: ``ParameterError/unknownParameter(_:suggestion:)`` (with the nearest name),
  ///   ``ParameterError/invalid(_:)`` for a value that is not a finite number. A value outside the
  ///   parameter's range is clamped to it.
  public func setParameter(_ name: String, to value: Double, tween: Tween = .immediate) throws(ParameterError)
  {
    guard let core else { return }
    guard value.isFinite else { throw .invalid("voice parameter \"\(name)\": \(value) is not a value") }
    let parameter = try core.parameterRegistry.withLock { registry throws(ParameterError) in
      try registry.parameter(name)
    }
    let clamped = min(max(value, parameter.range.lowerBound), parameter.range.upperBound)
    localParameters.withLock { $0[parameter.index] = clamped }
    // Marked as modulated, so that recycling the voice clears its values with its modulators.
    hasModulators.store(true, ordering: .releasing)
    core.setLocalParameter(parameter.index, to: clamped, tween: tween, of: self)
  }

  /// This voice's own value of parameter `name` (nil: it follows the engine's).
  public func parameter(_ name: String) -> Double? {
    guard let index = core?.parameterRegistry.withLock({ $0.parameters[name]?.index }) else { return nil }
    return localParameters.withLock { $0[index] }
  }

  /// The modulators in the mixing thread's form, each sample-and-hold seeded by the voice, each
  /// curve at the voice's own value of its parameter if it has one.
  var seededModulators: [ModulatorSlot] {
    guard hasModulators.load(ordering: .acquiring) else { return [] }
    var slots = modulatorSlots.withLock { $0 }
    let locals = localParameters.withLock { $0 }
    for index in slots.indices {
      slots[index].seed &+= id &* 0x9E37_79B9_7F4A_7C15
      if slots[index].kind == .curve, let value = locals[slots[index].parameter] {
        slots[index].hasLocal = true
        slots[index].localEarlier = ParameterSegment(from: Float(value), to: Float(value))
        slots[index].localCurrent = ParameterSegment(from: Float(value), to: Float(value))
      }
    }
    return slots
  }
}
