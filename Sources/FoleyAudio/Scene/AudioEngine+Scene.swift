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
