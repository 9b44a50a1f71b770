import Foundation

/// Runs an action `count` times (or forever when `count` is nil), carrying leftover time from one
/// repetition into the next. The action's runner is restarted for each repetition, not rebuilt.
@MainActor
final class RepeatRunner: RunnerStage {
  private let action: Action
  private let count: Int?
  @exclusivity(unchecked) private var completed = 0
  @exclusivity(unchecked) private var current: RunnerStage?
  /// Whether `current` has finished a repetition and must restart before it runs again.
  @exclusivity(unchecked) private var needsRestart = false

  /// The most repetitions that take no time run in one step (the rest in the steps after).
  static let instantRepetitionsPerStep = 10_000

  init(action: Action, count: Int?) {
    self.action = action
    self.count = count
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    var remaining = deltaTime
    var instantRepetitions = 0
    while hasRepetitionsLeft {
      if needsRestart { _ = current?.restart(on: node) }
      needsRestart = false
      if current == nil { current = action.makeRunner(on: node) }
      // Borrowed: the repetition's runner stays in `current` (see `RunnerStage`).
      let step = remaining
      guard let leftover = current.unretained!.borrow({ $0.advance(by: step, on: node) }) else {
        return nil
      }
      needsRestart = true
      completed += 1
      if node.isAdvancingActionRemoved { return nil }
      // A repetition that took no time would spin forever within one step: run it once per step.
      // A finite repeat runs them all at once, as SpriteKit does, but at most
      // `instantRepetitionsPerStep` per step (a count of Int.max would otherwise hang the game).
      if leftover >= remaining {
        if count == nil { return nil }
        instantRepetitions += 1
        if instantRepetitions >= Self.instantRepetitionsPerStep, hasRepetitionsLeft {
          return nil
        }
      }
      remaining = leftover
    }
    return remaining
  }

  /// Whether another repetition is due. (Not `count.map { … }`: a main-actor closure handed to
  /// the standard library is checked for its executor on every call.)
  private var hasRepetitionsLeft: Bool {
    guard let count else { return true }
    return completed < count
  }

  override func restart(on node: Node) -> Bool {
    completed = 0
    needsRestart = current != nil
    return true
  }
}
