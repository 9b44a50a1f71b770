import FoleyCore
import Foundation

/// The engine's game parameters and mix snapshots as the game defined them: each one's track in
/// the mixer's ``ParameterTable``, its range and the value last asked for. Any thread, under
/// ``MixerCore/parameterRegistry``'s lock.
struct ParameterRegistry {
  struct Parameter {
    var index: Int
    var range: ClosedRange<Double>
    var defaultValue: Double
    var value: Double
  }

  struct Snapshot {
    var index: Int
    var snapshot: MixSnapshot
    var order: Int
    /// The intensity last asked for (0: released).
    var intensity: Double
  }

  var parameters: [String: Parameter] = [:]
  var snapshots: [String: Snapshot] = [:]
  var nextIndex = 0
  var defined = 0

  func parameter(_ name: String) throws(ParameterError) -> Parameter {
    guard let parameter = parameters[name] else {
      throw .unknownParameter(name, suggestion: Suggestions.nearest(to: name, among: parameters.keys))
    }
    return parameter
  }

  func snapshot(_ name: String) throws(ParameterError) -> Snapshot {
    guard let snapshot = snapshots[name] else {
      throw .unknownSnapshot(name, suggestion: Suggestions.nearest(to: name, among: snapshots.keys))
    }
    return snapshot
  }

  mutating func takeIndex(for what: String) throws(ParameterError) -> Int {
    guard nextIndex < ParameterTable.gameCapacity else {
      throw .tooMany(
        "\(what): the engine holds \(ParameterTable.gameCapacity) parameters and snapshots together")
    }
    nextIndex += 1
    return nextIndex - 1
  }

  /// The snapshots in the order they combine: priority, then the order they were defined.
  var snapshotsInOrder: [Snapshot] {
    snapshots.values.sorted { ($0.snapshot.priority, $0.order) < ($1.snapshot.priority, $1.order) }
  }
}

extension MixerCore {
  /// Frames of `tween`, at least the de-click ramp, and where it starts (`UInt64.max`: now).
  func frames(of tween: Tween) -> (frames: Int, easing: Easing, start: UInt64) {
    let duration = tween.usableDuration
    let frames = max(declickFrames, Int((duration * Double(format.sampleRate)).rounded()), 1)
    return (frames, duration > 0 ? tween.easing : .linear, tween.startFrame)
  }

  /// Starts track `index` at `value` within `range`, at once.
  func defineTrack(_ index: Int, value: Double, range: ClosedRange<Double>) {
    queue.async { [self] in
      guard state.isOpen else { return }
      backend.withAudioLock {
        mixer.parameters.define(
          index, value: Float(value), range: Float(range.lowerBound)...Float(range.upperBound))
      }
    }
  }

  /// Moves track `index` to `value` along `tween`.
  func moveTrack(_ index: Int, to value: Double, tween: Tween) {
    let (frames, easing, start) = frames(of: tween)
    noteUncaptured("parameters and snapshots")
    queue.async { [self] in
      guard state.isOpen else { return }
      backend.withAudioLock {
        mixer.parameters.move(
          index, to: Float(value), frames: frames, easing: easing, start: start, clock: mixer.clock)
      }
    }
  }

  /// Sends every snapshot's bus changes and parameter values to the mixer, in the order they
  /// combine: the stages of every bus a snapshot changes, and the overrides of every parameter.
  func installSnapshots(_ registry: ParameterRegistry) {
    var stagesByBus: [Int: [(BusSnapshotStage, [StateVariableFilter])]] = [:]
    var overrides: [Int: [ParameterOverride]] = [:]
    for entry in registry.snapshotsInOrder {
      for (category, change) in entry.snapshot.buses.sorted(by: { $0.key.name < $1.key.name }) {
        let bus = bus(for: category)
        guard bus > 0 else { continue }
        var stage = BusSnapshotStage(
          intensity: entry.index, decibels: Float(change.volumeDecibels),
          isBlend: entry.snapshot.mode == .blend)
        var filters: [StateVariableFilter] = []
        if let hertz = change.lowPass {
          let filter = StateVariableFilter(channels: format.channels, sampleRate: Double(format.sampleRate))
          stage.lowPass = log2(Float(hertz))
          stage.lowFilter = .passUnretained(filter)
          filters.append(filter)
        }
        if let hertz = change.highPass {
          let filter = StateVariableFilter(channels: format.channels, sampleRate: Double(format.sampleRate))
          stage.highPass = log2(Float(hertz))
          stage.highFilter = .passUnretained(filter)
          filters.append(filter)
        }
        stagesByBus[bus, default: []].append((stage, filters))
      }
      for (name, value) in entry.snapshot.parameters {
        guard let parameter = registry.parameters[name] else { continue }
        overrides[parameter.index, default: []].append(
          ParameterOverride(
            intensity: entry.index, value: Float(value), isBlend: entry.snapshot.mode == .blend))
      }
    }
    let parameterIndices = registry.parameters.values.map(\.index)
    let drivers = registry.snapshots.values.map { entry in
      (
        entry.index, entry.snapshot.driver.flatMap { registry.parameters[$0.parameter]?.index } ?? -1,
        entry.snapshot.driver.map { CurvePoints($0.curve) } ?? CurvePoints()
      )
    }
    queue.async { [self, stagesByBus, overrides] in
      guard state.isOpen else { return }
      backend.withAudioLock {
        for bus in (VoiceMixer.reverbBus + 1)..<VoiceMixer.busCapacity {
          let stages = stagesByBus[bus] ?? []
          guard !stages.isEmpty || mixer.buses[bus].snapshotCount > 0 else { continue }
          mixer.setSnapshotStages(stages.map(\.0), filters: stages.flatMap(\.1), on: bus)
        }
        for index in parameterIndices { mixer.parameters.setOverrides(overrides[index] ?? [], of: index) }
        for (index, parameter, curve) in drivers {
          mixer.parameters.setDriver(of: index, parameter: parameter, curve: curve)
        }
      }
    }
  }

  /// Builds the mixing thread's form of `modulators`.
  /// - Throws: ``ParameterError/tooMany(_:)`` beyond four, ``ParameterError/unknownParameter(_:suggestion:)``.
  func modulatorSlots(for modulators: [Modulator]) throws(ParameterError) -> [ModulatorSlot] {
    guard modulators.count <= ChannelGain.modulatorCapacity else {
      throw .tooMany(
        "a voice takes at most \(ChannelGain.modulatorCapacity) modulators, not \(modulators.count)")
    }
    let registry = parameterRegistry.withLock { $0 }
    var slots: [ModulatorSlot] = []
    for (position, modulator) in modulators.enumerated() {
      var slot = ModulatorSlot()
      switch modulator {
      case .parameter(let name, let curve):
        slot.kind = .curve
        slot.parameter = try registry.parameter(name).index
        slot.points = CurvePoints(curve)
      case .lfo(let lfo):
        slot.kind = .oscillator
        slot.wave = UInt8(LFO.Wave.allCases.firstIndex(of: lfo.wave) ?? 0)
        slot.cyclesPerFrame = lfo.rateHz / Double(format.sampleRate)
        slot.depth = Float(lfo.depthDecibels)
        slot.seed = UInt64(position) << 56
      case .envelope(let envelope):
        let rate = Double(format.sampleRate)
        slot.kind = .envelope
        slot.attackFrames = envelope.attack * rate
        slot.holdEnd = slot.attackFrames + envelope.hold * rate
        slot.decayEnd = slot.holdEnd + envelope.decay * rate
        slot.sustain = Float(envelope.sustainDecibels)
        slot.releaseFrames = envelope.release * rate
      case .follower(let follower):
        let bus = bus(for: follower.bus)
        guard bus > 0 else {
          throw .tooMany("no bus is left for \"\(follower.bus.name)\", the bus a follower follows")
        }
        // Evaluated every modulation interval: the share of a step covered in one.
        let interval = Double(ChannelGain.modulationInterval) / Double(format.sampleRate)
        slot.kind = .follower
        slot.bus = bus
        slot.points = CurvePoints(follower.curve)
        slot.rise = Float(1 - exp(-interval / follower.attack))
        slot.fall = Float(1 - exp(-interval / follower.release))
      }
      slots.append(slot)
    }
    return slots
  }

  /// Moves `voice`'s own value of parameter track `index` along `tween` on its channel (a voice
  /// not on one takes the value at its start: ``Voice/seededModulators``).
  func setLocalParameter(_ index: Int, to value: Double, tween: Tween, of voice: Voice) {
    let (frames, easing, start) = frames(of: tween)
    queue.async { [self] in
      guard state.isOpen, voice.state == .playing || voice.state == .paused, !voice.isVirtual else { return }
      let channel = voice.channel
      guard channel >= 0, table[channel]?.voice === voice else { return }
      backend.withAudioLock {
        table.gains[channel].setLocalParameter(
          index, to: Float(value), frames: frames, easing: easing, start: start, clock: mixer.clock)
      }
    }
  }

  /// Gives a voice the queue has not seen yet its modulators, so its start takes them; a list the
  /// engine refuses is logged, and the voice plays without it.
  package func presetModulators(_ modulators: [Modulator], on voice: Voice) {
    do {
      voice.store(try modulatorSlots(for: modulators))
    } catch {
      logger.warning("a play's modulators were refused (it plays without them): \(error)")
    }
  }

  /// Gives a playing voice's channel its new modulators.
  func updateModulators(of voice: Voice) {
    queue.async { [self] in
      guard state.isOpen, voice.state == .playing || voice.state == .paused, !voice.isVirtual else { return }
      let channel = voice.channel
      guard channel >= 0, table[channel]?.voice === voice else { return }
      let slots = voice.seededModulators
      backend.withAudioLock { table.gains[channel].setModulators(slots) }
    }
  }
}
