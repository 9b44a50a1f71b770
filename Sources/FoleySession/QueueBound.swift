package import Dispatch

/// A value that belongs to one serial queue: every read and write checks, in debug builds, that it
/// runs on that queue, and traps at the faulty access if not (swift-nio's `NIOLoopBound`, for
/// Dispatch). Release builds skip the check, and the box is just the value behind a reference.
///
/// ```swift
/// final class Filler: @unchecked Sendable {  // safe: its mutable state is queue-bound
///   let queue = DispatchQueue(label: "filler")
///   private let streams: QueueBound<[Stream]>
///   init() { streams = QueueBound([], on: queue) }
///   func add(_ stream: Stream) { queue.async { self.streams.value.append(stream) } }
/// }
/// ```
///
/// Invariant behind `@unchecked Sendable`: the value is only touched on `queue`, which every
/// access checks in debug builds.
package final class QueueBound<Value>: @unchecked Sendable {
  /// The queue the value belongs to.
  package let queue: DispatchQueue
  private var storage: Value

  package init(_ value: Value, on queue: DispatchQueue) {
    self.queue = queue
    self.storage = value
  }

  /// The value; on `queue` only.
  package var value: Value {
    _read {
      checkQueue()
      yield storage
    }
    _modify {
      checkQueue()
      yield &storage
    }
  }

  @inline(__always)
  private func checkQueue() {
    #if DEBUG
      dispatchPrecondition(condition: .onQueue(queue))
    #endif
  }
}
