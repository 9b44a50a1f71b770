public import FoleyScene

extension AudioEngine {
  /// Makes this engine the one `scene`'s sound actions play through, and delivers the session's
  /// transitions to its observers at the start of each scene update.
  ///
  /// ```swift
  /// engine.attach(to: scene, pansWithPosition: true, pausesSceneWhenInactive: true)
  /// ```
  ///
  /// - Parameters:
  ///   - pansWithPosition: sound actions pan with their node's horizontal place in the scene
  ///     (left edge -1, right edge +1), the way SpriteKit's positional audio follows the listener.
  ///   - pausesSceneWhenInactive: the scene pauses while the session is inactive and unpauses when
  ///     it is active again (unless the game paused it itself first).
  @MainActor
  public func attach(to scene: Scene, pansWithPosition: Bool = false, pausesSceneWhenInactive: Bool = false) {
    detach(from: scene)
    let link = SceneAudioLink(
      engine: self, pansWithPosition: pansWithPosition, pausesSceneWhenInactive: pausesSceneWhenInactive)
    link.observerToken = scene.addUpdateObserver { [weak scene, weak link] _ in
      guard let scene, let link else { return }
      link.sceneWillUpdate(scene)
    }
    scene.setService(self)
    scene.setService(link)
  }

  /// Stops `scene`'s sound actions from using this engine.
  @MainActor
  public func detach(from scene: Scene) {
    guard scene.service(AudioEngine.self) === self else { return }
    if let link = scene.service(SceneAudioLink.self) {
      if let token = link.observerToken { scene.removeUpdateObserver(token) }
      scene.setService(nil, as: SceneAudioLink.self)
    }
    scene.setService(nil, as: AudioEngine.self)
  }
}

/// What an engine attached to a scene keeps on the game thread.
@MainActor
final class SceneAudioLink {
  let engine: AudioEngine
  let pansWithPosition: Bool
  let pausesSceneWhenInactive: Bool
  var observerToken: Int?
  private var pausedScene = false

  init(engine: AudioEngine, pansWithPosition: Bool, pausesSceneWhenInactive: Bool) {
    self.engine = engine
    self.pansWithPosition = pansWithPosition
    self.pausesSceneWhenInactive = pausesSceneWhenInactive
  }

  func sceneWillUpdate(_ scene: Scene) {
    engine.session.deliverTransitions()
    guard pausesSceneWhenInactive else { return }
    if !engine.session.isActive, !scene.isPaused {
      scene.isPaused = true
      pausedScene = true
    } else if engine.session.isActive, pausedScene {
      scene.isPaused = false
      pausedScene = false
    }
  }

  /// The pan for a sound started by `node`: its x across the scene's width, or centred.
  func pan(for node: Node, in scene: Scene) -> Double {
    guard pansWithPosition, scene.size.width > 0 else { return 0 }
    var x = 0.0
    var current: Node? = node
    while let step = current, step !== scene {
      x += step.position.x
      current = step.parent
    }
    return min(1, max(-1, x / scene.size.width * 2 - 1))
  }
}
