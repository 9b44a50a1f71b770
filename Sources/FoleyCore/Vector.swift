/// A displacement, as used by `Action.move(by:duration:)`.
///
/// ```swift
/// node.run(.move(by: Vector(dx: 10, dy: 0), duration: 0.1))
/// ```
public struct Vector: Hashable, Sendable, CustomStringConvertible {
  public var dx: Double
  public var dy: Double

  @inlinable
  public init(dx: Double, dy: Double) {
    self.dx = dx
    self.dy = dy
  }

  @inlinable
  public static var zero: Vector { Vector(dx: 0, dy: 0) }

  public var description: String { "(\(dx), \(dy))" }

  @inlinable
  public static prefix func - (vector: Vector) -> Vector {
    Vector(dx: -vector.dx, dy: -vector.dy)
  }

  @inlinable
  public static func * (vector: Vector, factor: Double) -> Vector {
    Vector(dx: vector.dx * factor, dy: vector.dy * factor)
  }

  @inlinable
  public static func == (lhs: Vector, rhs: Vector) -> Bool { lhs.dx == rhs.dx && lhs.dy == rhs.dy }

  @inlinable
  public func hash(into hasher: inout Hasher) {
    hasher.combine(dx)
    hasher.combine(dy)
  }
}
