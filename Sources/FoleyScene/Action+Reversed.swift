extension Action {
  /// The action that undoes this one, as in SpriteKit: relative actions negate, sequences play
  /// backwards, `fadeIn` becomes `fadeOut`, `hide` becomes `unhide`, easing curves swap ends.
  /// Absolute actions (`move(to:)`, `scale(to:)`, `fadeAlpha(to:)`…), waits, blocks and
  /// `removeFromParent` have no meaningful inverse and return themselves.
  public func reversed() -> Action {
    let reversedKind: Kind
    switch kind {
    case .sequence(let actions):
      reversedKind = .sequence(actions.reversed().map { $0.reversed() })
    case .group(let actions):
      reversedKind = .group(actions.map { $0.reversed() })
    case .repeating(let action, let count):
      reversedKind = .repeating(action.reversed(), count: count)
    case .change(let change):
      reversedKind = .change(change.reversed)
    case .setHidden(let hidden):
      reversedKind = .setHidden(!hidden)
    case .behavior(let behavior):
      reversedKind = .behavior(behavior.reversed())
    case .wait, .run, .runOnChild, .removeFromParent:
      reversedKind = kind
    }
    var result = Action(copying: self, kind: reversedKind)
    result.timingMode = timingMode.reversed
    if let function = timingFunction {
      result.timingFunction = { progress in 1 - function(1 - progress) }
    }
    return result
  }

  private init(copying other: Action, kind: Kind) {
    self.kind = kind
    self.duration = other.duration
    self.naturalDuration = other.naturalDuration
    self.timingMode = other.timingMode
    self.timingFunction = other.timingFunction
    self.speed = other.speed
  }
}
