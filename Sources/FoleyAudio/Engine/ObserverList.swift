/// The observers of a game-thread object's events (the music player's, a sound map's, speech's),
/// each under a token for removing it.
@MainActor
package struct ObserverList<Event> {
  private var observers: [(token: Int, body: @MainActor (Event) -> Void)] = []
  private var nextToken = 0

  package init() {}

  /// Adds `body`; returns its token.
  package mutating func add(_ body: @escaping @MainActor (Event) -> Void) -> Int {
    nextToken += 1
    observers.append((nextToken, body))
    return nextToken
  }

  package mutating func remove(_ token: Int) {
    observers.removeAll { $0.token == token }
  }

  /// Calls every observer with `event`, in the order they were added.
  package func send(_ event: Event) {
    for observer in observers { observer.body(event) }
  }
}
