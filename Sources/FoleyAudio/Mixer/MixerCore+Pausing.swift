import Dispatch
import FoleyCore

/// Pausing and resuming voices: the game's pause and resume, and the session's, each a ramp to
/// silence and a held lane (a voice still waiting for its start frame is held at once).
extension MixerCore {
  package func pause(_ voice: Voice) {
    queue.async { [self] in
      guard state.isOpen, voice.state == .playing else { return }
      capturing({ .pause(voice: voice.id) }) { pauseOnQueue(voice) }
      scheduleFallbackWake()
    }
  }

  private func pauseOnQueue(_ voice: Voice) {
    if let entry = virtualEntry(of: voice) {
      // The game's pause wins over the session's, as on a channel; its clock stops.
      state.virtual.voices[ObjectIdentifier(voice)]?.slot.sessionMode = .normal
      voice.setState(.paused)
      if entry.slot.sessionMode != .paused { setFrozen(voice, true) }
      return
    }
    if state.orphans.contains(where: { $0.voice === voice }) {
      voice.setState(.paused)
      return
    }
    guard let channel = table.channel(of: voice), let slot = table[channel], !slot.isReleasing else { return }
    // The game's pause wins: the session will not resume this voice.
    let alreadyPaused = slot.sessionMode == .paused
    table.update(channel) { $0.sessionMode = .normal }
    voice.setState(.paused)
    guard !alreadyPaused else { return }
    rampToPause(channel)
  }

  package func resume(_ voice: Voice) {
    queue.async { [self] in
      guard state.isOpen, voice.state == .paused else { return }
      capturing({ .resume(voice: voice.id) }) { resumeOnQueue(voice) }
    }
  }

  func resumeOnQueue(_ voice: Voice) {
    if let entry = virtualEntry(of: voice) {
      voice.setState(.playing)
      let mode = mode(for: entry.slot.category)
      state.virtual.voices[ObjectIdentifier(voice)]?.slot.sessionMode = mode
      if mode != .paused {
        setFrozen(voice, false)
        rebalanceVoices()
      }
      return
    }
    if state.orphans.contains(where: { $0.voice === voice }) {
      voice.setState(.playing)
      return
    }
    guard let channel = table.channel(of: voice), let slot = table[channel], !slot.isReleasing else { return }
    voice.setState(.playing)
    // Resumed while the session keeps its category silent: it waits for the session.
    let mode = mode(for: slot.category)
    table.update(channel) { $0.sessionMode = mode }
    if mode != .paused { rampToResume(channel) }
  }

  func rampToPause(_ channel: Int) {
    if let held = backend.holdingAudioLock({ mixer.holdWaiting(channel) }) {
      // A start still waiting for its frame: nothing of it heard, so held at once; when it resumes,
      // put where its schedule says (a musical moment where the music has it then), or moved on
      // by the pause's length.
      setChannelPaused(channel, true)
      let after = table[channel]?.whenHeld?(held.startFrame)
      table.update(channel) {
        $0.waitingHeldAt = held.clock
        $0.startAfterHold = after
      }
      return
    }
    stopFollowing(channel)
    // Over the whole de-click time whatever the level: a quiet voice's fade is as long as a loud
    // one's (a step of 1/240 a frame took a voice at 0.3 to silence in 1.5 ms).
    let gain = table.gains[channel]
    let current = gain.current
    gain.setTarget(left: 0, right: 0, step: step(declickStep, across: max(current.left, current.right)))
    state.releases.schedule(.pause, on: channel, deadline: deadline(after: 0), endFrame: endFrame(after: 0))
  }

  /// Undoes a pause that is pending or done, ramping up to the slot's gains.
  func rampToResume(_ channel: Int) {
    guard let slot = table[channel] else { return }
    if let heldAt = slot.waitingHeldAt {
      let placed = slot.startAfterHold?(mixer.framesMixed.load(ordering: .acquiring))
      table.update(channel) {
        $0.waitingHeldAt = nil
        $0.startAfterHold = nil
      }
      if let begins = backend.holdingAudioLock({ mixer.releaseWaiting(channel, heldAt: heldAt, at: placed) })
      {
        slot.voice.moveStart(toFrame: begins)
      }
      setChannelPaused(channel, false)
    } else if state.releases.hasPendingPause(on: channel) {
      state.releases.cancel(on: channel)
    } else {
      setChannelPaused(channel, false)
    }
    // Up over the whole de-click time, as the pause came down.
    let (left, right) = channelGains(for: slot)
    let current = table.gains[channel].current
    retarget(
      channel, slot,
      step: step(declickStep, across: max(abs(left - current.left), abs(right - current.right))))
  }

  /// The step a frame that covers `distance` of gain in the time `fullScale` covers 1 in (never
  /// more than `fullScale`, never less than a hundred-thousandth of it).
  func step(_ fullScale: Float, across distance: Float) -> Float {
    fullScale * min(1, max(1e-5, distance))
  }

  /// Pauses or resumes `channel` in the mixer and records it on its slot: the queue is the only
  /// writer of a lane's paused state, so a release reads the record, not the mixer under its lock.
  func setChannelPaused(_ channel: Int, _ paused: Bool) {
    if paused { backend.pause(channel) } else { backend.resume(channel) }
    table.update(channel) { $0.isChannelPaused = paused }
    // Cleared by the stream's next block, not here: until it plays, where it stopped is stale.
    if paused { table[channel]?.stream?.isPaused.store(true, ordering: .releasing) }
  }
}
