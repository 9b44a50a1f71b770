/// An RGBA colour with components in 0...1.
///
/// ```swift
/// let sprite = SpriteNode(color: Color(red: 1, green: 0.5, blue: 0), size: Size(width: 16, height: 16))
/// ```
public struct Color: Hashable, Sendable {
  public var red: Double
  public var green: Double
  public var blue: Double
  public var alpha: Double

  public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  public static let white = Color(red: 1, green: 1, blue: 1)
  public static let black = Color(red: 0, green: 0, blue: 0)
  public static let red = Color(red: 1, green: 0, blue: 0)
  public static let green = Color(red: 0, green: 1, blue: 0)
  public static let blue = Color(red: 0, green: 0, blue: 1)
  public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
}
