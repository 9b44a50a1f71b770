/// A position: in a scene's coordinates (points; y grows upward as in SpriteKit), or in a game's
/// own units for the engine's space (`AudioSpace` in FoleyAudio).
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

  /// The point at a vector's coordinates: a game's own `SIMD2<Double>` converts in one line.
  ///
  /// ```swift
  /// engine.space.move(voice, to: Point(body.position))   // body.position: SIMD2<Double>
  /// ```
  public init(_ coordinates: SIMD2<Double>) {
    self.init(x: coordinates.x, y: coordinates.y)
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
