import Foundation

/// A source that moves a voice's volume while it plays, sample by sample on the mixing thread:
/// a game parameter through a curve, a low-frequency oscillator, an envelope from the voice's
/// start to its stop, or another bus's level. A voice takes up to four
/// (``Voice/setModulators(_:)``); their gains multiply, on top of the voice's own volume and
/// tweens.
///
/// ```swift
/// try engine.defineParameter("speed", range: 0...1, default: 0)
/// let hum = engine.play(humSound, loops: -1)
/// try hum.setModulators([
///   .parameter("speed", curve: ParameterCurve([(0, -30), (1, 0)])),   // louder as it speeds up
///   .lfo(.sine, rateHz: 4, depthDecibels: 6),                          // and a 4 Hz tremolo
/// ])
/// try engine.setParameter("speed", to: 1, tween: Tween(duration: 4))
/// ```
public enum Modulator: Sendable, Hashable, CustomStringConvertible {
  /// The volume, in decibels, follows a game parameter through `curve`.
  case parameter(String, curve: ParameterCurve)
  /// The volume swings between its level and `depthDecibels` below it, `rateHz` times a second.
  case lfo(LFO)
  /// The volume rises at the start, sustains and fades at the stop (``Envelope``).
  case envelope(Envelope)
  /// The volume follows another bus's level through a curve (``Follower``).
  case follower(Follower)

  /// An envelope: ``Envelope/init(attack:hold:decay:sustainDecibels:release:)``.
  public static func envelope(
    attack: Double = 0, hold: Double = 0, decay: Double = 0, sustainDecibels: Double = 0,
    release: Double = 0
  ) -> Modulator {
    .envelope(
      Envelope(attack: attack, hold: hold, decay: decay, sustainDecibels: sustainDecibels, release: release))
  }

  /// A follower of `bus`'s level: ``Follower/init(of:curve:attack:release:)``.
  public static func follower(
    of bus: SoundCategory, curve: ParameterCurve, attack: Double = 0.01, release: Double = 0.25
  ) -> Modulator {
    .follower(Follower(of: bus, curve: curve, attack: attack, release: release))
  }

  /// An oscillator of `wave` at `rateHz` (0.01…50 Hz) and `depthDecibels` (0…60 dB).
  public static func lfo(_ wave: LFO.Wave, rateHz: Double, depthDecibels: Double) -> Modulator {
    .lfo(LFO(wave, rateHz: rateHz, depthDecibels: depthDecibels))
  }

  public var description: String {
    switch self {
    case .parameter(let name, let curve): "parameter \"\(name)\" through \(curve)"
    case .lfo(let lfo): "\(lfo)"
    case .envelope(let envelope): "\(envelope)"
    case .follower(let follower): "\(follower)"
    }
  }
}

/// A low-frequency oscillator on a voice's volume: the volume swings between its level and
/// ``depthDecibels`` below it, ``rateHz`` times a second, from the voice's start.
///
/// ```swift
/// try voice.setModulators([.lfo(LFO(.triangle, rateHz: 0.5, depthDecibels: 12))])
/// ```
public struct LFO: Sendable, Hashable, CustomStringConvertible {
  /// The oscillator's shape, each starting at the voice's level.
  public enum Wave: String, Sendable, Hashable, CaseIterable {
    /// A raised cosine: level, down to the depth at half a cycle, back up.
    case sine
    /// Straight lines down and back up.
    case triangle
    /// The level for half a cycle, the depth for the other (its edges de-clicked over 32 frames).
    case square
    /// A new random depth, 0 to ``LFO/depthDecibels``, held for each cycle.
    case sampleAndHold
  }

  public var wave: Wave
  /// Cycles a second, 0.01…50 (clamped; NaN is 1).
  public var rateHz: Double
  /// How far below its level the volume goes, 0…60 dB (clamped; NaN is 0).
  public var depthDecibels: Double

  public init(_ wave: Wave, rateHz: Double, depthDecibels: Double) {
    self.wave = wave
    self.rateHz = rateHz.clamped(to: 0.01...50, or: 1)
    self.depthDecibels = depthDecibels.clamped(to: 0...60, or: 0)
  }

  /// How far down the wave is at `phase` (0…1 of a cycle), 0 (the level) to 1 (the depth);
  /// `cycle` seeds sample-and-hold.
  @inline(__always)
  static func depthFraction(_ wave: UInt8, phase: Float, cycle: UInt64) -> Float {
    switch wave {
    case 0: return (1 - cosf(2 * Float.pi * phase)) / 2
    case 1: return 1 - abs(1 - 2 * phase)
    case 2: return phase < 0.5 ? 0 : 1
    default:
      // A hash of the cycle's number (SplitMix64): the same voice and cycle, the same depth.
      var z = cycle &+ 0x9E37_79B9_7F4A_7C15
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      z ^= z >> 31
      return Float(z >> 40) / Float(1 << 24)
    }
  }

  public var description: String { "LFO(\(wave), \(rateHz) Hz, \(depthDecibels) dB)" }
}
