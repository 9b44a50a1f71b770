/// Halts and pauses waiting for their channel's ramp to reach silence.
///
/// The gain stage wakes the queue when a ramp to zero arrives, so each operation normally goes
/// ahead within a buffer. Otherwise it goes ahead once its deadline has passed and the mix has
/// reached its end frame (a mix running behind the clock, on a loaded machine, still plays a
/// fade or a release to its end), or, for a channel the mixer stopped running, once the deadline
/// is ``stallGrace`` behind (the queue asks the backend for one wake at the earliest deadline, and
/// none while nothing waits).
struct ReleaseScheduler {
  enum Kind { case halt, pause }

  struct Operation {
    let channel: Int
    let kind: Kind
    let deadline: UInt64
    /// The mix frame by which the channel's ramp has been mixed to its end.
    let endFrame: UInt64
  }

  /// How long past its deadline an operation waits for a mix that has stopped (nanoseconds).
  static let stallGrace: UInt64 = 2_000_000_000

  private(set) var waiting: [Operation] = []
  /// Whether an operation waits on each channel (by channel number; false beyond its end): a
  /// release, a cut and a finished channel each ask about one channel, mostly one with nothing
  /// waiting, which a search of the list paid for in full at every stolen trigger.
  private var isWaiting: [Bool] = []

  var isEmpty: Bool { waiting.isEmpty }

  private func hasWaiting(_ channel: Int) -> Bool { channel < isWaiting.count && isWaiting[channel] }

  mutating func schedule(_ kind: Kind, on channel: Int, deadline: UInt64, endFrame: UInt64) {
    cancel(on: channel)
    if channel >= isWaiting.count { isWaiting += repeatElement(false, count: channel + 1 - isWaiting.count) }
    isWaiting[channel] = true
    waiting.append(Operation(channel: channel, kind: kind, deadline: deadline, endFrame: endFrame))
  }

  /// Drops what waits on `channel`; returns it.
  @discardableResult
  mutating func cancel(on channel: Int) -> Operation? {
    guard hasWaiting(channel) else { return nil }
    isWaiting[channel] = false
    for index in waiting.indices where waiting[index].channel == channel { return waiting.remove(at: index) }
    return nil
  }

  func hasPendingPause(on channel: Int) -> Bool {
    hasWaiting(channel) && waiting.contains { $0.channel == channel && $0.kind == .pause }
  }

  /// Removes and returns the operations whose ramp is silent, whose deadline has passed with the
  /// mix at `mixed` past their end frame, or whose deadline is ``stallGrace`` behind.
  /// The last list ``takeDue(now:isSilent:)`` returned, kept so the next one fills the same
  /// storage (the queue runs this every mix buffer; it allocated a list each time).
  private var dueStorage: [Operation] = []

  mutating func takeDue(now: UInt64, mixed: UInt64, isSilent: (Int) -> Bool) -> [Operation] {
    var due: [Operation] = []
    swap(&due, &dueStorage)
    due.removeAll(keepingCapacity: true)
    waiting.removeAll { operation in
      guard
        isSilent(operation.channel)
          || (now >= operation.deadline
            && (mixed >= operation.endFrame || now >= operation.deadline &+ Self.stallGrace))
      else { return false }
      due.append(operation)
      return true
    }
    for operation in due { isWaiting[operation.channel] = false }
    dueStorage = due
    return due
  }

  var earliestDeadline: UInt64? { waiting.lazy.map(\.deadline).min() }

  /// The channel that has been ramping out longest: cut first when no channel is free.
  var longestReleasing: Int? { waiting.first { $0.kind == .halt }?.channel }

  mutating func removeAll() {
    waiting.removeAll()
    isWaiting.removeAll()
  }
}
