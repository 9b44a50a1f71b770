/// A kind of sound, for choosing its ``SessionPolicy``: effects, music, ambience, speech, or a
/// category of the game's own.
///
/// ```swift
/// var settings = SoundSettings()
/// settings.category = .music
/// let theme = try Sound(contentsOf: themeURL, engine: engine, settings: settings)
/// let radio: SoundCategory = "radio"
/// ```
public struct SoundCategory: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  public let name: String

  public init(_ name: String) {
    self.name = name
  }

  public init(stringLiteral value: String) {
    self.name = value
  }

  public var description: String { name }

  /// One-shot game sounds; the category of sounds played from bytes or files by name.
  public static let effects = SoundCategory("effects")
  public static let music = SoundCategory("music")
  public static let ambience = SoundCategory("ambience")
  public static let speech = SoundCategory("speech")
}
