import Dispatch

/// Admitting voices onto channels, stealing and releasing them, and collecting finished ones.
extension MixerCore {
  /// Gate two, then the sound's limits and the channel cap.
  func admit(_ voice: Voice, loops: Int, playing sound: Sound) {
    // The session may have gone inactive since the action ran. A start scheduled for a frame
    // still to come is let on and held with the rest, to start after the resume.
    guard state.hasDevice,
      session.isActive || mayStartWhileInactive(sound.settings.category)
        || (voice.schedule.frame ?? 0) > mixer.framesMixed.load(ordering: .acquiring)
    else {
      finish(voice, counting: .suppressed)
      return
    }
    guard state.capture != nil else { return start(voice, playing: sound, loops: loops) }
    // Captured: started and recorded under the audio lock, on the frame the mix starts it from.
    backend.holdingAudioLock {
      let admitted = AdmittedPlay(voice)
      start(voice, playing: sound, loops: loops)
      recordPlay(voice, of: sound, loops: loops, admitted: admitted)
    }
  }

  private func start(_ voice: Voice, playing sound: Sound, loops: Int) {
    let key = ObjectIdentifier(sound)
    let settings = sound.settings
    // The clock is read only for sounds that limit how often they start.
    let now = settings.minimumInterval > 0 ? self.now : 0
    if settings.minimumInterval > 0, let last = state.lastStartOfSound[key],
      Double(now &- last) / 1e9 < settings.minimumInterval
    {
      finish(voice, counting: .rejected)
      return
    }
    if let limit = settings.maximumInstances, table.instances(of: key) >= limit {
      // The sound's own limit: only stealing its own oldest voice makes sense.
      guard settings.policy == .stealOldest, limit > 0, let victim = table.oldestVoiceChannel(of: key) else {
        finish(voice, counting: .rejected)
        return
      }
      steal(channel: victim)
    }
    let candidate = Slot(
      voice: voice, sound: sound, order: state.startOrder + 1, loops: loops,
      sessionMode: mode(for: settings.category),
      placement: voice.initialPlacement)
    if startsVirtual(candidate) {
      // Nobody would hear it, or the budget is full: it plays in time without a channel.
      state.startOrder += 1
      if settings.minimumInterval > 0 { state.lastStartOfSound[key] = now }
      startVirtual(candidate)
      return
    }
    if hasVoiceBudget { state.virtual.needsPass = true }
    if table.countedVoices >= configuration.maximumChannels {
      let victim: Int?
      switch settings.policy {
      case .stealOldest: victim = table.oldestVoiceChannel
      case .stealLowestPriority: victim = table.lowestPriorityChannel(below: settings.priority)
      case .reject: victim = nil
      }
      guard let victim else {
        finish(voice, counting: .rejected)
        return
      }
      steal(channel: victim)
    }
    guard let channel = freeChannel() else {
      finish(voice, counting: .rejected)
      return
    }
    state.startOrder += 1
    guard play(consume candidate, on: channel, chunk: sound.buffer.chunk, loops: loops, paused: false) else {
      table.giveBack(channel)
      finish(voice, counting: .failed)
      return
    }
    if settings.minimumInterval > 0 { state.lastStartOfSound[key] = now }
    voice.setState(.playing)
    counters.bump(.started)
    counters.voiceStarted()
    // Let on while the session holds its category: held before its frame comes.
    if let slot = table[channel], slot.sessionMode == .paused { rampToPause(channel) }
  }

  /// Puts `slot` on `channel` with its gain stage in front; false (logged) when the mixer refuses.
  package func play(
    _ slot: consuming Slot, on channel: Int, chunk: MixChunk, loops: Int, paused: Bool
  ) -> Bool {
    let gain = table.gains[channel]
    startLevel(of: slot.voice, on: gain)
    if paused {
      gain.reset(left: 0, right: 0)
    } else {
      let (left, right) = channelGains(for: slot)
      gain.reset(left: left, right: right)
    }
    if slot.stream != nil || slot.voice.needsShaper.load(ordering: .relaxed) { ensureShaper(on: channel) }
    let scheduled = slot.voice.schedule.take()
    slot.whenHeld = scheduled?.whenHeld
    var start = LaneStart(
      chunk: chunk, loops: loops, gain: gain, stream: slot.stream, voice: slot.voice,
      bus: queueBus(for: slot.category), paused: paused, startFrame: scheduled?.frame ?? 0,
      position: slot.position, joinsLate: scheduled?.joinsLate == true)
    do {
      var attempts = 0
      while true {
        if let willStart = scheduled?.willStart {
          let reached = mixer.framesMixed.load(ordering: .acquiring)
          if start.startFrame == 0 || start.startFrame >= reached {
            willStart(max(start.startFrame, reached))
          }
        }
        if let frame = try backend.play(start, on: channel) {
          slot.voice.noteStart(atFrame: frame)
          break
        }
        // Its frame was mixed before the request reached the mixer: the next acceptable moment
        // (a musical one moves to its next occurrence), or at once.
        if attempts == 0 { counters.lateStarts.add(1, ordering: .relaxed) }
        attempts += 1
        let reached = mixer.framesMixed.load(ordering: .acquiring)
        start.startFrame = attempts < 4 ? (scheduled?.whenLate?(reached) ?? 0) : 0
      }
    } catch {
      logger.error("cannot play '\(slot.sound.name)': \(error.message)")
      return false
    }
    slot.isChannelPaused = paused
    if table.isFree(channel) {
      slot.sound.buffer.liveVoices.add(1, ordering: .relaxed)
      table.place(consume slot, on: channel)
    } else {
      table.update(channel) { [slot] in $0 = slot }
    }
    return true
  }

  func growChannels(to count: Int) {
    let allocated = backend.allocateChannels(count)
    backend.withAudioLock { mixer.reserve(lanes: allocated) }
    table.grow(to: allocated) {
      ChannelGain(
        isFloat: true, channelCount: format.channels, defaultStep: declickStep,
        wake: inbox.wake, parameters: mixer.parameters)
    }
  }

  /// A channel with nothing on it, growing the pool when needed; as a last resort the channel
  /// that has been ramping out longest is cut (it is already nearly silent).
  func freeChannel() -> Int? {
    if let free = table.takeFreeChannel() { return free }
    // Streams (music) do not count against the voice cap, so they get channels beyond it.
    let limit = configuration.maximumChannels + releaseReserve + table.streamChannels
    if table.channelCount < limit {
      growChannels(to: min(limit, max(table.channelCount * 2, table.channelCount + 1)))
      if let free = table.takeFreeChannel() { return free }
    }
    guard let releasing = state.releases.longestReleasing else { return nil }
    state.releases.cancel(on: releasing)
    if backend.cut(releasing) {
      // Cut where it plays and collected here: no report of it is due, and its channel is the
      // one taken next, its carrier replaced by the start that follows.
      channelFinished(releasing)
    } else {
      // The mix had finished it first: its report is in the inbox.
      processFinishedChannels()
    }
    return table.takeFreeChannel()
  }

  /// Turns a playing voice into a releasing one: it no longer counts, ramps out and is halted.
  private func steal(channel: Int) {
    guard let voice = table.voice(on: channel) else { return }
    release(channel: channel, fadeOut: 0)
    finish(voice, counting: .stolen)
  }

  /// Stops counting the voice on `channel` and ramps it out over `fadeOut` seconds (at least the
  /// de-click time) before it is halted. A voice that goes on without its channel (virtual) stays
  /// active.
  package func release(channel: Int, fadeOut: Double, voiceGoesOn: Bool = false) {
    guard table[channel]?.isReleasing == false else { return }
    table.stopCounting(channel)
    if !voiceGoesOn { counters.activeVoices.subtract(1, ordering: .relaxed) }
    state.releases.cancel(on: channel)
    let isPaused = table[channel]?.isChannelPaused == true
    // The queue's own record agrees with the mixer's lane while the lane plays (debug builds:
    // every test that releases a voice checks it).
    assert(isPaused == backend.isPaused(channel) || !backend.isPlaying(channel), "channel \(channel)'s pause")
    if isPaused {
      // A paused channel is already silent: halting it cannot click.
      backend.halt(channel)
      return
    }
    let fullScale =
      fadeOut > 0 ? min(declickStep, Float(1 / (fadeOut * Double(format.sampleRate)))) : declickStep
    stopFollowing(channel)
    // The fade lasts its whole time from whatever level the channel is at (a step sized for full
    // scale took a voice at 0.3 to silence in under a third of it).
    let current = table.gains[channel].current
    table.gains[channel].setTarget(
      left: 0, right: 0, step: step(fullScale, across: max(current.left, current.right)))
    state.releases.schedule(
      .halt, on: channel, deadline: deadline(after: fadeOut), endFrame: endFrame(after: fadeOut))
  }

  /// Releases `channel` along `tween`: its level moves to silence along the tween's easing from
  /// its start, and the channel is halted once the level holds at zero. A linear tween that
  /// starts now is the plain release. A voice with envelopes that release fades through them from
  /// the tween's start (each from where it stands to silence over its release), beside the
  /// tween's own fade if it has a duration, and the channel is halted after the longer of the two.
  func release(channel: Int, tween: Tween) {
    guard let slot = table[channel], !slot.isReleasing else { return }
    let duration = tween.usableDuration
    if slot.isChannelPaused {
      release(channel: channel, fadeOut: 0)  // already silent
      return
    }
    let gain = table.gains[channel]
    let mixed = mixer.framesMixed.load(ordering: .acquiring)
    let start = tween.startFrame == .max ? mixed : max(mixed, tween.startFrame)
    let envelopeFrames =
      slot.voice.hasModulators.load(ordering: .acquiring)
      ? backend.withAudioLock { gain.releaseEnvelopes(at: max(start, mixer.clock)) } : 0
    guard envelopeFrames > 0 || (duration > 0 && (tween.easing != .linear || tween.start != .now)) else {
      release(channel: channel, fadeOut: duration)
      return
    }
    table.stopCounting(channel)
    counters.activeVoices.subtract(1, ordering: .relaxed)
    state.releases.cancel(on: channel)
    stopFollowing(channel)
    let rate = Double(format.sampleRate)
    if duration > 0 {
      gain.stopsWithLevel.store(true, ordering: .relaxed)
      gain.setLevel(
        0, frames: Int((duration * rate).rounded()), easing: tween.easing, start: tween.startFrame)
    }
    let longest = max(envelopeFrames / rate, duration)
    let wait = Double(start - mixed) / rate + longest
    state.releases.schedule(
      .halt, on: channel, deadline: deadline(after: wait), endFrame: endFrame(after: longest, from: start))
  }

  /// The mix frame by which a ramp of `fade` seconds from `start` (the mix's next block, by
  /// default) has been mixed: the ramp (at least the de-click time) and one device buffer, as the
  /// block under way when the ramp was asked for still plays the old gain.
  func endFrame(after fade: Double, from start: UInt64? = nil) -> UInt64 {
    let from = start ?? mixer.framesMixed.load(ordering: .acquiring)
    let seconds = max(fade, configuration.declickDuration)
    return from &+ UInt64((seconds * Double(format.sampleRate)).rounded(.up)) &+ UInt64(format.bufferFrames)
  }

  /// When a ramp of `fade` seconds must have been mixed: the ramp, two device buffers, and margin.
  package func deadline(after fade: Double) -> UInt64 {
    let seconds = max(fade, configuration.declickDuration) + 2 * format.bufferDuration + 0.02
    return now &+ UInt64(seconds * 1e9)
  }

  package func finish(_ voice: Voice, counting outcome: AudioCounters.Outcome) {
    voice.setState(.finished)
    counters.bump(outcome)
  }

  /// The mix reported `channel` finished (played out, or halted).
  func channelFinished(_ channel: Int) {
    guard let slot = table.vacate(channel) else { return }  // already collected
    state.releases.cancel(on: channel)
    slot.sound.buffer.liveVoices.subtract(1, ordering: .relaxed)
    if slot.stream != nil, slot.voice.isVirtual { streamLaneEnded(slot.voice) }
    if !state.virtual.candidates.isEmpty { state.virtual.needsPass = true }
    if !slot.isReleasing {
      counters.activeVoices.subtract(1, ordering: .relaxed)
      slot.voice.setState(.finished)
    }
  }
}
