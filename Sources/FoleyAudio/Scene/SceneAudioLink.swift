import FoleyScene

/// What an engine attached to a scene keeps on the game thread.
@MainActor
final class SceneAudioLink {
  let engine: AudioEngine
  /// The engine's core, for the sound actions: reaching it through the engine would retain the
  /// engine on every trigger (and the session's weak reference to it makes that slow).
  let core: MixerCore
  let pansWithPosition: Bool
  let pausesSceneWhenInactive: Bool
  var observerTokens: [Int] = []
  private var pausedScene = false

  /// The link of the engine attached to `scene`, if any.
  static func of(_ scene: Scene) -> SceneAudioLink? { scene.attachment as? SceneAudioLink }

  init(engine: AudioEngine, pansWithPosition: Bool, pausesSceneWhenInactive: Bool) {
    self.engine = engine
    self.core = engine.core
    self.pansWithPosition = pansWithPosition
    self.pausesSceneWhenInactive = pausesSceneWhenInactive
  }

  func sceneWillUpdate(_ scene: Scene) {
    engine.session.deliverTransitions()
    engine.musicIfMade?.deliverEvents()
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
