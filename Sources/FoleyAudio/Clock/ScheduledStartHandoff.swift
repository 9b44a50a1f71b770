import Synchronization

/// A voice's scheduled start, handed from the thread that schedules it (the game's, or the
/// music's filler) to the audio queue, which takes it when it starts the voice.
///
/// One atomic word, not a lock: most plays have no schedule, and each still set and took it,
/// two holds of a lock per trigger; and a lock made a second allocation (the lock and its
/// mutex, besides the voice) for every voice made. A schedule, when there is one, is boxed.
package struct ScheduledStartHandoff: ~Copyable {
  /// The boxed schedule, retained, as a bit pattern; 0 when there is none.
  private let boxed = Atomic<UInt>(0)

  private final class Box: Sendable {
    let schedule: ScheduledStart
    init(_ schedule: ScheduledStart) { self.schedule = schedule }
  }

  package init() {}

  deinit { release(boxed.load(ordering: .acquiring)) }

  /// Replaces the schedule (nil: none).
  package func set(_ schedule: ScheduledStart?) {
    let new = schedule.map { UInt(bitPattern: Unmanaged.passRetained(Box($0)).toOpaque()) } ?? 0
    // A voice without a schedule, as most are, is left as it is: no write to share.
    if new == 0, boxed.load(ordering: .relaxed) == 0 { return }
    release(boxed.exchange(new, ordering: .acquiringAndReleasing))
  }

  /// The frame the schedule starts on, left in place; nil when there is none. Read on the queue,
  /// the one place a schedule is taken (the game sets it once, before the voice's request).
  package var frame: UInt64? {
    guard let pointer = UnsafeRawPointer(bitPattern: boxed.load(ordering: .acquiring)) else { return nil }
    return Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue().schedule.frame
  }

  /// Whether the schedule joins late at the sample it would have reached (false when there is
  /// none). Read on the queue, as ``frame`` is.
  package var joinsLate: Bool {
    guard let pointer = UnsafeRawPointer(bitPattern: boxed.load(ordering: .acquiring)) else { return false }
    return Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue().schedule.joinsLate
  }

  /// The schedule, taken: the next take finds none.
  package func take() -> ScheduledStart? {
    guard boxed.load(ordering: .relaxed) != 0 else { return nil }
    let old = boxed.exchange(0, ordering: .acquiringAndReleasing)
    guard let pointer = UnsafeRawPointer(bitPattern: old) else { return nil }
    return Unmanaged<Box>.fromOpaque(pointer).takeRetainedValue().schedule
  }

  private func release(_ bits: UInt) {
    guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return }
    Unmanaged<Box>.fromOpaque(pointer).release()
  }
}
