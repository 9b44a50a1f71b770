import FoleyCore
import Logging

extension Double {
  /// The value limited to `range`; `fallback` for NaN and ±infinity: how every number a game
  /// hands the engine is taken. A finite value out of range is clamped, as a volume of 2 plays at
  /// 1; a non-finite one is refused, since no range has a meaningful end for it (an infinite
  /// volume clamped to 1 would be a loud guess).
  ///
  /// With `member` (the public name the game set, `"Voice.volume"`), a refused value is also
  /// logged, once per member in the process, so a game that computes a NaN learns which setter
  /// took it without a line per frame.
  package func clamped(
    to range: ClosedRange<Double>, or fallback: Double, member: StaticString? = nil
  ) -> Double {
    guard isFinite else {
      if let member { RefusedNumbers.note(member, value: self) }
      return fallback
    }
    return Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
  }
}

/// The members that have refused a non-finite number, each warned about once per process.
enum RefusedNumbers {
  private static let warned = Locked<Set<String>>([])
  private static let logger = Logger.foley("foley.input")

  /// Records that `member` refused `value`; the first time for that member, logs a warning.
  static func note(_ member: StaticString, value: Double) {
    let name = "\(member)"
    let first = warned.withLock { $0.insert(name).inserted }
    guard first else { return }
    logger.warning(
      "\(name): \(value) is refused: not a finite number, or out of all reason (said once per member)"
    )
  }
}
