import Dispatch
import Synchronization

/// The one way events reach the game thread: the session's transitions, the music's events, a
/// sound map's reload reports and speech's words all arrive here, from whatever thread noticed
/// them, and run on the game thread (the main actor) in the order they were posted.
///
/// Someone drains it: a scene an engine is attached to does at the start of each update,
/// `EventPump.poll()` does each time it polls, and otherwise the main queue's next turn does —
/// whichever comes first. A game never calls a source's own delivery by hand.
///
/// ```swift
/// // A game loop of its own, with no scene and no pump, may drain it each frame:
/// engine.session.mailbox.drain()
/// ```
///
/// A source that must look at something every frame while it is busy (speech follows the words
/// being heard) adds a poller, which each drain runs after the posted deliveries.
public final class GameThreadMailbox: Sendable {
  private let pending = Locked<[Delivery]>([])
  private let pollers = Locked<[(token: Int, delivery: Delivery)]>([])
  private let nextPollerToken = Atomic<Int>(1)
  private let drainScheduled = Atomic<Bool>(false)

  public init() {}

  /// Runs `delivery` on the game thread at the next drain.
  package func post(_ delivery: @escaping @MainActor @Sendable () -> Void) {
    pending.withLock { $0.append(Delivery(delivery)) }
    scheduleDrain()
  }

  /// Runs `body` at every drain until ``removePoller(_:)``; returns its token.
  package func addPoller(_ body: @escaping @MainActor @Sendable () -> Void) -> Int {
    let token = nextPollerToken.add(1, ordering: .relaxed).oldValue
    pollers.withLock { $0.append((token, Delivery(body))) }
    scheduleDrain()
    return token
  }

  package func removePoller(_ token: Int) {
    pollers.withLock { $0.removeAll { $0.token == token } }
  }

  /// Runs what was posted since the last drain, in order, then the pollers. Deliveries posted
  /// while it runs wait for the next drain.
  @MainActor
  public func drain() {
    drainScheduled.store(false, ordering: .releasing)
    // Taken by a swap, and not at all when nothing was posted (most frames): returning the list
    // and then emptying it with its capacity kept allocated a new buffer whenever the returned
    // copy still shared the old one.
    let deliveries = pending.withLock { pending -> [Delivery] in
      guard !pending.isEmpty else { return [] }
      var taken: [Delivery] = []
      swap(&taken, &pending)
      return taken
    }
    for delivery in deliveries { delivery.run() }
    for (_, poller) in pollers.withLock({ $0 }) { poller.run() }
  }

  /// One hop to the main queue for however much is waiting (the fallback drain).
  private func scheduleDrain() {
    guard !drainScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    DispatchQueue.main.async { MainActor.assumeIsolated { self.drain() } }
  }
}

/// A game-thread closure kept by reference (stored behind a lock without re-wrapping it).
private final class Delivery: Sendable {
  let run: @MainActor @Sendable () -> Void

  init(_ run: @escaping @MainActor @Sendable () -> Void) {
    self.run = run
  }
}
