/// The common case in one pass: a float stereo sound at rate 1, unfiltered, unsent, at a steady
/// gain is read, scaled and summed into its bus by one SIMD loop, with no copy in between.
extension VoiceMixer {
  /// The lane's held gains when it can take the direct path; nil when it needs the full one
  /// (a stream, a shaper at work, a send, a ramp, silence, or not float stereo).
  @inline(__always)
  func directGains(_ channel: Int) -> (left: Float, right: Float)? {
    guard isFloat, channels == 2, lanes[channel].stream == nil,
      let voice = lanes[channel].voice?.takeUnretainedValue()
    else { return nil }
    lanes[channel].send.follow(voice.sendRequest.load(ordering: .relaxed))
    guard lanes[channel].send.value == 0, !lanes[channel].send.isMoving else { return nil }
    if let shaper = lanes[channel].shaper?.takeUnretainedValue() {
      guard !shaper.isEngaged, !shaper.isFiltering,
        voice.rateRequest.load(ordering: .relaxed) == VoiceShaping.unitRate,
        voice.dopplerRequest.load(ordering: .relaxed) == VoiceShaping.unitRate,
        voice.cutoffRequest.load(ordering: .relaxed) == VoiceShaping.openCutoff
      else { return nil }
    }
    return lanes[channel].gain?.takeUnretainedValue().heldGains
  }

  /// Sums the lane's next `frames` frames × `gains` into `target`; true when the sound ended.
  func mixDirect(
    _ channel: Int, into target: UnsafeMutablePointer<Float>, frames: Int, gains: (left: Float, right: Float)
  ) -> Bool {
    let pattern = SIMD8<Float>(
      gains.left, gains.right, gains.left, gains.right, gains.left, gains.right, gains.left, gains.right)
    let (filled, ended) = walkPasses(channel, frames: frames) { from, offset, take in
      addScaled(from, into: target + offset * 2, count: take * 2, by: pattern)
    }
    lanes[channel].gain?.takeUnretainedValue().account(sourceFrames: filled)
    return ended
  }
}
