import Foundation

/// Runs an effect once and finishes at once, leaving the whole step over: the runner of every
/// instantaneous action (a block, an event posted, a play/pause/stop, a music command).
@MainActor
final class InstantRunner: RunnerStage {
  private let perform: @MainActor (Node) -> Void

  package init(_ perform: @escaping @MainActor (Node) -> Void) {
    self.perform = perform
  }

  package override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    perform(node)
    return deltaTime
  }

  package override func restart(on node: Node) -> Bool { true }
}
