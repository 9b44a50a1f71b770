/// A position in scene coordinates (points; y grows upward as in SpriteKit).
///
/// ```swift
/// let spawn = Point(x: 100, y: 240)
/// player.position = spawn + Vector(dx: 8, dy: 0)
/// ```
public struct Point: Hashable, Sendable, CustomStringConvertible {
  public var x: Double
  public var y: Double

  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  public static let zero = Point(x: 0, y: 0)

  public var description: String { "(\(x), \(y))" }

  public static func + (point: Point, offset: Vector) -> Point {
    Point(x: point.x + offset.dx, y: point.y + offset.dy)
  }

  public static func - (lhs: Point, rhs: Point) -> Vector {
    Vector(dx: lhs.x - rhs.x, dy: lhs.y - rhs.y)
  }
}
