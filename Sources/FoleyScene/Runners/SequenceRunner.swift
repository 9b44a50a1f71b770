import Foundation

/// Runs actions one after another, handing each the time the previous one left over.
@MainActor
final class SequenceRunner: ActionRunner {
  private let actions: [Action]
  private var index = 0
  private var current: (any ActionRunner)?

  init(actions: [Action]) {
    self.actions = actions
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    var remaining = deltaTime
    while index < actions.count {
      let runner = current ?? actions[index].makeRunner(on: node)
      current = runner
      guard let leftover = runner.advance(by: remaining, on: node) else { return nil }
      remaining = leftover
      index += 1
      current = nil
      // A block earlier in the sequence may have removed this very action: stop here.
      if node.isAdvancingActionRemoved { return nil }
    }
    return remaining
  }
}
