import Foundation

/// The engine's clock: frames of output, to the sample.
extension AudioEngine {
  /// The next frame the mixer will produce: every frame before it has been mixed. Frame 0 is the
  /// device's first frame, every run; a frame is heard as ``heardFrame(of:)`` of it, about
  /// ``outputLatency`` after it is mixed.
  public var audioFrame: AudioFrame {
    AudioFrame(Int(truncatingIfNeeded: core.mixer.framesMixed.load(ordering: .acquiring)))
  }

  /// How many frames of output last `seconds` at the device's rate (rounded to the nearest).
  public func frames(forSeconds seconds: Double) -> Int {
    guard seconds.isFinite else { return 0 }
    // Held within ±2^62 frames in Double first: 1e308 seconds must not trap.
    let frames = (seconds * Double(deviceFormat.sampleRate)).rounded()
    // A finite time past the range overflows to infinity here: saturated, not refused.
    return Int(Swift.min(Swift.max(frames, -0x1p62), 0x1p62))
  }

  /// How long a frame takes from the mixer to the listener's ears, as far as Foley and SDL can
  /// tell. The same for the engine's whole life on one device.
  ///
  /// ```swift
  /// let latency = engine.outputLatency
  /// hud.text = String(format: "output latency %.1f ms", latency.seconds * 1_000)
  /// ```
  public var outputLatency: OutputLatency {
    let format = deviceFormat
    return OutputLatency(
      lookAheadFrames: core.master.latencyFrames, bufferFrames: format.bufferFrames,
      deviceQueueFrames: OutputLatency.deviceQueueFrames(
        driver: format.driver, bufferFrames: format.bufferFrames),
      sampleRate: format.sampleRate)
  }

  /// The frame of the device's output that carries mix frame `frame`: the master limiter's
  /// look-ahead delays everything by ``OutputLatency/lookAheadFrames``. The device's output is
  /// counted from its first frame, as the engine's clock is, so a sound started on `frame` begins
  /// on exactly this frame of what the device plays (of a disk driver's file, to the sample),
  /// every run.
  ///
  /// ```swift
  /// let beat = engine.music.frame(of: .nextBeat)!
  /// let heard = engine.heardFrame(of: beat)    // where the click is in the output
  /// ```
  public func heardFrame(of frame: AudioFrame) -> AudioFrame {
    frame + core.master.latencyFrames
  }

  /// The frame of the device's output the player was hearing when they made an input SDL stamped
  /// at host instant `time` (past, now or to come), from the smoothed instants the device took its
  /// buffers and its ``OutputLatency/deviceQueueFrames``, less the calibrated delays of the sound
  /// and the input (``AudioSettings/latencyOffsets``); nil before the first buffer, or with no
  /// device. With ``heardFrame(of:)`` it says what the player heard when they pressed a key:
  ///
  /// ```swift
  /// for polled in pump.poll() {
  ///   guard case .keyDown = polled.event, let heard = engine.heardFrame(at: polled.time) else { continue }
  ///   let offBy = heard - engine.heardFrame(of: beatFrame)   // frames early (<0) or late
  /// }
  /// ```
  public func heardFrame(at time: HostTime) -> AudioFrame? {
    guard let estimate = core.mixer.timing.estimate(), estimate.perFrame > 0 else { return nil }
    let queued = Double(outputLatency.deviceQueueFrames)
    let offsets = core.buses.withLock { $0.latencyOffsets }
    let late = (offsets.audio + offsets.input) * 1e9
    let frames = (Double(time.nanoseconds) - late - estimate.nanoseconds) / estimate.perFrame - queued
    let heard = Double(estimate.frame) + frames
    return AudioFrame(heard.isFinite ? Int(max(0, min(heard, 0x1p62)).rounded(.down)) : 0)
  }

  /// The host instant the device's output frame `frame` reaches the player (past, now or to come),
  /// with the sound's calibrated delay (``LatencyOffsets/audio``): draw a flash at it and the
  /// flash and the click come together. Without input delay, the inverse of ``heardFrame(at:)``;
  /// nil before the first buffer, or with no device.
  ///
  /// ```swift
  /// let when = engine.hostTime(whenHeard: engine.heardFrame(of: beatFrame))!
  /// flash.show(at: when)   // the flash and the click together
  /// ```
  public func hostTime(whenHeard frame: AudioFrame) -> HostTime? {
    guard let estimate = core.mixer.timing.estimate(), estimate.perFrame > 0 else { return nil }
    let frames = Double(frame.index) - Double(estimate.frame) + Double(outputLatency.deviceQueueFrames)
    let audio = core.buses.withLock { $0.latencyOffsets.audio }
    let nanoseconds = estimate.nanoseconds + frames * estimate.perFrame + audio * 1e9
    return HostTime(nanoseconds: nanoseconds <= 0 ? 0 : nanoseconds >= 0x1p64 ? .max : UInt64(nanoseconds))
  }

  package func play(
    _ sound: Sound, volume: Double, schedule: ScheduledStart
  ) -> Voice {
    core.requestPlay(.sound(sound), volume: volume, pan: 0, groupVolume: 1, schedule: schedule)
  }
}

/// What stands between mixing a frame and hearing it, in frames of the device's rate.
///
/// A sound asked for now waits for the next buffer the mixer starts (at most
/// ``bufferFrames``), is delayed by the master limiter's look-ahead (``lookAheadFrames``), and
/// then waits in the device's queue (``deviceQueueFrames``) before it is played. SDL 2 does not
/// report the hardware's own delay (the DAC, a Bluetooth link, a sound server's extra
/// buffering); that is what a player's calibration measures.
///
/// ```swift
/// let latency = engine.outputLatency
/// print(latency.frames, latency.seconds)   // 512 + 96 frames on the disk driver at 48 kHz
/// ```
public struct OutputLatency: Sendable, Hashable, Codable {
  /// Frames the master limiter's look-ahead delays the output by (0 without a limiter).
  public var lookAheadFrames: Int
  /// Frames in one of the mixer's buffers: the longest a request waits for the next.
  public var bufferFrames: Int
  /// Frames the device holds before it plays the buffer it was just given: none on SDL's disk and
  /// dummy drivers (a buffer is written as it is mixed), one buffer on ALSA (SDL asks for two
  /// periods, one playing while the next is mixed), PulseAudio (a target length of one buffer),
  /// PipeWire (a node latency of one buffer) and the other drivers.
  public var deviceQueueFrames: Int
  /// The device's sample rate.
  public var sampleRate: Int

  public init(lookAheadFrames: Int, bufferFrames: Int, deviceQueueFrames: Int, sampleRate: Int) {
    self.lookAheadFrames = lookAheadFrames
    self.bufferFrames = bufferFrames
    self.deviceQueueFrames = deviceQueueFrames
    self.sampleRate = sampleRate
  }

  /// All three, in frames: the most a sound asked for now takes to be heard.
  public var frames: Int { lookAheadFrames + bufferFrames + deviceQueueFrames }
  /// ``frames`` in seconds.
  public var seconds: Double { Double(frames) / Double(max(1, sampleRate)) }

  /// The frames SDL's driver `driver` holds after a buffer is handed to it.
  static func deviceQueueFrames(driver: String, bufferFrames: Int) -> Int {
    ["disk", "dummy", "none"].contains(driver) ? 0 : bufferFrames
  }
}
