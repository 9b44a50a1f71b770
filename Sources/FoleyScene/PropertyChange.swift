import Foundation

/// A change an action makes to a node's property over its duration: the one description that
/// actions are built from, reversed by, and run by (`IntervalRunner`).
///
/// Relative changes (`moveBy`, `rotateBy`, `scaleBy`, `fadeAlphaBy`, `speedBy`) add up when several
/// run at once, as in SpriteKit; absolute ones read the starting value on their first step.
enum PropertyChange: Sendable {
  case moveBy(Vector)
  case moveTo(x: Double?, y: Double?)
  case rotateBy(Double)
  case rotateTo(Double)
  case scaleBy(x: Double, y: Double)
  case scaleTo(x: Double?, y: Double?)
  case fadeAlphaBy(Double)
  /// `reverse`: the alpha the reversed action fades to (`fadeIn` ↔ `fadeOut`), nil for none.
  case fadeAlphaTo(Double, reverse: Double?)
  case speedBy(Double)
  case speedTo(Double)
  /// A sprite's colour and blend factor (either may stay as it is).
  case colorize(Color?, blendFactor: Double?)
  /// A sprite's size, relative.
  case resizeBy(width: Double, height: Double)
  /// A sprite's size, absolute (either dimension may stay as it is).
  case resizeTo(width: Double?, height: Double?)
  case custom(@MainActor @Sendable (Node, TimeInterval) -> Void)

  /// The change that undoes this one; absolute changes have no meaningful inverse and return
  /// themselves (as SpriteKit's do).
  var reversed: PropertyChange {
    switch self {
    case .moveBy(let delta): .moveBy(-delta)
    case .rotateBy(let radians): .rotateBy(-radians)
    case .scaleBy(let x, let y): .scaleBy(x: x == 0 ? 0 : 1 / x, y: y == 0 ? 0 : 1 / y)
    case .fadeAlphaBy(let delta): .fadeAlphaBy(-delta)
    case .fadeAlphaTo(let alpha, let reverse): reverse.map { .fadeAlphaTo($0, reverse: alpha) } ?? self
    case .speedBy(let delta): .speedBy(-delta)
    case .resizeBy(let width, let height): .resizeBy(width: -width, height: -height)
    case .moveTo, .rotateTo, .scaleTo, .speedTo, .colorize, .resizeTo, .custom: self
    }
  }
}
