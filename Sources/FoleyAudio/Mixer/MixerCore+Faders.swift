import Dispatch

/// The buses' faders and the master's: volumes the mixer applies after each bus's effects (and
/// to the whole mix before the limiter), moved along a ``Tween`` on the mixing thread.
extension MixerCore {
  /// Moves every bus's fader, and the master's, to the volume `settings` gives it, along
  /// `tween`; returns the categories whose volume their bus's fader carries (every category that
  /// has a bus of its own in the mixer). Queue.
  func moveFaders(_ settings: BusSettings, tween: Tween) -> Set<SoundCategory> {
    dispatchPrecondition(condition: .onQueue(queue))
    var faded = Set<SoundCategory>()
    guard state.isOpen else { return faded }
    var moves: [(bus: Int, volume: Float)] = []
    for (category, volume) in settings.volumes {
      let bus = queueBus(for: category)
      guard bus > VoiceMixer.reverbBus else { continue }  // none left: the voices carry it
      if state.faderVolumes[bus, default: 1] != volume {
        state.faderVolumes[bus] = volume
        moves.append((bus, Float(volume)))
      }
    }
    // A bus whose volume was never set rests at 1.
    for (category, bus) in busIndices.withLock({ $0 }) where bus > VoiceMixer.reverbBus {
      faded.insert(category)
    }
    if state.masterFaderVolume != settings.masterVolume {
      state.masterFaderVolume = settings.masterVolume
      moves.append((0, Float(settings.masterVolume)))
    }
    guard !moves.isEmpty else { return faded }
    let (frames, easing, start) = frames(of: tween)
    backend.withAudioLock {
      for move in moves {
        let track = move.bus == 0 ? ParameterTable.masterFader : ParameterTable.fader(ofBus: move.bus)
        // A change made at once on a bus that gave silence in the last buffer has nothing to
        // de-click: it lands at once, so a voice started with it starts at the new volume.
        let atOnce = tween.usableDuration == 0 && mixer.meters.peak(of: move.bus) == 0
        mixer.parameters.move(
          track, to: move.volume, frames: atOnce ? 1 : frames, easing: easing, start: start,
          clock: mixer.clock)
      }
    }
    return faded
  }
}
