import Foundation

/// Shared rules for the time kept by running actions.
enum ActionClock {
  /// Steps are added in floating point, so ten steps of 0.1 s can total 0.9999999999999999 s. An
  /// action counts as finished when it is within this much of its end, so steps that add up to a
  /// duration on paper finish it in practice. One nanosecond is far below any frame.
  static let tolerance: TimeInterval = 1e-9

  /// Whether `elapsed` has reached `duration`, allowing for rounding.
  static func hasReached(_ elapsed: TimeInterval, _ duration: TimeInterval) -> Bool {
    elapsed >= duration - tolerance
  }

  /// The time past `duration`, never negative.
  static func leftover(_ elapsed: TimeInterval, _ duration: TimeInterval) -> TimeInterval {
    max(0, elapsed - duration)
  }
}
