public import FoleyAudio
public import FoleyScene

extension AudioEngine {
  /// Makes this engine the one `scene`'s sound actions and audio nodes play through, and delivers
  /// the session's transitions (and the music's events) to their observers at the start of each
  /// scene update.
  ///
  /// ```swift
  /// scene.listener = player
  /// engine.attach(to: scene, positional: true, pausesSceneWhenInactive: true)
  /// ball.run(.playSoundFileNamed("thud.wav", waitForCompletion: false))   // heard where the ball is
  /// ```
  ///
  /// - Parameters:
  ///   - scene: the scene whose actions and audio nodes play through this engine.
  ///   - positional: sounds started by actions follow their node: quieter with distance from the
  ///     scene's `FoleyScene/Scene/listener` and panned to its side, updated every frame.
  ///     (``AudioNode``s are positional on their own, by ``AudioNode/isPositional``.)
  ///   - spatial: the distance model and pan width positional sounds use.
  ///   - pausesSceneWhenInactive: the scene pauses while the session is inactive and unpauses when
  ///     it is active again (unless the game paused it itself first).
  @MainActor
  public func attach(
    to scene: Scene, positional: Bool = false, spatial: SpatialAudio = SpatialAudio(),
    pausesSceneWhenInactive: Bool = false
  ) {
    // Whichever engine had the scene lets it go first, this one or another (one closed since,
    // say): its link's observers must not outlive the link.
    Self.removeLink(from: scene)
    let link = SceneAudioLink(
      engine: self, scene: scene, positional: positional, spatial: spatial,
      pausesSceneWhenInactive: pausesSceneWhenInactive)
    link.observerTokens = [
      // Unowned, not weak: the scene owns these closures and the link, and a weak reference would
      // make every retain of the scene (one per sound trigger) take the slow side-table path.
      scene.observeUpdates(.beforeActions) { [unowned scene, unowned link] step in
        link.sceneWillUpdate(scene, step: step)
      },
      scene.observeUpdates(.afterActions) { [unowned scene, unowned link] _ in link.sceneDidUpdate(scene)
      },
    ]
    scene.setService(self)
    // In the scene's storage rather than among its services: the sound actions look it up on
    // every trigger, and an indexed slot beats a dictionary lookup.
    scene[storage: SceneAudioLink.storageKey] = link
    // Audio nodes already in the scene start now.
    AudioNode.forEach(in: scene) { $0.engineAttached(link) }
  }

  /// Changes how `scene`'s positional sound is heard (the engine must be attached to it).
  @MainActor
  public func setSpatialAudio(_ spatial: SpatialAudio, for scene: Scene) {
    SceneAudioLink.of(scene)?.spatial = spatial
  }

  /// Stops `scene`'s sound actions from using this engine; its audio nodes' sounds stop.
  @MainActor
  public func detach(from scene: Scene) {
    guard scene.service(AudioEngine.self) === self else { return }
    Self.removeLink(from: scene)
  }

  /// Takes the scene's link out (its observers first: they hold it unowned), whichever engine
  /// made it.
  @MainActor
  private static func removeLink(from scene: Scene) {
    if let link = SceneAudioLink.of(scene) {
      for observation in link.observerTokens { observation.cancel() }
      link.stopAudioNodes()
      scene[storage: SceneAudioLink.storageKey] = nil
    }
    scene.setService(nil, as: AudioEngine.self)
  }
}
