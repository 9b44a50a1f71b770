import FoleyCore
import Synchronization

/// A moving positional voice's placements reach the mix without a hop through the audio queue.
///
/// While the queue lets the mix follow a voice (it is on a channel, playing, not paused, fading or
/// released, and no voice budget ranks it), the scene's update writes each new placement into the
/// voice's own atomics, and the mixing thread, at its next buffer, turns it into the channel's
/// gains with the volume, pan offset and pan law the queue published when it handed the voice
/// over. Any other change to the voice's gain takes it back first (``MixerCore/stopFollowing(_:)``):
/// the queue then reads the latest placement the game wrote and carries on from there, and moves
/// go through the queue again until it hands the voice over once more.
///
/// The hand-back is a store and a load on each side, sequentially consistent: the game thread
/// writes the placement, then reads whether it is still followed; the queue clears the flag, then
/// reads the placement. So either the game thread sees the flag cleared (and sends the move to the
/// queue too) or the queue reads the new placement: a move is never lost between them.
extension Voice {
  /// Hands this placement to the mix (game thread), gliding there over `glide` frames; false when
  /// the audio queue must hear of it too: the mix does not follow the voice, or the placement may
  /// leave it inaudible (the queue then decides whether it goes virtual). The voice keeps it
  /// either way: it is the newest placement, which the queue takes when it takes the voice back.
  package func followPlacement(_ placement: SpatialPlacement, glide: Int) -> Bool {
    let gain = Float(placement.gain)
    followPlacement.store(Self.pack(gain, Float(placement.pan)), ordering: .sequentiallyConsistent)
    followGlide.store(glide, ordering: .relaxed)
    followWrites.wrappingAdd(1, ordering: .releasing)
    // Audible at this gain whatever the pan (the laws' quietest ear is cos(π/4) of the louder).
    let volume = Double(bitPattern: followVolume.load(ordering: .relaxed))
    guard Float(volume) * gain * 0.7 >= MixerCore.silentGain else { return false }
    return follows.load(ordering: .sequentiallyConsistent)
  }

  /// The newest placement the game wrote, if it wrote one since the voice's play began.
  var newestPlacement: SpatialPlacement? {
    followWrites.load(ordering: .acquiring) == 0 ? nil : followedPlacement
  }

  /// The placement the game wrote last.
  var followedPlacement: SpatialPlacement {
    let (gain, pan) = Self.unpack(followPlacement.load(ordering: .sequentiallyConsistent))
    return SpatialPlacement(gain: Double(gain), pan: Double(pan))
  }

  /// The gains the mix follows the voice to (mixing thread): its published volume, pan offset and
  /// law applied to the latest placement, computed as ``MixerCore/gainPair(for:)`` computes them,
  /// to the bit, so the mix hears the same whichever of the two placed the voice.
  func followedGains() -> (left: Float, right: Float) {
    let (gain, pan) = Self.unpack(followPlacement.load(ordering: .acquiring))
    let volume = Double(bitPattern: followVolume.load(ordering: .relaxed))
    let offset = Double(bitPattern: followPanOffset.load(ordering: .relaxed))
    let law = followLaw.load(ordering: .relaxed)
    let (left, right) = MixerCore.placedGains(
      volume: volume, placement: SpatialPlacement(gain: Double(gain), pan: Double(pan)), panOffset: offset,
      channels: law & Self.stereoSource != 0 ? 2 : 1)
    guard law & Self.monoOutput != 0 else { return (left, right) }
    return MixerCore.centred(left, right)
  }

  /// The pan law bits of ``followLaw``.
  static let stereoSource: UInt8 = 1
  static let monoOutput: UInt8 = 2

  static func pack(_ first: Float, _ second: Float) -> UInt64 {
    UInt64(first.bitPattern) | UInt64(second.bitPattern) << 32
  }

  static func unpack(_ word: UInt64) -> (Float, Float) {
    (
      Float(bitPattern: UInt32(truncatingIfNeeded: word)),
      Float(bitPattern: UInt32(truncatingIfNeeded: word >> 32))
    )
  }
}
