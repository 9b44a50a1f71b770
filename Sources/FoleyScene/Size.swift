/// A width and height in points.
///
/// ```swift
/// let sprite = SpriteNode(color: .red, size: Size(width: 32, height: 32))
/// ```
public struct Size: Hashable, Sendable, CustomStringConvertible {
  public var width: Double
  public var height: Double

  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  public static let zero = Size(width: 0, height: 0)

  public var description: String { "\(width)×\(height)" }
}
