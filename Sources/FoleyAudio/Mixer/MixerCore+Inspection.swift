import Foundation

/// What the inspector asks of the queue: every voice it keeps, with where each is, read
/// together with the mix clock under one audio lock.
extension MixerCore {
  func inspectVoices() -> (clock: UInt64, voices: [VoiceSnapshot]) {
    dispatchPrecondition(condition: .onQueue(queue))
    processFinishedChannels()
    let channels = table.occupiedChannels
    var progress: [LaneProgress?] = []
    progress.reserveCapacity(channels.count)
    var clock: UInt64 = 0
    backend.withAudioLock {
      clock = mixer.framesMixed.load(ordering: .acquiring)
      for channel in channels { progress.append(mixer.progress(of: channel)) }
    }
    let rate = Double(format.sampleRate)
    var voices: [VoiceSnapshot] = []
    voices.reserveCapacity(channels.count + state.virtual.voices.count + state.orphans.count)
    for (index, channel) in channels.enumerated() {
      guard let slot = table[channel] else { continue }
      let state: VoiceSnapshot.State =
        slot.isReleasing
        ? .releasing
        : slot.voice.state == .paused ? .paused : slot.sessionMode == .paused ? .held : .playing
      var entry = describe(slot, state: state, clock: clock)
      if slot.stream == nil, let lane = progress[index] {
        entry.position = Double(lane.frame) / rate
        entry.passesLeft = lane.loops
      }
      voices.append(entry)
    }
    for virtualVoice in state.virtual.voices.values {
      let slot = virtualVoice.slot
      let state: VoiceSnapshot.State =
        slot.voice.state == .paused ? .paused : slot.sessionMode == .paused ? .held : .virtual
      var entry = describe(slot, state: state, clock: clock)
      let elapsed = virtualVoice.isFrozen ? 0 : Int(clamping: clock &- min(clock, virtualVoice.anchor))
      if slot.stream == nil,
        let now = VirtualClock.advance(
          frame: slot.position, loops: slot.loops, by: elapsed, frames: slot.sound.buffer.frames)
      {
        entry.position = Double(now.frame) / rate
        entry.passesLeft = now.loops
      }
      voices.append(entry)
    }
    for slot in state.orphans { voices.append(describe(slot, state: .waiting, clock: clock)) }
    voices.sort { $0.id < $1.id }
    return (clock, voices)
  }

  private func describe(_ slot: Slot, state: VoiceSnapshot.State, clock: UInt64) -> VoiceSnapshot {
    let voice = slot.voice
    let (left, right) = gainPair(for: slot)
    let gain = Double(max(left, right))
    let age = voice.startFrame.flatMap { start -> Double? in
      let now = Int(clamping: clock)
      guard start.index <= now else { return nil }
      return Double(now - start.index) / Double(format.sampleRate)
    }
    return VoiceSnapshot(
      id: voice.id, sound: slot.sound.name, bus: slot.category.name, state: state, volume: voice.volume,
      pan: min(max((slot.heardPlacement?.pan ?? 0) + voice.pan, -1), 1),
      gainDecibels: AudioSnapshot.decibels(gain),
      rate: voice.playbackRate, doppler: Double(RampRequest(packed: voice.dopplerRequest.value).target),
      position: slot.stream == nil ? Double(slot.position) / Double(format.sampleRate) : nil,
      passesLeft: slot.loops, age: age, isPositional: slot.placement != nil,
      acoustics: Self.acoustics(of: voice), listener: Self.listener(of: voice))
  }

  private static func listener(of voice: Voice) -> Int? {
    let listener = voice.heardByListener.load(ordering: .relaxed)
    return listener < 0 ? nil : listener
  }

  private static func acoustics(of voice: Voice) -> VoiceAcoustics? {
    let portal = voice.acousticPortal.load(ordering: .relaxed)
    guard portal >= -1 else { return nil }
    return VoiceAcoustics(
      occlusionDecibels: Double(bitPattern: voice.acousticOcclusion.load(ordering: .relaxed)),
      cutoff: Double(bitPattern: voice.acousticCutoff.load(ordering: .relaxed)),
      path: portal < 0 ? "direct" : "portal \(portal)")
  }

  /// Each bus's effect chain, by bus index (under the audio lock, on the queue).
  func inspectEffects() -> [[AudioEffect]] {
    dispatchPrecondition(condition: .onQueue(queue))
    return backend.withAudioLock { (0..<VoiceMixer.busCapacity).map { mixer.effects(on: $0) } }
  }
}
