public import Foundation

extension Action {
  /// Fades the node's alpha to 1.
  public static func fadeIn(withDuration duration: TimeInterval) -> Action {
    Action(kind: .change(.fadeAlphaTo(1, reverse: 0)), duration: duration)
  }

  /// Fades the node's alpha to 0.
  public static func fadeOut(withDuration duration: TimeInterval) -> Action {
    Action(kind: .change(.fadeAlphaTo(0, reverse: 1)), duration: duration)
  }

  /// Fades the node's alpha to `alpha`.
  public static func fadeAlpha(to alpha: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.fadeAlphaTo(alpha, reverse: nil)), duration: duration)
  }

  /// Changes the node's alpha by `delta` (relative).
  public static func fadeAlpha(by delta: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.fadeAlphaBy(delta)), duration: duration)
  }

  /// Hides the node at once.
  public static func hide() -> Action {
    Action(kind: .setHidden(true), duration: 0)
  }

  /// Shows the node at once.
  public static func unhide() -> Action {
    Action(kind: .setHidden(false), duration: 0)
  }

  /// Removes the node from its parent at once. Its remaining actions stop with it.
  public static func removeFromParent() -> Action {
    Action(kind: .removeFromParent, duration: 0)
  }

  /// Changes the node's `speed` by `delta` (relative).
  public static func speed(by delta: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.speedBy(delta)), duration: duration)
  }

  /// Changes the node's `speed` to `speed`.
  public static func speed(to speed: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.speedTo(speed)), duration: duration)
  }

  /// Changes a sprite's colour to `color` and its blend factor to `colorBlendFactor`. Does
  /// nothing on a node that is not a ``SpriteNode``.
  public static func colorize(with color: Color, colorBlendFactor: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.colorize(color, blendFactor: colorBlendFactor)), duration: duration)
  }

  /// Changes a sprite's blend factor only.
  public static func colorize(withColorBlendFactor colorBlendFactor: Double, duration: TimeInterval) -> Action
  {
    Action(kind: .change(.colorize(nil, blendFactor: colorBlendFactor)), duration: duration)
  }

  /// Resizes a sprite to `width` × `height`.
  public static func resize(toWidth width: Double, height: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.resizeTo(width: width, height: height)), duration: duration)
  }

  /// Resizes a sprite's width only.
  public static func resize(toWidth width: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.resizeTo(width: width, height: nil)), duration: duration)
  }

  /// Resizes a sprite's height only.
  public static func resize(toHeight height: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.resizeTo(width: nil, height: height)), duration: duration)
  }

  /// Grows a sprite by `width` and `height` (relative; reverses to shrinking).
  public static func resize(byWidth width: Double, height: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.resizeBy(width: width, height: height)), duration: duration)
  }
}
