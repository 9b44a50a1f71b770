/// One voice on one mixer channel, as the core's queue keeps it.
package struct Slot {
  package let voice: Voice
  package let sound: Sound
  /// When it started, among all starts of this engine (for "steal the oldest").
  package let order: UInt64
  /// `Mix_PlayChannel`'s loops for the chunk on the channel (-1: forever); for a play resumed
  /// mid-sound, the whole passes still to play after it.
  package var loops: Int
  package var sessionMode: SessionMode
  /// Stopped or stolen: no longer counted, ramping to silence before its channel is halted.
  package var isReleasing = false
  /// Where the channel's chunk starts within the sound, in frames (non-zero after a restore).
  package var chunkOffset = 0
  /// A chunk made for a restore (a view into the sound's samples, or a rotated copy of them)
  /// that the slot must free.
  package var ownedChunk: MixChunk?
  /// For a streamed voice (music): the effect that writes the stream over the silent carrier.
  /// Streamed voices are never stolen and do not count against the voice cap.
  package var stream: StreamEffect?
  /// For a positional voice: where the scene last placed it (distance gain and pan).
  package var placement: SpatialPlacement?

  package var soundKey: ObjectIdentifier { ObjectIdentifier(sound) }
  package var category: SoundCategory { sound.settings.category }
  package var priority: Int { sound.settings.priority }
  /// Whether the sound limits its instances (only then is it listed per sound).
  package var isLimited: Bool { sound.settings.maximumInstances != nil }
  /// Whether the voice is in the start-order lists that stealing and the cap use.
  package var isCounted: Bool { stream == nil }
}
