/// How long a positional voice's new placement glides: the update's frames, and what the mix has
/// not yet played of the last glide. When the game updates more often than the mix runs a buffer
/// (a fast game loop, a long buffer, a mix that fell behind), each new target replaces the last
/// before it is heard, so the ramp from where the mix stands must cover all of those updates' way
/// in the time all of them take. At least one of the mix's buffers: the mix takes the newest
/// placement once a buffer, so a shorter glide would ramp in the buffer's first frames and hold
/// for the rest, a staircase several times steeper than the motion. At most a tenth of a second:
/// after a stall the voice catches up, a little behind, and the next updates glide over their own
/// time again.
///
/// The audio queue keeps one for the moves it applies, and the scene's link one for the
/// placements the mix follows.
package struct PlacementGlide {
  private var mixFrame: UInt64 = 0
  private var frames = 0

  package init() {}

  /// The glide, in frames, for placements made in an update of `updateFrames` frames, the mix
  /// having mixed `mixed` frames so far (``VoiceMixer/framesMixed``) in buffers of
  /// `bufferFrames`, at `sampleRate`.
  package mutating func next(updateFrames: Int, mixed: UInt64, bufferFrames: Int, sampleRate: Int) -> Int {
    let played = Int(clamping: mixed &- mixFrame)
    let longest = max(1, sampleRate / 10)
    frames = min(max(max(1, updateFrames) + max(0, frames - played), min(bufferFrames, longest)), longest)
    mixFrame = mixed
    return frames
  }
}
