import FoleyCore

/// A voice's pan moved along a tween (``Voice/setPan(_:tween:)``); the mixing thread's side is
/// `ChannelGain+Pan.swift`.
extension MixerCore {
  /// Moves `voice`'s pan from `from` to `target` (already stored as its pan) along `tween`. A
  /// voice that is not on a channel (waiting for its sound, virtual) simply takes the new pan.
  func setPan(of voice: Voice, from: Double, to target: Double, tween: Tween) {
    let duration = tween.usableDuration
    let start = tween.startFrame
    guard duration > 0 else {
      // Set at once: a tween under way ends here, and the gain goes to the new pan.
      queue.async { [self] in
        guard state.isOpen, let channel = table.channel(of: voice) else { return }
        table.gains[channel].cancelPanTween()
      }
      return updateGain(of: voice)
    }
    queue.async { [self] in
      // A play asked for before this call starts first, at the pan this tween moves from.
      if state.isOpen, voice.state == .pending { servePlayRequests() }
      voice.panChangesInFlight.wrappingSubtract(1, ordering: .releasing)
      guard state.isOpen, voice.state == .playing || voice.state == .paused else { return }
      capturing({ .pan(voice: voice.id, to: target, tween: captured(tween)) }) {
        guard !voice.isVirtual, let channel = table.channel(of: voice), let slot = table[channel],
          !slot.isReleasing
        else {
          gainChanged(voice, channel: nil)
          return
        }
        stopFollowing(channel)
        let frames = Int((duration * Double(format.sampleRate)).rounded())
        table.gains[channel].tweenPan(
          to: Float(target), previous: Float(from), frames: frames, easing: tween.easing, start: start,
          mixed: mixer.framesMixed.load(ordering: .acquiring))
        // A paused voice's tween runs on the engine's clock: its resume retargets it to where
        // the tween has got to.
        if slot.sessionMode != .paused, !slot.isChannelPaused { retarget(channel, table[channel] ?? slot) }
        gainChanged(voice, channel: channel)
      }
      rebalanceVoices()
    }
  }

  /// What the mix needs to work out `slot`'s gains from its voice's pan while a pan tween runs,
  /// as ``gainPair(for:)`` computes them without the voice's own volume.
  func panContext(for slot: Slot) -> PanContext {
    let sound = slot.sound
    var magnitude = volume(of: slot, withVoiceVolume: false)
    var base = sound.settings.pan
    var law: UInt8 = 0
    if let placement = slot.heardPlacement {
      magnitude *= placement.gain
      base += placement.pan
      if sound.buffer.source.channels == 1 { law |= PanContext.constantPower }
    }
    if state.appliedBuses.isMono { law |= PanContext.monoOutput }
    return PanContext(magnitude: Float(magnitude), base: Float(base), law: law)
  }

  /// Hands `channel`'s pan tween, if one may be running, the context of the target about to be
  /// written: the retargets that keep a pan tween going (a bus, a placement, the mix) call it
  /// just before their write.
  func keepPanTween(_ channel: Int) {
    let mixed = mixer.framesMixed.load(ordering: .relaxed)
    guard table.gains[channel].mayTweenPan(mixed: mixed), let slot = table[channel] else { return }
    table.gains[channel].retargetPan(panContext(for: slot), mixed: mixed)
  }
}
