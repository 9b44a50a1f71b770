extension Voice {
  /// Replaces the voice's modulators: sources that move its volume while it plays, sample by
  /// sample (a game parameter through a curve, an LFO). Their decibels add, on top of its
  /// ``volume`` and its tweens; an empty list removes them. A voice still starting takes them at
  /// its start; an oscillator runs from the voice's first mixed frame.
  ///
  /// ```swift
  /// try engine.defineParameter("speed", range: 0...1, default: 0)
  /// let engineHum = engine.play(humSound, loops: -1)
  /// try engineHum.setModulators([.parameter("speed", curve: ParameterCurve([(0, -30), (1, 0)]))])
  /// try engine.setParameter("speed", to: 0.8, tween: Tween(duration: 2, easing: .easeOut))
  /// ```
  /// - Throws: ``ParameterError/tooMany(_:)`` for more than four,
  ///   ``ParameterError/unknownParameter(_:suggestion:)`` for a parameter the engine does not
  ///   define. The voice keeps its modulators then.
  public func setModulators(_ modulators: [Modulator]) throws(ParameterError) {
    guard let core else { return }
    let slots = try core.modulatorSlots(for: modulators)
    modulatorSlots.withLock { $0 = slots }
    hasModulators.store(!slots.isEmpty, ordering: .releasing)
    core.updateModulators(of: self)
  }

  /// The modulators in the mixing thread's form, each sample-and-hold seeded by the voice.
  var seededModulators: [ModulatorSlot] {
    guard hasModulators.load(ordering: .acquiring) else { return [] }
    var slots = modulatorSlots.withLock { $0 }
    for index in slots.indices { slots[index].seed &+= id &* 0x9E37_79B9_7F4A_7C15 }
    return slots
  }
}
