/// A voice's seek on the mixing thread: the block it is taken in fades out over its last 64
/// frames and the lane jumps; the next block fades in over its first 64. A voice that has not
/// played a block yet just starts at the new place.
extension VoiceMixer {
  static let seekFadeFrames = 64

  /// Takes `channel`'s voice's seek request, if one waits and none is under way.
  @inline(__always)
  func takeSeek(_ channel: Int) {
    guard lanes[channel].seekPhase == 0, let heldVoice = lanes[channel].voice else { return }
    let (wanted, hasPlayed) = heldVoice._withUnsafeGuaranteedRef {
      ($0.seekRequest.load(ordering: .relaxed), $0.hasPlayed)
    }
    guard wanted >= 0 else { return }
    guard hasPlayed else {
      jump(channel, to: wanted)
      return
    }
    lanes[channel].seekPhase = 1
    lanes[channel].seekTarget = wanted
  }

  /// Fades the block in ``voiceBuffer`` as the seek under way on `channel` needs, and jumps.
  func fadeForSeek(_ channel: Int, frames: Int) {
    let fade = min(Self.seekFadeFrames, frames)
    guard fade > 0 else { return }
    if lanes[channel].seekPhase == 1 {
      let first = frames - fade
      for frame in 0..<fade {
        let gain = Float(fade - frame - 1) / Float(fade)
        for channelIndex in 0..<channels { voiceBuffer[(first + frame) * channels + channelIndex] *= gain }
      }
      jump(channel, to: lanes[channel].seekTarget)
      lanes[channel].seekPhase = 2
    } else {
      for frame in 0..<fade {
        let gain = Float(frame + 1) / Float(fade)
        for channelIndex in 0..<channels { voiceBuffer[frame * channels + channelIndex] *= gain }
      }
      lanes[channel].seekPhase = 0
    }
  }

  /// Moves `channel`'s place to sound frame `frame` (within the sound) and clears the request
  /// if it still asks for that frame (a newer one waits for the next block).
  private func jump(_ channel: Int, to frame: Int) {
    let last = max(0, lanes[channel].byteCount - bytesPerFrame)
    lanes[channel].position = min(max(0, frame) * bytesPerFrame, last)
    lanes[channel].shaper?._withUnsafeGuaranteedRef { $0.dropQueuedInput() }
    lanes[channel].voice?._withUnsafeGuaranteedRef {
      _ = $0.seekRequest.compareExchange(expected: frame, desired: -1, ordering: .relaxed)
    }
  }
}
