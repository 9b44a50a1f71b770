import Foundation

/// Runs actions one after another, handing each the time the previous one left over.
@MainActor
final class SequenceRunner: ActionRunner {
  private let actions: [Action]
  /// The parts' runners, made when first reached and restarted (not rebuilt) on later passes.
  @exclusivity(unchecked) private var runners: [(any ActionRunner)?]
  @exclusivity(unchecked) private var index = 0

  init(actions: [Action]) {
    self.actions = actions
    runners = Array(repeating: nil, count: actions.count)
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    var remaining = deltaTime
    while index < actions.count {
      let runner: any ActionRunner
      if let made = runners[index] {
        runner = made
      } else {
        runner = actions[index].makeRunner(on: node)
        runners[index] = runner
      }
      guard let leftover = runner.advance(by: remaining, on: node) else { return nil }
      remaining = leftover
      index += 1
      // A block earlier in the sequence may have removed this very action: stop here.
      if node.isAdvancingActionRemoved { return nil }
    }
    return remaining
  }

  func restart(on node: Node) -> Bool {
    index = 0
    for part in runners.indices where runners[part]?.restart(on: node) == false { runners[part] = nil }
    return true
  }
}
