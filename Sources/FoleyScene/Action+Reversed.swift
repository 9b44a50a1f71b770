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
    case .moveBy(let delta):
      reversedKind = .moveBy(-delta)
    case .rotateBy(let radians):
      reversedKind = .rotateBy(-radians)
    case .scaleBy(let x, let y):
      reversedKind = .scaleBy(x: x == 0 ? 0 : 1 / x, y: y == 0 ? 0 : 1 / y)
    case .fadeAlphaBy(let delta):
      reversedKind = .fadeAlphaBy(-delta)
    case .fadeAlphaTo(let alpha, let reverse):
      reversedKind = reverse.map { .fadeAlphaTo($0, reverse: alpha) } ?? kind
    case .setHidden(let hidden):
      reversedKind = .setHidden(!hidden)
    case .speedBy(let delta):
      reversedKind = .speedBy(-delta)
    case .behavior(let behavior):
      reversedKind = .behavior(behavior.reversed())
    case .wait, .run, .runOnChild, .moveTo, .rotateTo, .scaleTo, .removeFromParent, .custom, .speedTo:
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
