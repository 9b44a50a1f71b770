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

  @inlinable
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  /// The point at a vector's coordinates: a game's own `SIMD2<Double>` converts in one line.
  ///
  /// ```swift
  /// engine.space.move(voice, to: Point(body.position))   // body.position: SIMD2<Double>
  /// ```
  @inlinable
  public init(_ coordinates: SIMD2<Double>) {
    self.init(x: coordinates.x, y: coordinates.y)
  }

  @inlinable
  public static var zero: Point { Point(x: 0, y: 0) }

  public var description: String { "(\(x), \(y))" }

  @inlinable
  public static func + (point: Point, offset: Vector) -> Point {
    Point(x: point.x + offset.dx, y: point.y + offset.dy)
  }

  @inlinable
  public static func - (lhs: Point, rhs: Point) -> Vector {
    Vector(dx: lhs.x - rhs.x, dy: lhs.y - rhs.y)
  }

  // Spelled out and inlinable: the scene and the engine's space compare and hash points in their
  // per-voice passes, from other modules.
  @inlinable
  public static func == (lhs: Point, rhs: Point) -> Bool { lhs.x == rhs.x && lhs.y == rhs.y }

  @inlinable
  public func hash(into hasher: inout Hasher) {
    hasher.combine(x)
    hasher.combine(y)
  }
}
