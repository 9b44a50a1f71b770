/// The observers of a game-thread object's events (the music player's, a sound map's, speech's),
/// each under a token for removing it.
@MainActor
package struct ObserverList<Event> {
  private var observers: [(token: Int, body: @MainActor (Event) -> Void)] = []
  private var nextToken = 0
  /// Whether no one observes. Stored, not computed: from another module a stored field of the
  /// struct is read where it lies, while a call into the list runs unspecialized, a few hundred
  /// instructions of type metadata even over an empty list (most of a sound map's posts have no
  /// observer). A caller that sends often checks it first.
  package private(set) var isEmpty = true

  package init() {}

  /// Adds `body`; returns its token.
  package mutating func add(_ body: @escaping @MainActor (Event) -> Void) -> Int {
    nextToken += 1
    observers.append((nextToken, body))
    isEmpty = false
    return nextToken
  }

  package mutating func remove(_ token: Int) {
    observers.removeAll { $0.token == token }
    isEmpty = observers.isEmpty
  }

  /// Calls every observer with `event`, in the order they were added.
  package func send(_ event: Event) {
    for observer in observers { observer.body(event) }
  }
}
