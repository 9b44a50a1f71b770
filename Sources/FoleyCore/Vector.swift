/// A displacement, as used by `Action.move(by:duration:)`.
///
/// ```swift
/// node.run(.move(by: Vector(dx: 10, dy: 0), duration: 0.1))
/// ```
public struct Vector: Hashable, Sendable, CustomStringConvertible {
  public var dx: Double
  public var dy: Double

  public init(dx: Double, dy: Double) {
    self.dx = dx
    self.dy = dy
  }

  public static let zero = Vector(dx: 0, dy: 0)

  public var description: String { "(\(dx), \(dy))" }

  public static prefix func - (vector: Vector) -> Vector {
    Vector(dx: -vector.dx, dy: -vector.dy)
  }

  public static func * (vector: Vector, factor: Double) -> Vector {
    Vector(dx: vector.dx * factor, dy: vector.dy * factor)
  }
}
