/// One voice on one mixer channel, as the core's queue keeps it.
struct Slot {
  let voice: Voice
  let sound: Sound
  /// When it started, among all starts of this engine (for "steal the oldest").
  let order: UInt64
  /// `Mix_PlayChannel`'s loops for the chunk on the channel (-1: forever); for a play resumed
  /// mid-sound, the whole passes still to play after it.
  var loops: Int
  var sessionMode: SessionMode
  /// Stopped or stolen: no longer counted, ramping to silence before its channel is halted.
  var isReleasing = false
  /// Where the channel's chunk starts within the sound, in frames (non-zero after a restore).
  var chunkOffset = 0
  /// A chunk made for a restore (a view into the sound's samples, or a rotated copy of them)
  /// that the slot must free.
  var ownedChunk: MixChunk?
  /// For a streamed voice (music): the effect that writes the stream over the silent carrier.
  /// Streamed voices are never stolen and do not count against the voice cap.
  var stream: StreamEffect?
  /// For a positional voice: where the scene last placed it (distance gain and pan).
  var placement: SpatialPlacement?

  var soundKey: ObjectIdentifier { ObjectIdentifier(sound) }
  var category: SoundCategory { sound.settings.category }
  var priority: Int { sound.settings.priority }
  /// Whether the sound limits its instances (only then is it listed per sound).
  var isLimited: Bool { sound.settings.maximumInstances != nil }
  /// Whether the voice is in the start-order lists that stealing and the cap use.
  var isCounted: Bool { stream == nil }
}
