public import FoleyCore

/// The sample format of a recording: rate, channels, and 16-bit integer or 32-bit float samples.
///
/// ```swift
/// let voiceMemo = RecordingFormat(sampleRate: 44_100, channels: 1, sampleFormat: .signed16)
/// ```
public struct RecordingFormat: Sendable, Hashable, Codable, CustomStringConvertible {
  public var sampleRate: Int
  public var channels: Int
  public var sampleFormat: SampleFormat

  /// 48 kHz, mono, 16-bit: a microphone's usual format.
  public init(
    sampleRate: Int = 48_000, channels: Int = 1, sampleFormat: SampleFormat = .signed16
  ) {
    self.sampleRate = sampleRate
    self.channels = channels
    self.sampleFormat = sampleFormat
  }

  public var bytesPerSample: Int { sampleFormat.bytesPerSample }
  public var bytesPerFrame: Int { bytesPerSample * channels }

  public var description: String { "\(sampleRate) Hz \(sampleFormat) \(channels) ch" }
}
