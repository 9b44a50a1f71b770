public import FoleyCore
import Foundation

/// What to ask of the audio device when an ``AudioEngine`` opens it, and the engine's limits.
///
/// ```swift
/// var configuration = AudioConfiguration()   // 48 kHz, float32, stereo, 512 frames, limiter at -1 dBFS
/// configuration.maximumChannels = 64
/// configuration.limiter?.ceilingDecibels = -0.3
/// let engine = try AudioEngine(configuration: configuration)
/// ```
///
/// Values outside the ranges documented on each property make ``AudioEngine/init(configuration:session:assetRoots:logger:)``
/// throw ``AudioEngineError/invalidConfiguration(_:)`` naming the property.
public struct AudioConfiguration: Sendable, Hashable {
  /// Whether the mix may sum voices with the AVX kernel where the CPU has it. Only foley-bench
  /// turns it off, to measure the portable path (what a CPU without AVX runs) in the same run.
  package var allowsWideVectors = true
  /// Frames per second, 8,000…384,000.
  public var sampleRate: Int = 48_000
  /// The mix's sample format. `.float32` (the default) never saturates inside the mix, however
  /// many voices stack, and the master limiter brings the sum under its ceiling; with `.signed16`
  /// SDL_mixer saturates at every addition, so loud stacks clip before the limiter sees them.
  /// SDL converts to whatever the device takes either way.
  public var sampleFormat: SampleFormat = .float32
  /// 1…8.
  public var channels: Int = 2
  /// Frames per device buffer, 64…16,384: smaller is lower latency, larger is safer against
  /// underruns.
  public var bufferFrames: Int = 512
  /// Mixer channels allocated at start; more are added on demand.
  public var initialChannels: Int = 32
  /// The most sounds that may play at once, 1…4,096; at the cap each sound's ``ChannelPolicy``
  /// decides.
  public var maximumChannels: Int = 256
  /// The most voices mixed at once (nil, the default: no budget); the rest are virtual
  /// (``Voice/isVirtual``): they give their channel back, keep their place in time, and come
  /// back when they rank again. Voices rank by their sound's priority, then by how loud they are
  /// after volume, distance, bus and session (a voice already heard counts 3 dB louder, so one
  /// at the edge does not flap). 1…4,096. Per bus: ``AudioBus/setMaximumAudibleVoices(_:)``.
  ///
  /// ```swift
  /// configuration.maximumAudibleVoices = 32      // 5,000 torches, the 32 nearest heard
  /// ```
  public var maximumAudibleVoices: Int?
  /// Whether a voice nobody could hear (gain under -80 dB after volume, distance, bus and
  /// session: beyond ``SpatialAudio/maximumDistance``, at zero volume, on a muted bus) goes
  /// virtual (the default), without any budget. Off, it keeps its channel and is mixed silent.
  /// Streamed voices (music, speech) go virtual only unheard: the budget does not count them.
  public var virtualizesInaudibleVoices = true
  /// How long stops, pauses and steals take to ramp the gain to silence (per sample, no clicks),
  /// 0.5…100 ms.
  public var declickDuration: Double = 0.005
  /// How long ``AudioEngine/close()`` fades the whole output to silence before it stops the
  /// device, 0…0.5 s (default 10 ms): music or a ringing tail that plays when a game quits ends
  /// without a click. 0 cuts at once.
  public var closeFadeDuration: Double = 0.01
  /// A device name from SDL's list, or nil for the default device.
  public var deviceName: String?
  /// The master limiter; nil turns it off (then only the master volume is applied).
  public var limiter: LimiterSettings? = LimiterSettings()
  /// The longest sound that is decoded whole, in seconds (0.1…3,600). Longer audio is refused
  /// with ``SoundError/Code/tooLong`` before it is decoded: that is what streaming is for.
  public var maximumSoundDuration: Double = 60
  /// The largest sound file read whole, in bytes (1 KiB…4 GiB; default 64 MiB): a sound named or
  /// read from a file is refused with ``SoundError/Code/tooLong`` before a byte of it is read
  /// when its file is larger, so a huge (or sparse) file cannot fill memory.
  public var maximumSoundFileSize: Int = 64 << 20
  /// Whether sounds are decoded in a child process (the default): a decoder that crashes, hangs
  /// or runs away with memory on hostile bytes then ends only that process, and the load throws
  /// ``SoundError/Code/decoderCrashed`` or ``SoundError/Code/decoderTimedOut``. Turning it off
  /// saves a `fork` per decoded sound (about a millisecond) for bytes you trust.
  public var isolatesDecoders = true
  /// How long one decode may take, in seconds (0.1…600), before it is stopped.
  public var decodeTimeout: Double = 10
  /// Bytes of decoded sounds the engine keeps for reuse (default 64 MiB). Past it, the least
  /// recently used sounds that no voice plays are forgotten (and decoded again if played again).
  public var soundCacheLimit: Int = 64 << 20

  public init() {}

  /// Checks every value; the first one out of range is named in the error.
  func validated() throws(AudioEngineError) -> AudioConfiguration {
    func check(_ valid: Bool, _ what: String) throws(AudioEngineError) {
      if !valid { throw .invalidConfiguration(what) }
    }
    try check((8_000...384_000).contains(sampleRate), "sampleRate \(sampleRate) is not in 8000...384000")
    try check((1...8).contains(channels), "channels \(channels) is not in 1...8")
    try check((64...16_384).contains(bufferFrames), "bufferFrames \(bufferFrames) is not in 64...16384")
    try check((1...4_096).contains(maximumChannels), "maximumChannels \(maximumChannels) is not in 1...4096")
    if let maximumAudibleVoices {
      try check(
        (1...4_096).contains(maximumAudibleVoices),
        "maximumAudibleVoices \(maximumAudibleVoices) is not in 1...4096")
    }
    try check(initialChannels >= 0, "initialChannels \(initialChannels) is negative")
    try check(
      declickDuration.isFinite && (0.0005...0.1).contains(declickDuration),
      "declickDuration \(declickDuration) is not in 0.0005...0.1 seconds")
    try check(
      closeFadeDuration.isFinite && (0...0.5).contains(closeFadeDuration),
      "closeFadeDuration \(closeFadeDuration) is not in 0...0.5 seconds")
    try check(
      maximumSoundDuration.isFinite && (0.1...3_600).contains(maximumSoundDuration),
      "maximumSoundDuration \(maximumSoundDuration) is not in 0.1...3600 seconds")
    try check(soundCacheLimit >= 0, "soundCacheLimit \(soundCacheLimit) is negative")
    try check(
      (1 << 10...4 << 30).contains(maximumSoundFileSize),
      "maximumSoundFileSize \(maximumSoundFileSize) is not in 1024...4294967296 bytes")
    try check(
      decodeTimeout.isFinite && (0.1...600).contains(decodeTimeout),
      "decodeTimeout \(decodeTimeout) is not in 0.1...600 seconds")
    if let limiter { try limiter.validate() }
    var result = self
    result.initialChannels = min(initialChannels, maximumChannels)
    return result
  }
}

/// The master limiter's settings: a look-ahead peak limiter on the final mix, transparent below
/// its ceiling.
///
/// ```swift
/// var limiter = LimiterSettings()
/// limiter.ceilingDecibels = -0.5
/// limiter.lookAhead = 0.003      // 3 ms of look-ahead: the output is 3 ms later
/// ```
public struct LimiterSettings: Sendable, Hashable {
  /// No output sample goes above this level, in dBFS (-40…0; default -1).
  public var ceilingDecibels: Double = -1
  /// How far ahead the limiter looks, in seconds (0…20 ms; default 2 ms). This is latency added
  /// to everything the engine plays.
  public var lookAhead: Double = 0.002
  /// How quickly the gain recovers after a peak: the time constant in seconds (1 ms…5 s;
  /// default 80 ms).
  public var release: Double = 0.08

  public init() {}

  package var ceiling: Float { Float(pow(10, ceilingDecibels / 20)) }

  func lookAheadFrames(at sampleRate: Int) -> Int {
    max(1, Int((lookAhead * Double(sampleRate)).rounded()) + 1)
  }

  package func releaseCoefficient(at sampleRate: Int) -> Double {
    1 - exp(-1 / (release * Double(sampleRate)))
  }

  package func validate() throws(AudioEngineError) {
    guard ceilingDecibels.isFinite, (-40...0).contains(ceilingDecibels) else {
      throw .invalidConfiguration("limiter.ceilingDecibels \(ceilingDecibels) is not in -40...0")
    }
    guard lookAhead.isFinite, (0...0.02).contains(lookAhead) else {
      throw .invalidConfiguration("limiter.lookAhead \(lookAhead) is not in 0...0.02 seconds")
    }
    guard release.isFinite, (0.001...5).contains(release) else {
      throw .invalidConfiguration("limiter.release \(release) is not in 0.001...5 seconds")
    }
  }
}

/// The format the device actually opened with, as SDL_mixer reports it.
public struct AudioDeviceFormat: Sendable, Hashable, CustomStringConvertible {
  /// SDL's audio driver (`"pulseaudio"`, `"dummy"`, `"disk"`, …).
  public var driver: String
  public var sampleRate: Int
  public var sampleFormat: SampleFormat
  public var channels: Int
  public var bufferFrames: Int

  public init(driver: String, sampleRate: Int, sampleFormat: SampleFormat, channels: Int, bufferFrames: Int) {
    self.driver = driver
    self.sampleRate = sampleRate
    self.sampleFormat = sampleFormat
    self.channels = channels
    self.bufferFrames = bufferFrames
  }

  /// The duration of one device buffer in seconds.
  public var bufferDuration: Double { Double(bufferFrames) / Double(sampleRate) }

  /// Bytes in one frame of the mix.
  public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }

  public var description: String {
    "\(driver): \(sampleRate) Hz, \(sampleFormat), \(channels) ch, \(bufferFrames)-frame buffer"
  }
}
