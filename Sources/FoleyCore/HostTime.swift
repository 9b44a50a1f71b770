/// An instant on the host's monotonic clock, in nanoseconds: the clock SDL stamps its events
/// with (`CLOCK_MONOTONIC_RAW` on Linux, which no time adjustment slews), so an input event, the
/// audio clock and the game's own timing can be compared to the microsecond.
///
/// ```swift
/// let pressed = HostTime.now
/// let heard = engine.heardFrame(at: pressed)   // the output frame the player heard then
/// ```
public struct HostTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  /// Nanoseconds on the host's monotonic clock (its origin is the system's, not the game's).
  public var nanoseconds: UInt64

  public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

  /// The instant now. Read through the C library's `clock_gettime`, which Linux answers from the
  /// vDSO without entering the kernel: the mixing thread reads it once a buffer.
  @inlinable
  public static var now: HostTime {
    var time = timespec()
    #if os(Linux)
      clock_gettime(CLOCK_MONOTONIC_RAW, &time)
    #else
      clock_gettime(CLOCK_MONOTONIC, &time)
    #endif
    return HostTime(nanoseconds: UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec))
  }

  public static func < (lhs: HostTime, rhs: HostTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

  /// The instant `seconds` later (earlier when negative; held within the clock's range).
  public static func + (lhs: HostTime, seconds: Double) -> HostTime {
    guard seconds.isFinite else { return lhs }
    let shifted = Double(lhs.nanoseconds) + seconds * 1e9
    return HostTime(nanoseconds: shifted <= 0 ? 0 : shifted >= 0x1p64 ? .max : UInt64(shifted))
  }

  /// Seconds from `rhs` to `lhs` (negative when `lhs` is earlier).
  public static func - (lhs: HostTime, rhs: HostTime) -> Double {
    lhs >= rhs
      ? Double(lhs.nanoseconds - rhs.nanoseconds) / 1e9 : -Double(rhs.nanoseconds - lhs.nanoseconds) / 1e9
  }

  public var description: String { "host \(Double(nanoseconds) / 1e9) s" }
}
