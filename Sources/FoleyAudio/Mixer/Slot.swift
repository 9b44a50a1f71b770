/// One voice on one mixer channel, as the core's queue keeps it.
package struct Slot {
  package let voice: Voice
  package let sound: Sound
  /// When it started, among all starts of this engine (for "steal the oldest").
  package let order: UInt64
  /// The whole passes to play after the first (-1: for ever).
  package var loops: Int
  var sessionMode: SessionMode
  /// Stopped or stolen: no longer counted, ramping to silence before its channel is halted.
  var isReleasing = false
  /// Whether its channel is paused in the mixer (started paused, or paused once its ramp reached
  /// silence; not while that ramp is under way). The queue keeps this itself: asking the mixer
  /// takes the audio lock, and every stolen voice asked.
  var isChannelPaused = false
  /// The mix clock a session pause held this voice on while it still waited for its start frame
  /// (nil: not held so).
  var waitingHeldAt: UInt64?
  /// Its schedule's rule for a start held by a pause (``ScheduledStart/whenHeld``).
  var whenHeld: (@Sendable (UInt64) -> (@Sendable (UInt64) -> UInt64?)?)?
  /// What that rule gave when the pause held it: its start after the resume.
  var startAfterHold: (@Sendable (UInt64) -> UInt64?)?
  /// The frame of the sound its first pass starts from: non-zero for a voice that continues
  /// mid-sound (restored on a new device, or back from virtual). Later passes start at 0.
  package var position = 0
  /// For a streamed voice (music): the effect that writes the stream over the silent carrier.
  /// Streamed voices are never stolen and do not count against the voice cap.
  package var stream: StreamEffect?
  /// For a positional voice: where the scene last placed it (distance gain and pan).
  package var placement: SpatialPlacement?

  package init(
    voice: Voice, sound: Sound, order: UInt64, loops: Int, sessionMode: SessionMode,
    stream: StreamEffect? = nil, placement: SpatialPlacement? = nil
  ) {
    self.voice = voice
    self.sound = sound
    self.order = order
    self.loops = loops
    self.sessionMode = sessionMode
    self.stream = stream
    self.placement = placement
  }

  var soundKey: ObjectIdentifier { ObjectIdentifier(sound) }
  package var category: SoundCategory { sound.settings.category }
  package var priority: Int { sound.settings.priority }
  /// Whether the sound limits its instances (only then is it listed per sound).
  var isLimited: Bool { sound.settings.maximumInstances != nil }
  /// Whether the voice is in the start-order lists that stealing and the cap use.
  var isCounted: Bool { stream == nil }
}
