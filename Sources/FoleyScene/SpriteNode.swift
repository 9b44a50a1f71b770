/// A node drawn as a textured or coloured rectangle. SpriteKit's `SKSpriteNode`, for Foley.
///
/// FoleyScene only describes the sprite; a renderer (FoleyPlatform's, or the host game's) draws it.
///
/// ```swift
/// let player = SpriteNode(color: .green, size: Size(width: 24, height: 24))
/// player.position = Point(x: 320, y: 40)
/// scene.addChild(player)
/// ```
@MainActor
open class SpriteNode: Node {
  public var size: Size
  public var color: Color
  /// How much `color` tints a texture, 0...1 (a plain-coloured sprite shows `color` whatever
  /// this is). SpriteKit's `colorBlendFactor`.
  public var colorBlendFactor: Double = 0
  /// The point in the sprite, in unit coordinates, that sits at `position`; (0.5, 0.5) is the centre.
  public var anchorPoint = Point(x: 0.5, y: 0.5)
  /// The name of an image asset to draw instead of the plain colour, if the renderer has it.
  public var textureName: String?

  public init(color: Color = .white, size: Size) {
    self.color = color
    self.size = size
    super.init()
  }

  public init(textureNamed textureName: String, size: Size) {
    self.textureName = textureName
    self.color = .white
    self.size = size
    super.init()
  }
}
