/// How a change is spread over its duration: the shape of a tween (``Easing/apply(_:)`` maps
/// linear progress to eased progress), and of a scene action's timing (`Action.timingMode`).
///
/// SpriteKit's four modes are here by their names, quadratic as in SpriteKit; the power curves
/// take any power from 1 to 8, and `smoothstep` is the cubic that starts and ends with zero slope.
/// Every curve fixes 0 and 1 and never goes backwards.
///
/// ```swift
/// voice.setVolume(0.25, tween: Tween(duration: 0.5, easing: .easeOut))
/// let steep = Easing.easeIn(power: 3)
/// print(steep.apply(0.5))  // 0.125
/// ```
public struct Easing: Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The curve's family.
  public enum Shape: UInt8, Sendable, Hashable {
    case linear
    /// Slow start: `p^power`.
    case easeIn
    /// Slow end: `1 - (1 - p)^power`.
    case easeOut
    /// Slow at both ends: each half a power curve.
    case easeInEaseOut
    /// `3p² - 2p³`: zero slope at both ends.
    case smoothstep
  }

  public let shape: Shape
  /// The power of the `easeIn`, `easeOut` and `easeInEaseOut` curves (1...8; 2 is SpriteKit's).
  public let power: Int

  /// The curve of `shape` with `power` (clamped to 1...8; the linear and smoothstep curves take
  /// none): how a tween's easing is carried to the mixing thread and back.
  package init(_ shape: Shape, power: Int) {
    self.shape = shape
    self.power = min(max(power, 1), 8)
  }

  /// Progress proportional to time.
  public static let linear = Easing(.linear, power: 1)
  /// Starts slowly, then speeds up (quadratic, as SpriteKit's).
  public static let easeIn = Easing(.easeIn, power: 2)
  /// Starts quickly, then slows down (quadratic).
  public static let easeOut = Easing(.easeOut, power: 2)
  /// Slow at both ends, fastest in the middle (piecewise quadratic).
  public static let easeInEaseOut = Easing(.easeInEaseOut, power: 2)
  /// Zero slope at both ends, smoother than `easeInEaseOut` in the middle.
  public static let smoothstep = Easing(.smoothstep, power: 1)

  /// SpriteKit's four, smoothstep, and one steeper curve of each power family.
  public static let allCases: [Easing] = [
    .linear, .easeIn, .easeOut, .easeInEaseOut, .smoothstep, .easeIn(power: 3), .easeOut(power: 4),
    .easeInEaseOut(power: 3),
  ]

  /// `p^power` (power clamped to 1...8).
  public static func easeIn(power: Int) -> Easing { Easing(.easeIn, power: power) }
  /// `1 - (1 - p)^power`.
  public static func easeOut(power: Int) -> Easing { Easing(.easeOut, power: power) }
  /// Each half a power curve, meeting at (0.5, 0.5).
  public static func easeInEaseOut(power: Int) -> Easing { Easing(.easeInEaseOut, power: power) }

  /// Maps linear progress (clamped to 0...1) to eased progress in 0...1.
  @inline(__always)
  public func apply(_ progress: Double) -> Double {
    let p = progress.isNaN ? 0 : min(max(progress, 0), 1)
    switch shape {
    case .linear: return p
    case .easeIn: return Self.raise(p, power)
    case .easeOut: return 1 - Self.raise(1 - p, power)
    case .easeInEaseOut:
      if p < 0.5 { return Self.raise(2 * p, power) / 2 }
      return 1 - Self.raise(2 * (1 - p), power) / 2
    case .smoothstep: return p * p * (3 - 2 * p)
    }
  }

  /// The curve that plays this one backwards (`Action.reversed()`).
  public var reversed: Easing {
    switch shape {
    case .easeIn: Easing(.easeOut, power: power)
    case .easeOut: Easing(.easeIn, power: power)
    case .linear, .easeInEaseOut, .smoothstep: self
    }
  }

  /// The easing a name in data stands for: `linear`, `easeIn`, `easeOut`, `easeInEaseOut` (each
  /// of power 2) or `smoothstep`; nil for any other.
  ///
  /// ```swift
  /// Easing(named: "easeOut")   // .easeOut
  /// ```
  public init?(named name: String) {
    guard let easing = Self.named[name] else { return nil }
    self = easing
  }

  /// The names ``init(named:)`` takes.
  public static let names = named.keys.sorted()

  private static let named: [String: Easing] = [
    "linear": .linear, "easeIn": .easeIn, "easeOut": .easeOut, "easeInEaseOut": .easeInEaseOut,
    "smoothstep": .smoothstep,
  ]

  public var description: String {
    switch shape {
    case .linear: "linear"
    case .smoothstep: "smoothstep"
    case .easeIn, .easeOut, .easeInEaseOut: power == 2 ? "\(shape)" : "\(shape)(power: \(power))"
    }
  }

  /// `value^power` by multiplication (no `pow`: the mixing thread evaluates curves per sample).
  @inline(__always)
  static func raise(_ value: Double, _ power: Int) -> Double {
    var result = value
    var remaining = power
    while remaining > 1 {
      result *= value
      remaining -= 1
    }
    return result
  }
}
