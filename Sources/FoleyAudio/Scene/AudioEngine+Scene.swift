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
    link.observerTokens = [
      // Unowned, not weak: the scene owns these closures and the link, and a weak reference would
      // make every retain of the scene (one per sound trigger) take the slow side-table path.
      scene.addUpdateObserver(.beforeActions) { [unowned scene, unowned link] _ in link.sceneWillUpdate(scene)
      },
      scene.addUpdateObserver(.afterActions) { [unowned link] _ in link.core.flushRequests() },
    ]
    scene.setService(self)
    // In the scene's attachment slot rather than among its services: the sound actions look it
    // up on every trigger, and a field read beats a dictionary lookup.
    scene.attachment = link
  }

  /// The voice `node`'s sound actions started last, if any. For the latency benchmark.
  @MainActor
  package func newestVoice(of node: Node) -> Voice? { NodeAudio.of(node)?.newest }

  /// Stops `scene`'s sound actions from using this engine.
  @MainActor
  public func detach(from scene: Scene) {
    guard scene.service(AudioEngine.self) === self else { return }
    if let link = SceneAudioLink.of(scene) {
      for token in link.observerTokens { scene.removeUpdateObserver(token) }
      scene.attachment = nil
    }
    scene.setService(nil, as: AudioEngine.self)
  }
}
