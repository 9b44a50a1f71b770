import Foundation

/// Runs actions one after another, handing each the time the previous one left over.
@MainActor
final class SequenceRunner: RunnerStage {
  private let actions: [Action]
  /// The parts' runners, made when first reached and restarted (not rebuilt) on later passes.
  @exclusivity(unchecked) private var runners: [RunnerStage?]
  @exclusivity(unchecked) private var index = 0

  init(actions: [Action]) {
    self.actions = actions
    runners = Array(repeating: nil, count: actions.count)
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    var remaining = deltaTime
    while index < actions.count {
      if runners[index] == nil { runners[index] = actions[index].makeRunner(on: node) }
      // Borrowed: the part stays in `runners` (see `RunnerStage`).
      let step = remaining
      guard let leftover = runners[index].unretained!.borrow({ $0.advance(by: step, on: node) }) else {
        return nil
      }
      remaining = leftover
      index += 1
      // A block earlier in the sequence may have removed this very action: stop here.
      if node.isAdvancingActionRemoved { return nil }
    }
    return remaining
  }

  override func restart(on node: Node) -> Bool {
    index = 0
    for part in runners.indices { _ = runners[part]?.restart(on: node) }
    return true
  }
}
