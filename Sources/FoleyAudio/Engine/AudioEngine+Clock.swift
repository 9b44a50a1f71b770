import Foundation

/// The engine's clock: frames of output, to the sample.
extension AudioEngine {
  /// The next frame the mixer will produce: every frame before it has been mixed. The device
  /// plays a frame about one buffer (``AudioDeviceFormat/bufferFrames``) after it is mixed.
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

  /// Plays `sound` starting exactly on `frame` of the output, mid-buffer if need be, and returns
  /// its voice at once (pending until the audio queue starts it, then playing and silent until
  /// its frame).
  ///
  /// A request that reaches the mixer after `frame` was mixed starts at once, late; it is
  /// counted in ``AudioStatistics/lateStarts`` and ``Voice/startFrame`` says where it started.
  /// Schedule a little ahead: a buffer or two (``AudioDeviceFormat/bufferFrames``) is enough.
  ///
  /// ```swift
  /// let downbeat = engine.audioFrame + engine.frames(forSeconds: 0.5)
  /// engine.play(kick, at: downbeat)
  /// engine.play(crash, at: downbeat, volume: 0.7)   // sample-together with the kick
  /// ```
  @discardableResult
  public func play(
    _ sound: Sound, at frame: AudioFrame, volume: Double = 1, pan: Double = 0, loops: Int = 0,
    rate: Double = 1
  ) -> Voice {
    core.requestPlay(
      .sound(sound), volume: volume, pan: pan, groupVolume: 1, loops: loops, rate: rate,
      schedule: ScheduledStart(frame: UInt64(frame.index)))
  }

  package func play(
    _ sound: Sound, volume: Double, schedule: ScheduledStart
  ) -> Voice {
    core.requestPlay(.sound(sound), volume: volume, pan: 0, groupVolume: 1, schedule: schedule)
  }
}
