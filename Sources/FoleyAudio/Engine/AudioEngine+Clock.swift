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

  package func play(
    _ sound: Sound, volume: Double, schedule: ScheduledStart
  ) -> Voice {
    core.requestPlay(.sound(sound), volume: volume, pan: 0, groupVolume: 1, schedule: schedule)
  }
}
