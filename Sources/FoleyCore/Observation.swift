/// An observation under way: what every `observe…` call in Foley returns, the one way to hear
/// of events (the session's transitions, the music's events, a sound map's plays and reloads, a
/// scene's events and updates, captions, speech). ``cancel()`` ends it; dropping it does not (an
/// observation lasts as long as what it observes, unless cancelled).
///
/// ```swift
/// let watching = engine.music.observe { event in print(event) }
/// // …
/// watching.cancel()   // no more events; cancelling again does nothing
/// ```
@MainActor
public final class Observation: Hashable {
  private var ending: (@MainActor () -> Void)?

  /// An observation that `cancel` ends (called once, on the main actor).
  package nonisolated init(cancel: @escaping @MainActor @Sendable () -> Void) {
    ending = cancel
  }

  /// Whether ``cancel()`` has ended it.
  public var isCancelled: Bool { ending == nil }

  /// Ends the observation: its body is not called again.
  public func cancel() {
    let body = ending
    ending = nil
    body?()
  }

  public nonisolated static func == (lhs: Observation, rhs: Observation) -> Bool { lhs === rhs }
  public nonisolated func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
