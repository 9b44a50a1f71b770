extension Action {
  /// Builds the running state for one run of this action on `node`, wrapping it in the speed and
  /// timing stages that the action's settings need (none for a plain linear action at speed 1).
  @MainActor
  func makeRunner(on node: Node) -> RunnerStage {
    let curve: ActionTimingFunction? = timingFunction ?? (timingMode == .linear ? nil : timingMode.apply)
    var runner: RunnerStage
    switch kind {
    case .sequence(let actions):
      runner = SequenceRunner(actions: actions)
    case .group(let actions):
      runner = GroupRunner(actions: actions)
    case .repeating(let action, let count):
      runner = RepeatRunner(action: action, count: count)
    case .behavior(let behavior):
      let made = behavior.makeRunner(on: node)
      runner = made as? RunnerStage ?? BehaviorStage(behavior, runner: made)
    case .wait(let range):
      // A wait has no progress to shape, so its timing curve is irrelevant.
      return wrapSpeed(WaitRunner(duration: duration, range: range, on: node))
    case .run(let block):
      return wrapSpeed(InstantRunner { _ in block() })
    case .runOnChild(let action, let name):
      return wrapSpeed(InstantRunner { node in node.childNode(withName: name)?.run(action) })
    case .setHidden(let hidden):
      return wrapSpeed(InstantRunner { node in node.isHidden = hidden })
    case .removeFromParent:
      return wrapSpeed(InstantRunner { node in node.removeFromParent() })
    case .change(let change):
      return wrapSpeed(IntervalRunner(change, duration: duration, curve: curve))
    }
    // Containers and behaviors: a timing curve or an overridden duration remaps the time their
    // parts see.
    if duration.isFinite, duration > 0, naturalDuration > 0,
      curve != nil || duration != naturalDuration
    {
      runner = TimedRunner(
        inner: runner, duration: duration, innerDuration: naturalDuration, curve: curve ?? { $0 })
    }
    return wrapSpeed(runner)
  }

  /// Runs this action at once, with no runner, when it is instantaneous and stateless (a block,
  /// a child's action started, hidden set, removal, an instant ``ActionBehavior``) and its speed
  /// lets it run; returns false, having done nothing, for every other action. Such an action
  /// finishes in its first step whatever the step's length, so no time needs converting.
  @MainActor
  func performInstantly(on node: Node) -> Bool {
    // Speed 0 (or a negative one) holds even an instant action still, as its runner would.
    guard speed > 0 else { return false }
    switch kind {
    case .behavior(let behavior):
      guard behavior.isInstant else { return false }
      behavior.perform(on: node)
    case .run(let block):
      block()
    case .runOnChild(let action, let name):
      node.childNode(withName: name)?.run(action)
    case .setHidden(let hidden):
      node.isHidden = hidden
    case .removeFromParent:
      node.removeFromParent()
    case .sequence, .group, .repeating, .wait, .change:
      return false
    }
    return true
  }

  @MainActor
  private func wrapSpeed(_ runner: RunnerStage) -> RunnerStage {
    speed == 1 ? runner : SpeedRunner(inner: runner, speed: speed)
  }
}
