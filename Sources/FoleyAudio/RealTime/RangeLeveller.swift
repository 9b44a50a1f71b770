import Foundation
import Synchronization

/// How much of the game's loudness range the player hears: all of it, or less of it for quiet
/// listening. A range mode turns loud passages down and quiet ones up on the master, before the
/// limiter, so explosions do not wake the house and whispers stay heard.
///
/// ```swift
/// engine.dynamicRange = .night
/// ```
public enum DynamicRange: String, Sendable, Hashable, Codable, CaseIterable {
  /// The mix as made: nothing levelled.
  case full
  /// For headphones or a quiet room: loud passages 2:1 above -24 dBFS, quiet ones lifted up to
  /// 9 dB.
  case headphones
  /// For night listening: 4:1 either side of -24 dBFS, quiet passages lifted up to 12 dB, loud ones
  /// turned down up to 24 dB. A programme swinging between -40 and -10 dBFS swings by about 8 dB.
  case night

  /// The level curve: the level it levels towards (dBFS, peak), the ratio either side, the most it
  /// lifts and the most it cuts (dB).
  var curve: (threshold: Float, ratio: Float, maximumBoost: Float, maximumCut: Float) {
    switch self {
    case .full: (0, 1, 0, 0)
    case .headphones: (-24, 2, 9, 12)
    case .night: (-24, 4, 12, 24)
    }
  }
}

/// A wideband leveller on the master: a stereo-linked peak detector that rises at once and falls
/// at ``releaseDecibelsPerSecond``, and a static curve that pulls the detected level towards a
/// threshold by a ratio, within a most-lift and a most-cut. Because the detector rises with the
/// signal itself, the output level is a rising function of the input level: a swell comes out
/// as a smaller swell, never as an overshoot, and the gain moves only as fast as the signal's
/// own envelope. Below -60 dBFS the lift fades out (to none at -70), so silence and noise floors
/// are not pulled up.
///
/// Switching modes ramps: the curve's effect fades out over 50 ms, the new curve is taken, and
/// its effect fades in.
///
/// Mixing thread only, but for the target mode, an atomic the game sets. Allocates nothing.
final class RangeLeveller: @unchecked Sendable {
  private let target = Atomic<UInt8>(0)
  private var active = DynamicRange.full
  /// How much of the active curve applies, 0…1, ramped by ``amountStep`` a frame.
  private var amount: Float = 0
  private let amountStep: Float
  /// The detected level, in dBFS.
  private var level: Float = -120
  private let releasePerFrame: Float
  private let channels: Int

  static let releaseDecibelsPerSecond: Float = 12
  static let liftFloor: Float = -70
  static let liftFull: Float = -60

  init(channels: Int, sampleRate: Int) {
    self.channels = channels
    amountStep = 1 / (0.05 * Float(sampleRate))
    releasePerFrame = Self.releaseDecibelsPerSecond / Float(sampleRate)
  }

  func setMode(_ mode: DynamicRange) {
    target.store(UInt8(DynamicRange.allCases.firstIndex(of: mode)!), ordering: .relaxed)
  }

  var mode: DynamicRange { DynamicRange.allCases[Int(target.load(ordering: .relaxed))] }

  /// Whether it changes nothing now and will not until the mode changes: full, fully faded out.
  var isIdle: Bool { amount == 0 && mode == .full }

  /// Whether the detector has fallen to where the curve lifts nothing (silence may skip it).
  var hasSettled: Bool { isIdle || level <= Self.liftFloor }

  /// Levels `frames` interleaved frames in place.
  func process(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    let wanted = mode
    guard amount != 0 || wanted != .full || active != .full else { return }
    if amount == 0 { active = wanted }
    var curve = active.curve
    var amount = self.amount
    var level = self.level
    for frame in 0..<frames {
      let rises = active == wanted && wanted != .full
      amount += rises ? min(amountStep, 1 - amount) : -min(amountStep, amount)
      if amount == 0, active != wanted {
        // Faded out: the new curve is taken, and fades in from the next frame.
        active = wanted
        curve = active.curve
      }
      var peak: Float = 0
      for channel in 0..<channels { peak = max(peak, abs(samples[frame * channels + channel])) }
      let decibels = peak > 1e-6 ? 20 * log10(peak) : -120
      level = max(decibels, level - releasePerFrame)
      var gain = min(
        curve.maximumBoost, max(-curve.maximumCut, (curve.threshold - level) * (1 - 1 / curve.ratio)))
      if gain > 0, level < Self.liftFull {
        gain *= max(0, (level - Self.liftFloor) / (Self.liftFull - Self.liftFloor))
      }
      guard amount > 0, gain != 0 else { continue }
      let linear = pow(10, gain * amount / 20)
      for channel in 0..<channels { samples[frame * channels + channel] *= linear }
    }
    self.amount = amount
    self.level = level
  }
}
