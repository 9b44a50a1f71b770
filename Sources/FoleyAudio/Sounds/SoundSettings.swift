/// How a sound plays: its level and place, its priority, and the limits that stop sound spam.
///
/// ```swift
/// var settings = SoundSettings()
/// settings.maximumInstances = 4        // at most four overlapping hits
/// settings.minimumInterval = 0.03      // and not more often than every 30 ms
/// settings.policy = .stealOldest
/// let hit = try Sound(data: bytes, name: "hit.wav", engine: engine, settings: settings)
/// ```
public struct SoundSettings: Sendable, Hashable {
  /// Gain in 0...1 applied to every play of the sound.
  public var volume: Double = 1
  /// Stereo position in -1 (left) ... 1 (right).
  public var pan: Double = 0
  /// Higher wins under ``ChannelPolicy/stealLowestPriority``.
  public var priority: Int = 0
  /// What to do when there is no room for another voice.
  public var policy: ChannelPolicy = .stealOldest
  /// The most voices of this sound at once; nil for no limit.
  public var maximumInstances: Int?
  /// The least time between two starts of this sound, in seconds; closer requests are rejected.
  public var minimumInterval: Double = 0
  /// The kind of sound, which picks its ``SessionPolicy`` (``AudioBus/sessionPolicy``).
  public var category: SoundCategory = .effects
  /// Plays at its category's loudness target (``AudioBus/setLoudnessTarget(_:)``): a gain
  /// from its measured loudness, lowered to keep its true peak at or under -1 dBTP. Off by
  /// default; without a target for its category it changes nothing.
  public var normalizesLoudness = false
  /// What the sound is, in words: each heard play of it is captioned (``CaptionCenter``).
  public var caption: Caption?
  /// A cue no mix may bury: never made virtual by the voice budget
  /// (``AudioConfiguration/maximumAudibleVoices``, ``AudioBus/setMaximumAudibleVoices(_:)``)
  /// and, with a caption, captioned even while the player has muted it.
  public var isCritical = false
  /// Rumble on the game's controllers while the sound plays, at this strength (0…1), following the
  /// sound's low and high bands (see ``HapticsCenter``); nil for none.
  public var rumble: Double?

  /// Critical by its flag or by its caption's category.
  var isCriticalCue: Bool { isCritical || caption?.category == .critical }

  public init() {}
}
