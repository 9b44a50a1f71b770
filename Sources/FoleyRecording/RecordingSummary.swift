public import Foundation

/// What a finished recording holds.
public struct RecordingSummary: Sendable, Equatable, CustomStringConvertible {
  public let url: URL
  public let format: RecordingFormat
  public let frames: Int
  /// Why it stopped early, if it did; the file still holds everything before.
  public let error: RecordingError?
  /// False when ``AudioRecorder/record()`` was never called (no file was made).
  public let fileCreated: Bool
  /// False when every sample was exactly zero: digital silence, which usually means no microphone
  /// is behind the capture device (SDL's dummy driver, a muted or absent input).
  public let heardSignal: Bool
  /// Frames were recorded, all of them digital silence.
  public var isDigitalSilence: Bool { frames > 0 && !heardSignal }
  public var duration: Double { Double(frames) / Double(format.sampleRate) }

  public var description: String {
    String(format: "%@: %.3f s, ", url.path, duration) + format.description
      + (error.map { " (stopped early: \($0))" } ?? "")
      + (isDigitalSilence ? " (only digital silence: is there a microphone?)" : "")
  }
}
