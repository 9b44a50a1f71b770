import Synchronization

/// How code that must not block (SDL's audio thread, SDL_mixer's channel-finished callback) tells
/// the audio queue that there is work: a channel finished, or a ramp reached silence.
///
/// `signal()` is one atomic exchange and, for the first signal since the queue last looked, one
/// call of `notify`, which the backend supplies: for SDL, merging data into a Dispatch user-data
/// source (lock-free, no allocation); for the embedded mixer, nothing (it services the queue
/// itself after each buffer). Signals coalesce, so a burst of finishes wakes the queue once.
package final class WakeSignal: Sendable {
  private let pending = Atomic<Bool>(false)
  private let notify: @Sendable () -> Void

  package init(notify: @escaping @Sendable () -> Void) {
    self.notify = notify
  }

  /// Safe from any thread, including SDL's audio thread.
  package func signal() {
    if !pending.exchange(true, ordering: .acquiringAndReleasing) { notify() }
  }

  /// Whether a signal is waiting for the queue.
  var isPending: Bool { pending.load(ordering: .acquiring) }

  /// Clears the signal; the queue calls this before it looks, so a signal raised while it works
  /// wakes it again.
  func takePending() -> Bool {
    pending.exchange(false, ordering: .acquiringAndReleasing)
  }
}
