/// What to ask of the audio device when an ``AudioEngine`` opens it.
///
/// ```swift
/// var configuration = AudioConfiguration()   // 48 kHz, 16-bit, stereo, 512 frames
/// configuration.maximumChannels = 64
/// let engine = try AudioEngine(configuration: configuration)
/// ```
public struct AudioConfiguration: Sendable, Hashable {
  public var sampleRate: Int = 48_000
  public var sampleFormat: SampleFormat = .signed16
  public var channels: Int = 2
  /// Frames per device buffer: smaller is lower latency, larger is safer against underruns.
  public var bufferFrames: Int = 512
  /// Mixer channels allocated at start; more are added on demand.
  public var initialChannels: Int = 32
  /// The most sounds that may play at once; at the cap each sound's ``ChannelPolicy`` decides.
  public var maximumChannels: Int = 256
  /// How long stops, pauses and steals take to ramp the gain to silence (per sample, no clicks).
  public var declickDuration: Double = 0.005
  /// A device name from SDL's list, or nil for the default device.
  public var deviceName: String?

  public init() {}

  /// The sample encodings Foley mixes in.
  public enum SampleFormat: String, Sendable, Hashable, CustomStringConvertible {
    case signed16 = "s16"
    case float32 = "f32"

    public var description: String { rawValue }
  }
}

/// The format the device actually opened with, as SDL_mixer reports it.
public struct AudioDeviceFormat: Sendable, Hashable, CustomStringConvertible {
  /// SDL's audio driver (`"pulseaudio"`, `"dummy"`, `"disk"`, …).
  public var driver: String
  public var sampleRate: Int
  public var sampleFormat: AudioConfiguration.SampleFormat
  public var channels: Int
  public var bufferFrames: Int

  /// The duration of one device buffer in seconds.
  public var bufferDuration: Double { Double(bufferFrames) / Double(sampleRate) }

  public var description: String {
    "\(driver): \(sampleRate) Hz, \(sampleFormat), \(channels) ch, \(bufferFrames)-frame buffer"
  }
}
