@_spi(FoleyStreams) import FoleyAudio

/// Speech as a PCM source for a streamed voice: silence for the pre-utterance delay, the feed's
/// samples as they are synthesised, silence for the post-utterance delay.
///
/// Invariant behind `@unchecked Sendable`: its one `var`, the read position, is touched only by
/// `read`, which the stream filler calls on its queue alone; the feed is thread-safe.
final class SpeechSource: PCMSource, @unchecked Sendable {
  let sampleRate: Int
  let channels = 1
  private let feed: SpeechFeed
  /// Frames of silence before and after the speech.
  let leadingFrames: Int
  private let trailingFrames: Int
  private var leadingRead = 0
  private var trailingRead: Int?

  init(_ feed: SpeechFeed, before: Double, after: Double) {
    self.feed = feed
    sampleRate = feed.sampleRate
    // Held within an hour (NaN: none), so an infinite delay cannot trap.
    leadingFrames = Int(before.clamped(to: 0...3_600, or: 0) * Double(sampleRate))
    trailingFrames = Int(after.clamped(to: 0...3_600, or: 0) * Double(sampleRate))
  }

  func read(into buffer: UnsafeMutablePointer<Float>, count: Int, waiting: Bool) -> Int {
    if leadingRead < leadingFrames {
      let frames = min(count, leadingFrames - leadingRead)
      for index in 0..<frames { buffer[index] = 0 }
      leadingRead += frames
      return frames
    }
    if trailingRead == nil {
      let (frames, ended) = feed.read(into: buffer, count: count, waiting: waiting)
      if !ended { return frames }
      trailingRead = 0
    }
    let frames = min(count, trailingFrames - (trailingRead ?? 0))
    for index in 0..<max(0, frames) { buffer[index] = 0 }
    trailingRead = (trailingRead ?? 0) + max(0, frames)
    return max(0, frames)
  }
}
