import Foundation

/// Runs actions side by side; finishes when the last one does, with that one's leftover time.
@MainActor
final class GroupRunner: ActionRunner {
  private let actions: [Action]
  private var runners: [(any ActionRunner)?] = []

  init(actions: [Action]) {
    self.actions = actions
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    if runners.isEmpty && !actions.isEmpty {
      runners = actions.map { $0.makeRunner(on: node) }
    }
    var leftoverOfLast = deltaTime
    var stillRunning = false
    for index in runners.indices {
      guard let runner = runners[index] else { continue }
      if let leftover = runner.advance(by: deltaTime, on: node) {
        runners[index] = nil
        leftoverOfLast = min(leftoverOfLast, leftover)
      } else {
        stillRunning = true
      }
      if node.isAdvancingActionRemoved { return nil }
    }
    return stillRunning ? nil : leftoverOfLast
  }
}
