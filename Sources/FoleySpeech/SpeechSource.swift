@_spi(FoleyStreams) import FoleyAudio

/// Synthesised speech as a PCM source for a streamed voice: silence for the pre-utterance delay,
/// the samples, silence for the post-utterance delay.
///
/// Invariant behind `@unchecked Sendable`: its one `var`, the read position, is touched only by
/// `read`, which the stream filler calls on its queue alone.
final class SpeechSource: PCMSource, @unchecked Sendable {
  let sampleRate: Int
  let channels = 1
  private let samples: [Int16]
  /// Frames of silence before and after the speech.
  let leadingFrames: Int
  private let trailingFrames: Int
  private var position = 0

  init(_ speech: SynthesizedSpeech, before: Double, after: Double) {
    sampleRate = speech.sampleRate
    samples = speech.samples
    leadingFrames = Int(max(0, before) * Double(speech.sampleRate))
    trailingFrames = Int(max(0, after) * Double(speech.sampleRate))
  }

  var frameCount: Int { leadingFrames + samples.count + trailingFrames }

  func read(into buffer: UnsafeMutablePointer<Float>, count: Int) -> Int {
    let frames = min(count, frameCount - position)
    guard frames > 0 else { return 0 }
    for index in 0..<frames {
      let sample = position + index - leadingFrames
      buffer[index] = sample >= 0 && sample < samples.count ? Float(samples[sample]) / 32_768 : 0
    }
    position += frames
    return frames
  }
}
