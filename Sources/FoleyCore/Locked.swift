/// A value behind a `pthread_mutex_t`: the lock Foley uses for state shared between threads.
///
/// Why not `Synchronization.Mutex`: on Linux it is built on futexes that ThreadSanitizer does not
/// model, so every access inside `withLock` was reported as a race once the lock was contended
/// (22 reports across the suite, and on a 15-line correct program). With a lock TSan understands,
/// CI's sanitizer run reports only real races. The cost is the same order (an uncontended
/// `pthread_mutex_lock` is a few tens of nanoseconds).
///
/// ```swift
/// let pending = Locked<[Int]>([])
/// pending.withLock { $0.append(1) }
/// let count = pending.withLock { $0.count }
/// ```
///
/// Sendable when its value is: the lock makes access exclusive, not a non-Sendable value safe to
/// hand to another thread.
@usableFromInline package final class Locked<Value> {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  // Only touched inside `withLock`, under the mutex (which cannot be taken twice), so the
  // runtime's exclusivity check would only repeat what the lock already guarantees.
  @usableFromInline @exclusivity(unchecked) var value: Value

  package init(_ value: Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    self.value = value
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value, holding the lock. Inlined, so a caller in another module runs it
  /// specialized: unspecialized (generic over its result), each call spent many times the lock's
  /// own cost on type metadata, twice per trigger.
  @inlinable package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock()
    defer { unlock() }
    return try body(&value)
  }

  // Not inlined themselves: the C library is imported internally.
  @usableFromInline func lock() { pthread_mutex_lock(mutex) }
  @usableFromInline func unlock() { pthread_mutex_unlock(mutex) }
}

/// Safe: `value` is read and written only inside `withLock`, with the mutex held, and the value
/// itself may cross threads.
extension Locked: @unchecked Sendable where Value: Sendable {}
