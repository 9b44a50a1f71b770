import Foundation

/// Mix snapshots and faders on the buses: after a bus's own effects, each snapshot that changes
/// it closes its filters and moves its level by its intensity, and its fader (the bus's volume)
/// moves along its tween, sample by sample, on the mixing thread.
extension VoiceMixer {
  /// The frames between two evaluations of the snapshots' level and filter frequencies (in
  /// between the level is interpolated linearly, the frequencies held).
  static let snapshotInterval = 32

  /// Replaces the snapshot stages of `bus` with `stages` (in priority order, at most
  /// ``snapshotsPerBus``), their filters owned by `filters`. Queue, under the audio lock.
  func setSnapshotStages(_ stages: [BusSnapshotStage], filters: [StateVariableFilter], on bus: Int) {
    guard bus > Self.reverbBus, bus < Self.busCapacity else { return }
    let count = min(stages.count, Self.snapshotsPerBus)
    for index in 0..<count { snapshotStages[bus * Self.snapshotsPerBus + index] = stages[index] }
    buses[bus].snapshotCount = count
    snapshotFilters[bus] = filters
  }

  /// The change of `bus`'s level on `frame`, in decibels, by its snapshots in priority order.
  @inline(__always)
  private func snapshotDecibels(_ bus: Int, at frame: UInt64) -> Float {
    var decibels: Float = 0
    let base = bus * Self.snapshotsPerBus
    for index in 0..<buses[bus].snapshotCount {
      let stage = snapshotStages[base + index]
      let intensity = parameters.intensity(stage.intensity, at: frame)
      decibels =
        stage.isBlend
        ? decibels + stage.decibels * intensity : decibels + (stage.decibels - decibels) * intensity
    }
    return decibels
  }

  /// Whether `bus`'s fader is away from 1 anywhere in the block from the clock.
  @inline(__always)
  func faderEngaged(_ bus: Int, frames: Int) -> Bool {
    isAway(ParameterTable.fader(ofBus: bus), frames: frames)
  }

  /// Whether fader track `track` is away from 1 at either end of the block from the clock.
  @inline(__always)
  private func isAway(_ track: Int, frames: Int) -> Bool {
    parameters.tracks[track].raw(at: clock) != 1
      || parameters.tracks[track].raw(at: clock &+ UInt64(frames)) != 1
  }

  /// The master's fader over the block: the whole mix, reverb return and all, before the limiter.
  func applyMasterFader(frames: Int) {
    let track = ParameterTable.masterFader
    guard isAway(track, frames: frames) else { return }
    scaleLevel(buses[0].buffer, frames: frames) { parameters.tracks[track].raw(at: $0) }
  }

  /// Multiplies `buffer`'s block by `level(frame)`, evaluated every ``snapshotInterval`` frames and
  /// interpolated linearly between; a chunk at 1 at both ends is left alone.
  @inline(__always)
  private func scaleLevel(_ buffer: UnsafeMutablePointer<Float>, frames: Int, level: (UInt64) -> Float) {
    var done = 0
    var first = level(clock)
    while done < frames {
      let count = min(Self.snapshotInterval, frames - done)
      let last = level(clock &+ UInt64(done + count))
      if first != 1 || last != 1 {
        let slope = (last - first) / Float(count)
        for offset in 0..<count {
          let gain = first + slope * Float(offset)
          let sample = (done + offset) * channels
          for channel in 0..<channels { buffer[sample + channel] *= gain }
        }
      }
      first = last
      done += count
    }
  }

  /// Runs `bus`'s snapshot stages and its fader over its block.
  func applySnapshots(_ bus: Int, frames: Int) {
    let buffer = buses[bus].buffer
    let base = bus * Self.snapshotsPerBus
    let end = clock &+ UInt64(frames)
    for index in 0..<buses[bus].snapshotCount
    where snapshotStages[base + index].lowFilter != nil
      || snapshotStages[base + index].highFilter != nil
    {
      let stage = snapshotStages[base + index]
      let atRest =
        parameters.intensity(stage.intensity, at: clock) == 0
        && parameters.intensity(stage.intensity, at: end) == 0
      if atRest {
        // Released: the filters leave the chain, and come back from rest.
        if stage.engaged {
          stage.lowFilter?._withUnsafeGuaranteedRef { $0.reset() }
          stage.highFilter?._withUnsafeGuaranteedRef { $0.reset() }
          snapshotStages[base + index].engaged = false
        }
        continue
      }
      snapshotStages[base + index].engaged = true
      var done = 0
      while done < frames {
        let count = min(Self.snapshotInterval, frames - done)
        let intensity = parameters.intensity(stage.intensity, at: clock &+ UInt64(done + count / 2))
        let chunk = buffer + done * channels
        if let low = stage.lowFilter {
          let frequency =
            BusSnapshotStage.openLowPass + (stage.lowPass - BusSnapshotStage.openLowPass) * intensity
          low._withUnsafeGuaranteedRef {
            $0.configure(.lowPass, frequency: Double(exp2(frequency)), q: 0.5.squareRoot())
            $0.process(chunk, frames: count)
          }
        }
        if let high = stage.highFilter {
          let frequency =
            BusSnapshotStage.openHighPass + (stage.highPass - BusSnapshotStage.openHighPass) * intensity
          high._withUnsafeGuaranteedRef {
            $0.configure(.highPass, frequency: Double(exp2(frequency)), q: 0.5.squareRoot())
            $0.process(chunk, frames: count)
          }
        }
        done += count
      }
    }
    // The level: the snapshots' decibels and the fader together.
    let fader = ParameterTable.fader(ofBus: bus)
    scaleLevel(buffer, frames: frames) {
      mixGain(decibels: snapshotDecibels(bus, at: $0)) * parameters.tracks[fader].raw(at: $0)
    }
  }
}
