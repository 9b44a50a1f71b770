import Foundation
import Synchronization

/// A compressor on a bus, keyed by its own signal or by another bus's (a sidechain): music that
/// dips under dialogue by the dialogue's own level, not by a flag.
///
/// Feed-forward, with a peak detector: above `threshold` dB the level is brought down by
/// (1 - 1/`ratio`) of the excess, at most `range` dB, reaching it with the `attack` time
/// constant and letting go with the `release` one; `makeUpGain` dB is added after.
///
/// ```swift
/// let duck = CompressorEffect(threshold: -40, ratio: 8, range: 12, sidechain: .speech)
/// try engine.bus(.music).setEffects([duck])   // the music drops 12 dB while anyone speaks
/// ```
public final class CompressorEffect: AudioEffect, @unchecked Sendable {
  public let threshold: Double
  public let ratio: Double
  public let attack: Double
  public let release: Double
  public let range: Double
  public let makeUpGain: Double
  /// The bus whose signal drives the compressor (nil: its own bus).
  public let sidechain: SoundCategory?
  /// The sidechain's bus in the mixer, set under the audio lock when the effect is put on a bus
  /// (-1: its own signal).
  var sidechainBus = -1
  override var keyBus: Int { sidechainBus }
  private let reduction = Atomic<UInt32>(Float(0).bitPattern)
  /// The most it may take while its bus is critical (dB; infinity otherwise), set from the game
  /// thread, read by the mixing thread.
  private let criticalLimit = Atomic<UInt32>(Float.infinity.bitPattern)
  private var attackCoefficient: Float = 0
  private var releaseCoefficient: Float = 0
  private var smoothed: Float = 0

  /// - Parameters:
  ///   - threshold: dBFS above which the signal is compressed (-80…0).
  ///   - ratio: 1…100 (100 is a limiter).
  ///   - attack: seconds (0.0001…1).
  ///   - release: seconds (0.001…5).
  ///   - range: the most reduction in dB (0…80).
  ///   - makeUpGain: dB added after (-24…24).
  ///   - sidechain: the category whose bus keys it; nil: its own.
  /// Out-of-range numbers are clamped; NaN takes the default.
  public init(
    threshold: Double = -24, ratio: Double = 4, attack: Double = 0.01, release: Double = 0.25,
    range: Double = 60,
    makeUpGain: Double = 0, sidechain: SoundCategory? = nil
  ) {
    self.threshold = threshold.clamped(to: -80...0, or: -24)
    self.ratio = ratio.clamped(to: 1...100, or: 4)
    self.attack = attack.clamped(to: 0.0001...1, or: 0.01)
    self.release = release.clamped(to: 0.001...5, or: 0.25)
    self.range = range.clamped(to: 0...80, or: 60)
    self.makeUpGain = makeUpGain.clamped(to: -24...24, or: 0)
    self.sidechain = sidechain
    super.init()
  }

  /// Caps the reduction at `decibels` while the compressor's bus is critical (nil: no cap).
  func limitForCriticalBus(_ decibels: Double?) {
    criticalLimit.store(Float(decibels ?? .infinity).bitPattern, ordering: .relaxed)
  }

  /// The gain reduction in the last buffer, in dB (0 or more).
  public var gainReduction: Double { Double(Float(bitPattern: reduction.load(ordering: .relaxed))) }

  package override func prepare() {
    attackCoefficient = Float(exp(-1 / (attack * Double(sampleRate))))
    releaseCoefficient = Float(exp(-1 / (release * Double(sampleRate))))
  }

  package override func process(
    _ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int, hasInput: Bool,
    sidechain key: UnsafePointer<Float>?, clock: UInt64
  ) -> Bool {
    let slope = Float(1 - 1 / ratio)
    // On a critical bus no sidechain takes more than the critical floor allows.
    let limit = min(Float(range), Float(bitPattern: criticalLimit.load(ordering: .relaxed)))
    let floor = Float(threshold)
    let makeUp = Float(pow(10, makeUpGain / 20))
    // Keyed by another bus that is silent in this block: nothing to compress against.
    let source = key ?? UnsafePointer(samples)
    let keyed = key != nil || (sidechainBus < 0 && hasInput)
    for frame in 0..<frames {
      var peak: Float = 0
      if keyed {
        for channel in 0..<channels { peak = max(peak, abs(source[frame * channels + channel])) }
      }
      let level = 20 * log10(max(peak, 1e-9))
      let wanted = min(limit, max(0, (level - floor) * slope))
      let coefficient = wanted > smoothed ? attackCoefficient : releaseCoefficient
      smoothed = wanted + (smoothed - wanted) * coefficient
      let gain = exp2(-smoothed * 0.166_096_4) * makeUp  // 10^(-dB/20)
      for channel in 0..<channels { samples[frame * channels + channel] *= gain }
    }
    reduction.store(smoothed.bitPattern, ordering: .relaxed)
    return false  // no tail of its own
  }
}
