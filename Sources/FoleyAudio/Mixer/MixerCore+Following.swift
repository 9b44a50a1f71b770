import Synchronization

/// Moving positional voices followed by the mix, without a hop per update (see
/// `Voice+Following.swift`): the queue hands a voice over after it has placed it, and takes it
/// back before any other change to its gain.
extension MixerCore {
  /// Whether a budget ranks the voices by how loud they are: then every move goes through the
  /// queue, which ranks them.
  var ranksVoices: Bool {
    configuration.maximumAudibleVoices != nil || !audibleLimits.withLock { $0.isEmpty }
  }

  /// Hands `channel`'s positional voice to the mix: from now on its placements reach the gain
  /// stage directly, each gliding over the frames the game gives it, until ``stopFollowing(_:)``. Only a voice
  /// the queue would simply retarget is handed over: playing, not paused, not released, not a
  /// stream, and no budget ranking the voices.
  func startFollowing(_ channel: Int) {
    guard let slot = table[channel], slot.placement != nil, slot.stream == nil, !slot.isReleasing,
      slot.sessionMode != .paused, !slot.isChannelPaused, slot.voice.state == .playing, !ranksVoices,
      // While a capture runs, every move goes through the queue, where it is stamped; a replay
      // makes its moves there too.
      state.capture == nil, !state.isReplaying,
      // The mix works a pan tween's gains out itself.
      !table.gains[channel].mayTweenPan(mixed: mixer.framesMixed.load(ordering: .relaxed))
    else { return }
    let voice = slot.voice
    voice.followVolume.store(volume(of: slot, withVoiceVolume: false).bitPattern, ordering: .relaxed)
    voice.followPanOffset.store((slot.sound.settings.pan + voice.heardPan).bitPattern, ordering: .relaxed)
    let law =
      (slot.sound.buffer.source.channels == 1 ? 0 : Voice.stereoSource)
      | (state.appliedBuses.isMono ? Voice.monoOutput : 0)
    voice.followLaw.store(law, ordering: .relaxed)
    // The placement is the game's newest, already in the voice (the slot's came from it): a new
    // count of writes has the mix take it with this volume.
    voice.followWrites.wrappingAdd(1, ordering: .releasing)
    voice.follows.store(true, ordering: .sequentiallyConsistent)
  }

  /// Takes `channel`'s voice back from the mix, if it was following: its slot takes the latest
  /// placement the game wrote, and its target is where that placement puts it, reached over the
  /// glide the game gave it (as the mix would have), so the caller's change starts from where the
  /// voice is heard.
  /// - Returns: the frames of the game's glide when it took the voice back, nil when the mix was
  ///   not following it.
  @discardableResult
  func stopFollowing(_ channel: Int) -> Int? {
    guard let voice = table.voice(on: channel), voice.follows.load(ordering: .relaxed) else { return nil }
    voice.follows.store(false, ordering: .sequentiallyConsistent)
    let placement = voice.followedPlacement
    let glide = max(1, voice.followGlide.load(ordering: .relaxed))
    guard
      let slot = table.update(
        channel,
        { slot -> Slot in
          slot.placement = placement
          return slot
        })
    else { return glide }
    let (left, right) = channelGains(for: slot)
    table.gains[channel].setTarget(
      left: left, right: right, step: glideStep(channel, to: (left, right), over: glide))
    return glide
  }

  /// The step that brings `channel`'s gain from where the mix has it to `gains` in `frames`.
  func glideStep(_ channel: Int, to gains: (Float, Float), over frames: Int) -> Float {
    let reached = table.gains[channel].current
    let distance = max(abs(gains.0 - reached.left), abs(gains.1 - reached.right))
    return max(distance / Float(max(1, frames)), 1e-7)
  }

  /// Takes every voice back from the mix: a budget now ranks them, or the device is going.
  func stopFollowingAll() {
    for channel in table.occupiedChannels { stopFollowing(channel) }
  }
}

extension Slot {
  /// Where a positional voice is heard from now: the newest placement the game wrote while the
  /// mix follows the voice, the slot's own otherwise; nil for a voice that is not positional.
  var heardPlacement: SpatialPlacement? {
    guard placement != nil, voice.follows.load(ordering: .relaxed) else { return placement }
    return voice.followedPlacement
  }
}
