import Dispatch
import FoleyCore

/// What the game does to voices: stop, pause, resume, change their gain; one at a time or all.
extension MixerCore {
  package func stop(_ voice: Voice, tween: Tween) {
    queue.async { [self] in
      guard state.isOpen else { return }
      processFinishedChannels()
      stopOnQueue(voice, tween: tween)
      scheduleFallbackWake()
    }
  }

  private func stopOnQueue(_ voice: Voice, tween: Tween) {
    capturing({ .stop(voice: voice.id, tween: captured(tween)) }) { stopVoiceOnQueue(voice, tween: tween) }
  }

  private func stopVoiceOnQueue(_ voice: Voice, tween: Tween) {
    // A stop that starts on a later frame lets a play asked for before it start first.
    if voice.state == .pending, tween.startFrame != .max,
      tween.startFrame > mixer.framesMixed.load(ordering: .acquiring)
    {
      servePlayRequests()
    }
    if virtualEntry(of: voice) != nil {
      finishVirtual(voice)
      return
    }
    if let orphan = state.orphans.firstIndex(where: { $0.voice === voice }) {
      state.orphans.remove(at: orphan)
      counters.activeVoices.subtract(1, ordering: .relaxed)
      voice.setState(.finished)
      return
    }
    guard let channel = table.channel(of: voice), table[channel]?.isReleasing == false else {
      // Not started yet: the request is skipped when it is served.
      if voice.state == .pending { voice.setState(.finished) }
      return
    }
    release(channel: channel, tween: tween)
    voice.setState(.finished)
  }

  /// Stops every voice (of `category`, or all), ramping out over `fadeOut` seconds. Reaches the
  /// voices actions started, which have no handle in the game's hands.
  func stopAll(category: SoundCategory?, tween: Tween) {
    queue.async { [self] in
      guard state.isOpen else { return }
      processFinishedChannels()
      let voices =
        table.occupiedChannels.compactMap { table[$0] }.filter { !$0.isReleasing }.map(\.voice)
        + state.orphans.map(\.voice) + state.virtual.voices.values.map(\.slot.voice)
      for voice in voices where category == nil || matches(voice, category!) {
        stopOnQueue(voice, tween: tween)
      }
      scheduleFallbackWake()
    }
  }

  /// Resumes every voice the game (or an interruption that ended without resuming) left paused.
  func resumeAll(category: SoundCategory?) {
    queue.async { [self] in
      guard state.isOpen else { return }
      let voices =
        table.occupiedChannels.compactMap { table[$0] }.map(\.voice) + state.orphans.map(\.voice)
        + state.virtual.voices.values.map(\.slot.voice)
      for voice in voices where voice.state == .paused && (category == nil || matches(voice, category!)) {
        capturing({ .resume(voice: voice.id) }) { resumeOnQueue(voice) }
      }
    }
  }

  private func matches(_ voice: Voice, _ category: SoundCategory) -> Bool {
    if let channel = table.channel(of: voice) { return table[channel]?.category == category }
    if let entry = virtualEntry(of: voice) { return entry.slot.category == category }
    return state.orphans.first { $0.voice === voice }?.category == category
  }

  func updateGain(of voice: Voice) {
    queue.async { [self] in
      guard state.isOpen, voice.state == .playing else { return }
      capturing({ .gain(voice: voice.id, pan: voice.pan, groupVolume: voice.groupVolume) }) {
        updateGainOnQueue(of: voice)
      }
    }
  }

  private func updateGainOnQueue(of voice: Voice) {
    if voice.isVirtual {
      gainChanged(voice, channel: nil)
    } else {
      guard let channel = table.channel(of: voice), let slot = table[channel], !slot.isReleasing,
        slot.sessionMode != .paused
      else { return }
      retarget(channel, slot)
      gainChanged(voice, channel: channel)
    }
    rebalanceVoices()
  }

  /// Moves `voice`'s level (its volume) from `from` to `target`, along `tween`; a
  /// voice still waiting (for its sound's decode) keeps the last tween for its start
  /// (``startLevel(of:on:)``).
  func setVolume(of voice: Voice, from: Double, to target: Double, tween: Tween) {
    let duration = tween.usableDuration
    let start = tween.startFrame
    queue.async { [self] in
      defer { voice.levelChangesInFlight.wrappingSubtract(1, ordering: .releasing) }
      guard state.isOpen else { return }
      // A play asked for before this call is started first, so the tween reaches its channel.
      if voice.state == .pending { servePlayRequests() }
      let frames = duration > 0 ? Int((duration * Double(format.sampleRate)).rounded()) : 0
      let easing = duration > 0 ? tween.easing : .linear
      switch voice.state {
      case .pending:
        // Set at once before the start: it simply starts at the new volume.
        guard frames > 0 else {
          voice.pendingLevelFrom.store(Double.nan.bitPattern, ordering: .relaxed)
          return
        }
        if Double(bitPattern: voice.pendingLevelFrom.load(ordering: .relaxed)).isNaN {
          voice.pendingLevelFrom.store(from.bitPattern, ordering: .relaxed)
        }
        voice.pendingLevelFrames.store(frames, ordering: .relaxed)
        voice.pendingLevelShape.store(easing.bits, ordering: .relaxed)
        voice.pendingLevelStart.store(start, ordering: .relaxed)
        return
      case .finished: return
      case .playing, .paused: break
      }
      capturing({ .volume(voice: voice.id, to: target, tween: captured(tween)) }) {
        if voice.isVirtual {
          // Kept for when it comes back on a channel: the tween goes on from where it got to.
          voice.keepLevelTween(
            from: from, frames: frames, easing: easing,
            start: start == .max ? mixer.framesMixed.load(ordering: .acquiring) : start)
          gainChanged(voice, channel: nil)
        } else {
          guard let channel = table.channel(of: voice), let slot = table[channel], !slot.isReleasing else {
            return
          }
          let gain = table.gains[channel]
          gain.setLevel(
            Float(target), frames: frames > 0 ? frames : gain.declickFrames, easing: easing, start: start)
          gainChanged(voice, channel: channel)
        }
      }
      rebalanceVoices()
    }
  }

  /// Sets the level `voice` starts at on `gain`: its volume, or the volume a tween asked for
  /// before the start moves from, with that tween under way. Before the lane is armed.
  func startLevel(of voice: Voice, on gain: ChannelGain) {
    gain.setModulators(voice.seededModulators)
    let from = Double(bitPattern: voice.pendingLevelFrom.load(ordering: .relaxed))
    guard !from.isNaN else {
      // A change asked for just now, not handled yet: the start is at the volume it moves from
      // (its handling, next on this queue, moves the level on as asked).
      let inFlight = voice.levelChangesInFlight.load(ordering: .acquiring) > 0
      gain.resetLevel(
        Float(inFlight ? Double(bitPattern: voice.inFlightLevelFrom.load(ordering: .relaxed)) : voice.volume))
      return
    }
    voice.pendingLevelFrom.store(Double.nan.bitPattern, ordering: .relaxed)
    let frames = voice.pendingLevelFrames.load(ordering: .relaxed)
    let easing = Easing.decoded(voice.pendingLevelShape.load(ordering: .relaxed))
    let start = voice.pendingLevelStart.load(ordering: .relaxed)
    let mixed = mixer.framesMixed.load(ordering: .acquiring)
    guard start != .max, start < mixed, frames > 0 else {
      gain.resetLevel(Float(from))
      // Only a tween is kept for the start (a plain assignment just starts at the new volume).
      gain.setLevel(Float(voice.volume), frames: frames, easing: easing, start: start)
      return
    }
    // A tween already under way (a virtual voice coming back): from where it has got to, over
    // what is left of it.
    let elapsed = Int(mixed - start)
    guard elapsed < frames else {
      gain.resetLevel(Float(voice.volume))
      return
    }
    let reached = from + (voice.volume - from) * easing.apply(Double(elapsed) / Double(frames))
    gain.resetLevel(Float(reached))
    gain.setLevel(Float(voice.volume), frames: frames - elapsed, easing: easing, start: .max)
  }

  /// Ramps the channel's gain to what its slot, bus and session say now.
  /// A voice the mix was following glides there as its move would have (the change may carry
  /// the game's newest placement, which the queue had not seen).
  func retarget(_ channel: Int, _ slot: Slot, step: Float? = nil) {
    let glide = stopFollowing(channel)
    let (left, right) = channelGains(for: table[channel] ?? slot)
    let glideStep = glide.map { self.glideStep(channel, to: (left, right), over: $0) }
    keepPanTween(channel)
    table.gains[channel].setTarget(left: left, right: right, step: step ?? glideStep ?? declickStep)
  }

  /// Left and right gains from the sound's and the voice's volume and pan, the bus and the
  /// session. An unplaced voice pans on a linear balance law (the centre is at full level in both
  /// ears, so two centred plays simply add); a positional one takes its distance gain and pans on
  /// its source's law (constant power for mono, balance for stereo). In mono output both ears get
  /// the pair's power average, so a voice keeps its loudness wherever it was panned.
  func gainPair(for slot: Slot) -> (Float, Float) { gainPair(for: slot, withVoiceVolume: true) }

  /// What the channel's gain stage targets: the pair without the voice's own volume, which the
  /// stage's level carries (so that it can be tweened sample by sample; `ChannelGain+Level.swift`).
  func channelGains(for slot: Slot) -> (Float, Float) { gainPair(for: slot, withVoiceVolume: false) }

  private func gainPair(for slot: Slot, withVoiceVolume: Bool) -> (Float, Float) {
    let (left, right) = stereoGainPair(for: slot, withVoiceVolume: withVoiceVolume)
    guard state.appliedBuses.isMono else { return (left, right) }
    return Self.centred(left, right)
  }

  /// Both ears at the power average of a pair (mono output).
  static func centred(_ left: Float, _ right: Float) -> (Float, Float) {
    let centred = ((left * left + right * right) / 2).squareRoot()
    return (centred, centred)
  }

  /// A positional voice's gains: `volume` and the placement's gain, panned by the placement's pan
  /// plus `panOffset` on the law of a source of `channels` channels. The mix computes the same for
  /// a voice it follows (`Voice.followedGains()`).
  static func placedGains(
    volume: Double, placement: SpatialPlacement, panOffset: Double, channels: Int
  ) -> (Float, Float) {
    let pan = min(max(placement.pan + panOffset, -1), 1)
    let (left, right) = SpatialAudio.gains(pan: pan, channels: channels)
    return (Float(volume * placement.gain * left), Float(volume * placement.gain * right))
  }

  /// What `slot`'s buses give its gain as last applied (a critical cue is ducked no deeper than
  /// the critical floor, whatever its bus).
  func busGain(for slot: Slot) -> Double {
    slot.sound.settings.isCriticalCue
      ? state.appliedBuses.gain(for: slot.category, criticalCue: true)
      : busGains.value(for: slot.category) { state.appliedBuses.gain(for: $0) }
  }

  /// Everything of `slot`'s gain but its pan and placement: the sound's and the voice's volume
  /// (unless `withVoiceVolume` is false: the channel's level carries it), its loudness
  /// normalization, the session's mode and the bus.
  func volume(of slot: Slot, withVoiceVolume: Bool = true) -> Double {
    let voice = slot.voice
    return slot.sound.settings.volume * (withVoiceVolume ? voice.volume : 1) * voice.groupVolume
      * voice.normalization
      * Double(slot.sessionMode.gain) * busGain(for: slot)
  }

  private func stereoGainPair(for slot: Slot, withVoiceVolume: Bool) -> (Float, Float) {
    let voice = slot.voice
    let sound = slot.sound
    let volume = volume(of: slot, withVoiceVolume: withVoiceVolume)
    guard let placement = slot.heardPlacement else {
      let pan = min(max(sound.settings.pan + voice.heardPan, -1), 1)
      return (Float(volume * min(1, 1 - pan)), Float(volume * min(1, 1 + pan)))
    }
    return Self.placedGains(
      volume: volume, placement: placement, panOffset: sound.settings.pan + voice.heardPan,
      channels: sound.buffer.source.channels)
  }

  /// Moves positional voices to where the scene placed them, each ramping there over `frames`
  /// sample frames (about one game frame, so a node that moves every update glides, never steps).
  /// The ramp starts from the gain the mix has actually reached, so a voice still ramping from an
  /// earlier change still arrives in time. On the queue, in the hop
  /// (``updatePlacements(_:releasing:overFrames:)`` sends them); the caller rebalances the
  /// voices after.
  ///
  /// The glide also spans what is left of the last moves' glide that the mix has not played yet
  /// (``PlacementGlide``), for a game that updates several times per buffer.
  ///
  /// The moves' voices are unretained (``PlacementMove``): their sender keeps them alive until
  /// the queue is past these moves.
  func applyPlacements(_ moves: [PlacementMove], overFrames frames: Int) {
    // Captured: under the audio lock, each move recorded with the glide it was given.
    guard let capture = state.capture else { return placeAll(moves, overFrames: frames, capture: nil) }
    backend.holdingAudioLock { placeAll(moves, overFrames: frames, capture: capture) }
  }

  private func placeAll(_ moves: [PlacementMove], overFrames frames: Int, capture: CommandCapture?) {
    // At most a tenth of a second however late the queue ran: the voice follows, a little behind.
    let mixed = mixer.framesMixed.load(ordering: .acquiring)
    let glide = state.placementGlide.next(
      updateFrames: frames, mixed: mixed, bufferFrames: format.bufferFrames, sampleRate: format.sampleRate)
    for move in moves {
      let voice = move.voice.takeUnretainedValue()
      // The newest placement the game gave the voice: this move's, or a later one it handed the
      // mix while the mix still followed the voice.
      let placement = voice.newestPlacement ?? move.placement
      // While capturing, a move to where the voice is placed already is left out (a scene moves
      // every positional voice each update, most of them to where they were): a capture holds
      // what changed.
      if capture != nil, voice.state != .pending, placement == currentPlacement(of: voice) { continue }
      place(voice, at: placement, glide: glide)
      // A move of a voice not started yet does nothing (its start takes the newest placement).
      if let capture, voice.state != .pending {
        capture.record(
          .place(voice: voice.id, gain: placement.gain, pan: placement.pan, glide: glide), at: mixed)
      }
    }
  }

  /// Where the queue has placed `voice` (nil: nowhere, or not positional).
  private func currentPlacement(of voice: Voice) -> SpatialPlacement? {
    if voice.isVirtual, let entry = state.virtual.voices[ObjectIdentifier(voice)] {
      return entry.slot.placement
    }
    if let channel = table.channel(of: voice) { return table[channel]?.placement }
    return state.orphans.first { $0.voice === voice }?.placement
  }

  /// A captured move, applied as the live engine's queue applied it.
  func replayPlacement(of voice: Voice, at placement: SpatialPlacement, glide: Int) {
    queue.async { [self] in
      if voice.state == .pending { servePlayRequests() }
      place(voice, at: placement, glide: glide)
    }
  }

  /// Moves `voice` to `placement`, its gains gliding there over `glide` frames.
  private func place(_ voice: Voice, at placement: SpatialPlacement, glide: Int) {
    if voice.isVirtual, state.virtual.voices[ObjectIdentifier(voice)] != nil {
      state.virtual.voices[ObjectIdentifier(voice)]?.slot.placement = placement
      gainChanged(voice, channel: nil)
      return
    }
    if !state.orphans.isEmpty, let orphan = state.orphans.firstIndex(where: { $0.voice === voice }) {
      state.orphans[orphan].placement = placement
      return
    }
    // The slot is changed and read where it lies: copying it out retained and released each
    // of its references, for every moving voice every update.
    guard let channel = table.channel(of: voice) else { return }
    // A voice the mix follows is taken back first: this move is one the game sent the queue
    // (the mix did not follow it then, or it may have left the voice inaudible).
    if voice.follows.load(ordering: .relaxed) {
      voice.follows.store(false, ordering: .sequentiallyConsistent)
    }
    guard
      let (left, right) = table.update(
        channel,
        { slot -> (Float, Float)? in
          guard slot.placement != nil else { return nil }
          slot.placement = placement
          guard voice.state == .playing, !slot.isReleasing, slot.sessionMode != .paused else {
            return nil
          }
          return channelGains(for: slot)
        }) ?? nil
    else { return }
    keepPanTween(channel)
    table.gains[channel].setTarget(
      left: left, right: right, step: glideStep(channel, to: (left, right), over: glide))
    gainChanged(voice, channel: channel)
    // Its next moves go straight to the mix, unless they must come here.
    if !(configuration.virtualizesInaudibleVoices
      && max(left, right) * Float(voice.volume) < Self.silentGain)
    {
      startFollowing(channel)
    }
  }
}
