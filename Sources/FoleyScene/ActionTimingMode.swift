/// How an action's progress is distributed over its duration, as in SpriteKit.
///
/// ```swift
/// var slide = Action.move(to: Point(x: 300, y: 0), duration: 0.5)
/// slide.timingMode = .easeInEaseOut
/// ```
public enum ActionTimingMode: Sendable, Hashable, CaseIterable {
  /// Progress is proportional to elapsed time.
  case linear
  /// Starts slowly, then speeds up (quadratic).
  case easeIn
  /// Starts quickly, then slows down (quadratic).
  case easeOut
  /// Slow at both ends, fastest in the middle (piecewise quadratic).
  case easeInEaseOut

  /// Maps linear progress in 0...1 to eased progress in 0...1. Every curve is monotonic and
  /// fixes both endpoints, so an eased action still starts and ends exactly where a linear one does.
  public func apply(_ progress: Double) -> Double {
    switch self {
    case .linear:
      return progress
    case .easeIn:
      return progress * progress
    case .easeOut:
      let remaining = 1 - progress
      return 1 - remaining * remaining
    case .easeInEaseOut:
      if progress < 0.5 { return 2 * progress * progress }
      let remaining = 1 - progress
      return 1 - 2 * remaining * remaining
    }
  }

  /// The mode that plays this curve backwards, used by `Action.reversed()`.
  public var reversed: ActionTimingMode {
    switch self {
    case .linear: .linear
    case .easeIn: .easeOut
    case .easeOut: .easeIn
    case .easeInEaseOut: .easeInEaseOut
    }
  }
}

/// A custom timing curve: maps linear progress in 0...1 to the progress to apply.
/// It should return 0 for 0 and 1 for 1 so the action ends where it should.
public typealias ActionTimingFunction = @Sendable (Double) -> Double
