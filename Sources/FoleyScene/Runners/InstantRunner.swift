import Foundation

/// Runs an effect once and finishes at once, leaving the whole step over.
@MainActor
final class InstantRunner: ActionRunner {
  private let perform: @MainActor (Node) -> Void

  init(_ perform: @escaping @MainActor (Node) -> Void) {
    self.perform = perform
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    perform(node)
    return deltaTime
  }

  func restart(on node: Node) -> Bool { true }
}
