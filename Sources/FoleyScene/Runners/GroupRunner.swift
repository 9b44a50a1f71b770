import Foundation

/// Runs actions side by side; finishes when the last one does, with that one's leftover time.
@MainActor
final class GroupRunner: RunnerStage {
  private let actions: [Action]
  @exclusivity(unchecked) private var runners: [RunnerStage] = []
  @exclusivity(unchecked) private var finished: [Bool] = []

  init(actions: [Action]) {
    self.actions = actions
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    if runners.isEmpty && !actions.isEmpty {
      runners = actions.map { $0.makeRunner(on: node) }
      finished = Array(repeating: false, count: actions.count)
    }
    var leftoverOfLast = deltaTime
    var stillRunning = false
    for index in runners.indices where !finished[index] {
      // Borrowed: the part stays in `runners` (see `RunnerStage`).
      if let leftover = Unmanaged.passUnretained(runners[index]).borrow({
        $0.advance(by: deltaTime, on: node)
      }) {
        finished[index] = true
        leftoverOfLast = min(leftoverOfLast, leftover)
      } else {
        stillRunning = true
      }
      if node.isAdvancingActionRemoved { return nil }
    }
    return stillRunning ? nil : leftoverOfLast
  }

  override func restart(on node: Node) -> Bool {
    for index in runners.indices {
      _ = runners[index].restart(on: node)
      finished[index] = false
    }
    return true
  }
}
