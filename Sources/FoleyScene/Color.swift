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
  // SKColor's (UIColor's) other named colours, with UIKit's components, so ported code compiles.
  public static let cyan = Color(red: 0, green: 1, blue: 1)
  public static let magenta = Color(red: 1, green: 0, blue: 1)
  public static let yellow = Color(red: 1, green: 1, blue: 0)
  public static let orange = Color(red: 1, green: 0.5, blue: 0)
  public static let purple = Color(red: 0.5, green: 0, blue: 0.5)
  public static let brown = Color(red: 0.6, green: 0.4, blue: 0.2)
  public static let gray = Color(red: 0.5, green: 0.5, blue: 0.5)
  public static let darkGray = Color(red: 1.0 / 3, green: 1.0 / 3, blue: 1.0 / 3)
  public static let lightGray = Color(red: 2.0 / 3, green: 2.0 / 3, blue: 2.0 / 3)
}
