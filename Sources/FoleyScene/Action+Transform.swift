public import Foundation

extension Action {
  /// Moves the node by `delta`. Relative: several moves at once add up.
  public static func move(by delta: Vector, duration: TimeInterval) -> Action {
    Action(kind: .change(.moveBy(delta)), duration: duration)
  }

  /// Moves the node to `point`, starting from wherever it is when the action starts.
  public static func move(to point: Point, duration: TimeInterval) -> Action {
    Action(kind: .change(.moveTo(x: point.x, y: point.y)), duration: duration)
  }

  /// Moves the node horizontally to `x`.
  public static func moveTo(x: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.moveTo(x: x, y: nil)), duration: duration)
  }

  /// Moves the node vertically to `y`.
  public static func moveTo(y: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.moveTo(x: nil, y: y)), duration: duration)
  }

  /// Rotates the node by `radians` (counter-clockwise positive).
  public static func rotate(byAngle radians: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.rotateBy(radians)), duration: duration)
  }

  /// Rotates the node to the absolute angle `radians`.
  public static func rotate(toAngle radians: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.rotateTo(radians)), duration: duration)
  }

  /// Multiplies both scales by `factor` over the duration.
  public static func scale(by factor: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.scaleBy(x: factor, y: factor)), duration: duration)
  }

  /// Multiplies the x and y scales by separate factors.
  public static func scaleX(by xFactor: Double, y yFactor: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.scaleBy(x: xFactor, y: yFactor)), duration: duration)
  }

  /// Changes both scales to `scale`.
  public static func scale(to scale: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.scaleTo(x: scale, y: scale)), duration: duration)
  }

  /// Changes the x and y scales to separate values.
  public static func scaleX(to xScale: Double, y yScale: Double, duration: TimeInterval) -> Action {
    Action(kind: .change(.scaleTo(x: xScale, y: yScale)), duration: duration)
  }
}
