package import Dispatch

/// A value that belongs to one serial queue: every read and write checks, in debug builds, that it
/// runs on that queue, and traps at the faulty access if not (swift-nio's `NIOLoopBound`, for
/// Dispatch). In release builds the check and the queue compile away and the box is exactly the
/// value, stored inline: it costs nothing on the audio queue's hot path.
///
/// Keep it in a `var` of the class that owns the queue:
///
/// ```swift
/// final class Filler: @unchecked Sendable {  // safe: its mutable state is queue-bound
///   let queue = DispatchQueue(label: "filler")
///   private var streams: QueueBound<[Stream]>
///   init() { streams = QueueBound([], on: queue) }
///   func add(_ stream: Stream) { queue.async { self.streams.value.append(stream) } }
/// }
/// ```
///
/// Invariant behind `@unchecked Sendable`: the value is only touched on its queue, which every
/// access checks in debug builds.
@frozen
package struct QueueBound<Value>: @unchecked Sendable {
  #if DEBUG
    /// The queue the value belongs to.
    @usableFromInline let queue: DispatchQueue
  #endif
  // Inlinable, with its storage usable from inline code, so the owning module reads and writes it
  // as directly as a stored property of its own.
  @usableFromInline var storage: Value

  @inlinable
  package init(_ value: Value, on queue: DispatchQueue) {
    #if DEBUG
      self.queue = queue
    #endif
    self.storage = value
  }

  /// The value; on its queue only.
  @inlinable
  package var value: Value {
    _read {
      #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
      #endif
      yield storage
    }
    _modify {
      #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
      #endif
      yield &storage
    }
  }
}
