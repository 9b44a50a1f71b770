import FoleyCore

/// Game parameters and mix snapshots: values the game sets or tweens, that voices' modulators
/// follow through curves, and named mix states that override or blend at a tweened intensity.
extension AudioEngine {
  // MARK: - Game parameters

  /// Defines the engine-wide game parameter `name`, its range and its starting value. Defining
  /// it again keeps its value (within the new range).
  ///
  /// ```swift
  /// try engine.defineParameter("speed", range: 0...1, default: 0)
  /// try engine.defineParameter("danger", range: 0...10, default: 0)
  /// ```
  /// - Throws: ``ParameterError/invalid(_:)`` for an empty name, a range or default that is not
  ///   finite, an empty range or a default outside it; ``ParameterError/tooMany(_:)`` past 64
  ///   parameters and snapshots.
  public func defineParameter(
    _ name: String, range: ClosedRange<Double>, default value: Double
  )
    throws(ParameterError)
  {
    guard !name.isEmpty else { throw .invalid("a game parameter needs a name") }
    guard range.lowerBound.isFinite, range.upperBound.isFinite, range.lowerBound < range.upperBound else {
      throw .invalid("game parameter \"\(name)\": range \(range) is not a finite, non-empty range")
    }
    guard value.isFinite, range.contains(value) else {
      throw .invalid("game parameter \"\(name)\": default \(value) is outside \(range)")
    }
    let (index, start) = try core.parameterRegistry.withLock { registry throws(ParameterError) in
      if var known = registry.parameters[name] {
        known.range = range
        known.defaultValue = value
        known.value = min(max(known.value, range.lowerBound), range.upperBound)
        registry.parameters[name] = known
        return (known.index, known.value)
      }
      let index = try registry.takeIndex(for: "game parameter \"\(name)\"")
      registry.parameters[name] = .init(index: index, range: range, defaultValue: value, value: value)
      return (index, value)
    }
    core.defineTrack(index, value: start, range: range)
    core.installSnapshots(core.parameterRegistry.withLock { $0 })
  }

  /// Sets game parameter `name` to `value` (clamped into its range), at once or along `tween`:
  /// every modulator that follows it moves with it, sample by sample.
  ///
  /// ```swift
  /// try engine.setParameter("speed", to: 1, tween: Tween(duration: 4, easing: .easeInEaseOut))
  /// ```
  /// - Throws: ``ParameterError/unknownParameter(_:suggestion:)`` (with the nearest name),
  ///   ``ParameterError/invalid(_:)`` for NaN. The parameter is unchanged then.
  public func setParameter(_ name: String, to value: Double, tween: Tween = .immediate) throws(ParameterError)
  {
    guard !value.isNaN else { throw .invalid("game parameter \"\(name)\": NaN is not a value") }
    let (index, clamped) = try core.parameterRegistry.withLock { registry throws(ParameterError) in
      var parameter = try registry.parameter(name)
      parameter.value = min(max(value, parameter.range.lowerBound), parameter.range.upperBound)
      registry.parameters[name] = parameter
      return (parameter.index, parameter.value)
    }
    core.moveTrack(index, to: clamped, tween: tween)
  }

  /// The value game parameter `name` was last set to (the end of its tween; nil: not defined).
  public func parameter(_ name: String) -> Double? {
    core.parameterRegistry.withLock { $0.parameters[name]?.value }
  }

  /// Every defined game parameter and the value it was last set to.
  public var parameters: [String: Double] {
    core.parameterRegistry.withLock { $0.parameters.mapValues(\.value) }
  }

  // MARK: - Mix snapshots

  /// Defines (or redefines) a mix snapshot, released at first; defined again, it keeps its
  /// intensity (a map's reload does not make the mix jump). Its buses get a bus each if they
  /// have none yet.
  ///
  /// ```swift
  /// try engine.defineSnapshot(MixSnapshot("paused", buses: [.effects: .init(volumeDecibels: -96)],
  ///                                       parameters: ["danger": 0], priority: 10))
  /// ```
  /// - Throws: ``ParameterError/invalid(_:)`` for an empty name, a change out of range (-96…24 dB,
  ///   10…20,000 Hz) or a parameter value outside its range,
  ///   ``ParameterError/unknownParameter(_:suggestion:)`` for a parameter not defined,
  ///   ``ParameterError/tooMany(_:)`` past 64 parameters and snapshots, or 8 snapshots on one bus
  ///   or one parameter. Nothing changes then.
  public func defineSnapshot(_ snapshot: MixSnapshot) throws(ParameterError) {
    let name = snapshot.name
    guard !name.isEmpty else { throw .invalid("a mix snapshot needs a name") }
    for (category, change) in snapshot.buses {
      guard change.volumeDecibels.isFinite, (-96...24).contains(change.volumeDecibels) else {
        throw .invalid(
          "snapshot \"\(name)\", bus '\(category)': volume \(change.volumeDecibels) dB is outside -96…24")
      }
      for (label, hertz) in [("low-pass", change.lowPass), ("high-pass", change.highPass)] {
        if let hertz, !(hertz.isFinite && (10...20_000).contains(hertz)) {
          throw .invalid("snapshot \"\(name)\", bus '\(category)': \(label) \(hertz) Hz is outside 10…20,000")
        }
      }
    }
    let wasDefined = core.parameterRegistry.withLock { $0.snapshots[name] != nil }
    let registry = try core.parameterRegistry.withLock { registry throws(ParameterError) in
      var next = registry
      if let driver = snapshot.driver {
        _ = try next.parameter(driver.parameter)
        guard driver.curve.points.allSatisfy({ (0...1).contains($0.y) }) else {
          throw .invalid(
            "snapshot \"\(name)\": its driver's curve gives intensities, each within 0…1: \(driver.curve)")
        }
      }
      for (parameterName, value) in snapshot.parameters {
        let parameter = try next.parameter(parameterName)
        guard value.isFinite, parameter.range.contains(value) else {
          throw .invalid(
            "snapshot \"\(name)\": parameter \"\(parameterName)\" value \(value) is outside \(parameter.range)"
          )
        }
      }
      let index: Int
      if let known = next.snapshots[name] {
        index = known.index
      } else {
        index = try next.takeIndex(for: "snapshot \"\(name)\"")
      }
      next.defined += 1
      // Defined again (a map's reload): it keeps its place in the order and its intensity, so
      // a mix that is on does not jump.
      let known = next.snapshots[name]
      next.snapshots[name] = .init(
        index: index, snapshot: snapshot, order: known?.order ?? next.defined,
        intensity: known?.intensity ?? (snapshot.driver == nil ? 0 : 1))
      var perBus: [SoundCategory: Int] = [:]
      var perParameter: [String: Int] = [:]
      for entry in next.snapshots.values {
        for category in entry.snapshot.buses.keys { perBus[category, default: 0] += 1 }
        for parameterName in entry.snapshot.parameters.keys { perParameter[parameterName, default: 0] += 1 }
      }
      if let (category, _) = perBus.first(where: { $0.value > VoiceMixer.snapshotsPerBus }) {
        throw .tooMany("bus '\(category)': at most \(VoiceMixer.snapshotsPerBus) snapshots change one bus")
      }
      if let (parameterName, _) = perParameter.first(where: {
        $0.value > ParameterTable.overridesPerParameter
      }) {
        throw .tooMany(
          "parameter \"\(parameterName)\": at most \(ParameterTable.overridesPerParameter) snapshots set one parameter"
        )
      }
      registry = next
      return next
    }
    let index = registry.snapshots[name]?.index ?? 0
    if !wasDefined { core.defineTrack(index, value: snapshot.driver == nil ? 0 : 1, range: 0...1) }
    core.installSnapshots(registry)
  }

  /// Applies snapshot `name` at `intensity` (0…1, clamped), at once or along `tween`; applying it
  /// again moves it to the new intensity from where it is.
  ///
  /// ```swift
  /// try engine.applySnapshot("muffled", tween: Tween(duration: 0.5))
  /// try engine.applySnapshot("danger", intensity: 0.4, tween: Tween(duration: 1, easing: .smoothstep))
  /// ```
  /// - Throws: ``ParameterError/unknownSnapshot(_:suggestion:)`` (with the nearest name),
  ///   ``ParameterError/invalid(_:)`` for NaN.
  public func applySnapshot(
    _ name: String, intensity: Double = 1, tween: Tween = .immediate
  ) throws(ParameterError) {
    guard !intensity.isNaN else { throw .invalid("snapshot \"\(name)\": NaN is not an intensity") }
    let clamped = min(max(intensity, 0), 1)
    let index = try core.parameterRegistry.withLock { registry throws(ParameterError) in
      var entry = try registry.snapshot(name)
      entry.intensity = clamped
      registry.snapshots[name] = entry
      return entry.index
    }
    core.moveTrack(index, to: clamped, tween: tween)
  }

  /// Releases snapshot `name`: its intensity goes back to 0, at once or along `tween`, and its
  /// filters leave the chain when it gets there.
  /// - Throws: ``ParameterError/unknownSnapshot(_:suggestion:)``.
  public func releaseSnapshot(_ name: String, tween: Tween = .immediate) throws(ParameterError) {
    try applySnapshot(name, intensity: 0, tween: tween)
  }

  /// The snapshots applied (not released) and the intensity each was last given.
  public var activeSnapshots: [String: Double] {
    core.parameterRegistry.withLock { registry in
      registry.snapshots.filter { $0.value.intensity > 0 }.mapValues(\.intensity)
    }
  }

  /// Every defined snapshot, by name.
  public var snapshots: [String: MixSnapshot] {
    core.parameterRegistry.withLock { $0.snapshots.mapValues(\.snapshot) }
  }

  /// The snapshots as the inspector shows them, in the order they combine.
  var snapshotStates: [MixSnapshotState] {
    core.parameterRegistry.withLock { registry in
      registry.snapshotsInOrder.map { entry in
        MixSnapshotState(
          name: entry.snapshot.name, mode: entry.snapshot.mode.rawValue, priority: entry.snapshot.priority,
          intensity: entry.intensity, buses: entry.snapshot.buses.keys.map(\.name).sorted())
      }
    }
  }
}
