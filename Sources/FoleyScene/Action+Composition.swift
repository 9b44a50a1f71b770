public import Foundation

extension Action {
  /// Runs the actions one after another; each starts with the time the previous one left over.
  public static func sequence(_ actions: [Action]) -> Action {
    let total = actions.reduce(0) { $0 + $1.effectiveDuration }
    return Action(kind: .sequence(actions), duration: total)
  }

  /// Runs the actions at the same time; the group ends when the longest one does.
  public static func group(_ actions: [Action]) -> Action {
    let longest = actions.map(\.effectiveDuration).max() ?? 0
    return Action(kind: .group(actions), duration: longest)
  }

  /// Runs `action` `count` times in a row. A count below one runs nothing.
  public static func `repeat`(_ action: Action, count: Int) -> Action {
    let count = max(0, count)
    return Action(kind: .repeating(action, count: count), duration: action.effectiveDuration * Double(count))
  }

  /// Runs `action` again and again until it is removed. A repeated action that takes no time runs
  /// once per frame rather than spinning.
  public static func repeatForever(_ action: Action) -> Action {
    Action(kind: .repeating(action, count: nil), duration: .infinity)
  }

  /// Does nothing for `duration` seconds.
  public static func wait(forDuration duration: TimeInterval) -> Action {
    Action(kind: .wait(range: 0), duration: duration)
  }

  /// Does nothing for a random time in `duration ± range / 2`, drawn from the scene's seeded
  /// generator so a run with the same seed replays identically.
  public static func wait(forDuration duration: TimeInterval, withRange range: TimeInterval) -> Action {
    Action(kind: .wait(range: sanitized(range)), duration: duration)
  }

  /// Calls `block` once, on the game thread, and finishes at once.
  public static func run(_ block: @escaping @MainActor @Sendable () -> Void) -> Action {
    Action(kind: .run(block), duration: 0)
  }

  /// Starts `action` on the node's first child named `name` and finishes at once (the child's action
  /// goes on by itself). Nothing happens when there is no such child.
  public static func run(_ action: Action, onChildWithName name: String) -> Action {
    Action(kind: .runOnChild(action, name: name), duration: 0)
  }

  /// Calls `block` every frame for `duration` seconds with the node and the elapsed time
  /// (after the timing curve), last with exactly `duration`.
  public static func customAction(
    withDuration duration: TimeInterval,
    actionBlock block: @escaping @MainActor @Sendable (Node, TimeInterval) -> Void
  ) -> Action {
    Action(kind: .change(.custom(block)), duration: duration)
  }

  /// An action whose running is supplied by another module through ``ActionBehavior``.
  public static func behavior(_ behavior: any ActionBehavior) -> Action {
    Action(kind: .behavior(behavior), duration: behavior.duration)
  }

  /// The time this action takes from its parent's point of view: its duration divided by its speed.
  var effectiveDuration: TimeInterval {
    if speed == 1 { return duration }
    return speed > 0 ? duration / speed : .infinity
  }
}
