public import Foundation

/// What presents a scene and drives its clock: SpriteKit's `SKView`, without the drawing (a
/// renderer draws ``scene``). Presenting a scene calls its ``Scene/didMove(to:)`` (and the old
/// one's ``Scene/willMove(from:)``); ``update(deltaTime:)`` steps the presented scene unless the
/// view is paused.
///
/// ```swift
/// let view = SceneView()
/// view.presentScene(Level(size: Size(width: 800, height: 600)))
/// while running { view.update(deltaTime: 1.0 / 60.0); renderer.draw(view.scene!) }
/// ```
@MainActor
public final class SceneView {
  /// The scene being presented.
  public private(set) var scene: Scene?
  /// A paused view does not step its scene.
  public var isPaused = false

  public init() {}

  /// Replaces the presented scene (nil presents none).
  public func presentScene(_ newScene: Scene?) {
    if let old = scene {
      old.willMove(from: self)
      old.view = nil
    }
    scene = newScene
    if let newScene {
      newScene.view = self
      newScene.didMove(to: self)
    }
  }

  /// Steps the presented scene by `deltaTime` seconds.
  public func update(deltaTime: TimeInterval) {
    guard !isPaused else { return }
    scene?.update(deltaTime: deltaTime)
  }
}
