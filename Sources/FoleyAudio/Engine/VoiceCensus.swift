/// What every voice of an engine is doing right now, counted on the audio queue (one hop, no
/// walk of the mix's meters). An ``AudioSnapshot`` carries the same census with everything else.
///
/// ```swift
/// let census = engine.voiceCensus()
/// hud.text = "\(census.audible) playing, \(census.pausedBySession) held by the session"
/// ```
public struct VoiceCensus: Sendable, Hashable, Codable {
  /// Voices being heard, at full level or ducked (on a mixer channel).
  public var audible = 0
  /// Voices playing in time without a channel, because nobody could hear them or the voice
  /// budget left them out (``Voice/isVirtual``); they come back when they are heard again.
  public var virtual = 0
  /// Of the audible voices, those lowered by a ``SessionPolicy/duck(decibels:)`` policy.
  public var ducked = 0
  /// Voices the game paused (``Voice/pause()``).
  public var pausedByGame = 0
  /// Voices the session paused; they resume when it is active again.
  public var pausedBySession = 0
  /// Stopped or stolen voices still ramping out.
  public var releasing = 0
  /// Voices kept while there is no audio device, to be restored when one opens.
  public var waitingForDevice = 0

  public init() {}
}
