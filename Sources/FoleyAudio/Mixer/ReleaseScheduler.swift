/// Halts and pauses waiting for their channel's ramp to reach silence.
///
/// The gain stage wakes the queue when a ramp to zero arrives, so each operation normally goes
/// ahead within a buffer; the deadline is the fallback for a channel the mixer stopped running
/// (the queue then asks the backend for one wake at the earliest deadline, and none while nothing
/// waits).
struct ReleaseScheduler {
  enum Kind { case halt, pause }

  struct Operation {
    let channel: Int
    let kind: Kind
    let deadline: UInt64
  }

  private(set) var waiting: [Operation] = []

  var isEmpty: Bool { waiting.isEmpty }

  mutating func schedule(_ kind: Kind, on channel: Int, deadline: UInt64) {
    waiting.removeAll { $0.channel == channel }
    waiting.append(Operation(channel: channel, kind: kind, deadline: deadline))
  }

  /// Drops what waits on `channel`; returns it.
  @discardableResult
  mutating func cancel(on channel: Int) -> Operation? {
    guard let index = waiting.firstIndex(where: { $0.channel == channel }) else { return nil }
    return waiting.remove(at: index)
  }

  func hasPendingPause(on channel: Int) -> Bool {
    waiting.contains { $0.channel == channel && $0.kind == .pause }
  }

  /// Removes and returns the operations whose ramp is silent or whose deadline has passed.
  /// The last list ``takeDue(now:isSilent:)`` returned, kept so the next one fills the same
  /// storage (the queue runs this every mix buffer; it allocated a list each time).
  private var dueStorage: [Operation] = []

  mutating func takeDue(now: UInt64, isSilent: (Int) -> Bool) -> [Operation] {
    var due: [Operation] = []
    swap(&due, &dueStorage)
    due.removeAll(keepingCapacity: true)
    waiting.removeAll { operation in
      guard isSilent(operation.channel) || now >= operation.deadline else { return false }
      due.append(operation)
      return true
    }
    dueStorage = due
    return due
  }

  var earliestDeadline: UInt64? { waiting.lazy.map(\.deadline).min() }

  /// The channel that has been ramping out longest: cut first when no channel is free.
  var longestReleasing: Int? { waiting.first { $0.kind == .halt }?.channel }

  mutating func removeAll() { waiting.removeAll() }
}
