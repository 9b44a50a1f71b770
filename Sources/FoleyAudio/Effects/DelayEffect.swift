import Foundation
import Synchronization

/// An echo on a bus: a delay line of up to 2 seconds with feedback and a low-pass in the loop
/// (each repeat darker than the last, as in a real space or a tape echo).
///
/// Its repeats ring on after the bus's input stops; once they are below -120 dBFS the line is
/// cleared and the bus stops running it.
///
/// ```swift
/// let canyon = DelayEffect(time: 0.35, feedback: 0.45, wet: 0.5, damping: 3_000)
/// try engine.bus("shouts").setEffects([canyon])
/// ```
public final class DelayEffect: AudioEffect, @unchecked Sendable {
  public static let maximumTime = 2.0
  /// Seconds between repeats (0.001…2).
  public let time: Double
  /// The share of each repeat fed back (0…0.95).
  public let feedback: Double
  /// The repeats' level (0…1).
  public let wet: Double
  /// The input passed through (0…1).
  public let dry: Double
  /// The low-pass in the loop, hertz (200…20,000).
  public let damping: Double
  private var line: UnsafeMutablePointer<Float>?
  private var length = 0
  private var delayFrames = 1
  private var index = 0
  private var quietFrames = 0
  private var filter: StateVariableFilter?

  /// Out-of-range numbers are clamped; NaN takes the default.
  public init(
    time: Double = 0.3, feedback: Double = 0.4, wet: Double = 0.5, dry: Double = 1, damping: Double = 5_000
  ) {
    self.time = time.clamped(to: 0.001...Self.maximumTime, or: 0.3)
    self.feedback = feedback.clamped(to: 0...0.95, or: 0.4)
    self.wet = wet.clamped(to: 0...1, or: 0.5)
    self.dry = dry.clamped(to: 0...1, or: 1)
    self.damping = damping.clamped(to: 200...20_000, or: 5_000)
    super.init()
  }

  deinit { line?.deallocate() }

  package override func prepare() {
    delayFrames = max(1, Int((time * Double(sampleRate)).rounded()))
    length = delayFrames * channels
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: length)
    buffer.initialize(repeating: 0, count: length)
    line = buffer
    let loop = StateVariableFilter(channels: channels, sampleRate: Double(sampleRate))
    loop.configure(.lowPass, frequency: damping, q: 0.5.squareRoot())
    filter = loop
  }

  package override func process(
    _ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int, hasInput: Bool,
    sidechain: UnsafePointer<Float>?, clock: UInt64
  ) -> Bool {
    guard let line, let filter else { return false }
    let (feedback, wet, dry) = (Float(self.feedback), Float(self.wet), Float(self.dry))
    var loudest: Float = 0
    for frame in 0..<frames {
      // The repeat that comes out now, darkened by the loop's filter, then the input plus it fed
      // back in its place.
      let cell = line + index * channels
      filter.process(cell, frames: 1)
      for channel in 0..<channels {
        let input = samples[frame * channels + channel]
        let repeated = cell[channel]
        loudest = max(loudest, abs(repeated))
        cell[channel] = input + repeated * feedback
        samples[frame * channels + channel] = input * dry + repeated * wet
      }
      index = index + 1 == delayFrames ? 0 : index + 1
    }
    if hasInput || loudest >= 1e-6 {
      quietFrames = 0
      return true
    }
    quietFrames += frames
    guard quietFrames > delayFrames else { return true }
    line.update(repeating: 0, count: length)
    filter.reset()
    quietFrames = 0
    return false
  }
}
