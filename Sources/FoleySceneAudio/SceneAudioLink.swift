package import FoleyAudio
package import FoleyScene

/// What an engine attached to a scene keeps on the game thread: the game-thread mailbox drained
/// at the start of each update, the frame's plays handed over at its end, and the
/// positional voices placed relative to the listener once per update.
@MainActor
package final class SceneAudioLink {
  package let engine: AudioEngine
  /// The engine's core, for the sound actions: reaching it through the engine would retain the
  /// engine on every trigger (and the session's weak reference to it makes that slow).
  package let core: MixerCore
  /// The scene (which owns the link).
  package unowned(unsafe) let scene: Scene
  /// Whether sounds started by actions are positional (follow their node).
  package let positionalActions: Bool
  package var spatial: SpatialAudio
  package let pausesSceneWhenInactive: Bool
  package var observerTokens: [Int] = []
  private var pausedScene = false
  /// Positional voices, the nodes they follow and where they were last placed; finished ones are
  /// dropped each update.
  private var placed: [(node: Node, voice: Voice, placement: SpatialPlacement, distance: Double)] = []
  /// The audio nodes in the scene.
  private(set) var audioNodes: [AudioNode] = []
  /// The last update's step, in sample frames: how long a placement change ramps.
  private var frameLength = 800
  /// The last update's step in seconds (doppler's velocities are distances over it).
  private var step = 1.0 / 60

  package init(
    engine: AudioEngine, scene: Scene, positional: Bool, spatial: SpatialAudio, pausesSceneWhenInactive: Bool
  ) {
    self.engine = engine
    self.core = engine.core
    self.scene = scene
    self.positionalActions = positional
    self.spatial = spatial
    self.pausesSceneWhenInactive = pausesSceneWhenInactive
  }

  /// The scene's slot for its link (its node audio state, as any node's, has a slot of its own).
  package nonisolated static let storageKey = NodeStorageKey<SceneAudioLink>()

  /// The link of the engine attached to `scene`, if any.
  package static func of(_ scene: Scene) -> SceneAudioLink? { scene[storage: storageKey] }

  package func sceneWillUpdate(_ scene: Scene, step: Double) {
    frameLength = min(max(64, Int(step * Double(core.format.sampleRate))), core.format.sampleRate / 10)
    self.step = step
    // The session's transitions and every engine-side event (music, sound maps, speech).
    engine.session.mailbox.drain()
    if pausesSceneWhenInactive {
      if !engine.session.isActive, !scene.isPaused {
        scene.isPaused = true
        pausedScene = true
      } else if engine.session.isActive, pausedScene {
        scene.isPaused = false
        pausedScene = false
      }
    }
    // Audio nodes pause with their scene (or a paused ancestor) and resume with it.
    for node in audioNodes { node.setHeldByScene(Self.isPausedInTree(node)) }
  }

  package func sceneDidUpdate(_ scene: Scene) {
    placeVoices()
    core.flushRequests()
  }

  // MARK: - Positions

  /// Where the listener is: the listener node's place in the scene, or the scene's centre.
  package var listenerPosition: Point {
    if let listener = scene.listener, listener.scene === scene { return listener.positionInScene }
    return Point(x: scene.size.width / 2, y: scene.size.height / 2)
  }

  /// The distance gain and pan of a sound at `node`.
  package func placement(for node: Node) -> SpatialPlacement { placementAndDistance(for: node).0 }

  private func placementAndDistance(for node: Node) -> (SpatialPlacement, Double) {
    let offset = node.positionInScene - listenerPosition
    let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
    return (
      SpatialPlacement(
        gain: spatial.gain(atDistance: distance), pan: spatial.pan(forHorizontalOffset: offset.dx)),
      distance
    )
  }

  /// Places `voice` at `node` from now on, each update.
  package func follow(_ voice: Voice, of node: Node) {
    let (placement, distance) = placementAndDistance(for: node)
    placed.append((node, voice, voice.initialPlacement ?? placement, distance))
  }

  /// Moves every positional voice to where its node is now, ramping over one update.
  private func placeVoices() {
    guard !placed.isEmpty else { return }
    placed.removeAll { $0.voice.isFinished }
    var moves: [(Voice, SpatialPlacement)] = []
    let doppler = spatial.speedOfSound != nil && step > 0
    for index in placed.indices where placed[index].node.scene === scene {
      let (node, voice, old, oldDistance) = placed[index]
      let (placement, distance) = placementAndDistance(for: node)
      if doppler {
        // Approaching is positive: the distance shrank over the step.
        let factor = spatial.dopplerFactor(approachingAt: (oldDistance - distance) / step)
        voice.setDoppler(factor, overFrames: frameLength)
      }
      placed[index].distance = distance
      if placement.gain == 0, spatial.stopsBeyondMaximumDistance {
        voice.stop(fadeOut: 0.05)
        continue
      }
      guard abs(old.gain - placement.gain) > 1e-6 || abs(old.pan - placement.pan) > 1e-6 else { continue }
      placed[index].placement = placement
      moves.append((voice, placement))
    }
    if !moves.isEmpty { core.updatePlacements(moves, overFrames: frameLength) }
  }

  // MARK: - Audio nodes

  package func register(_ node: AudioNode) {
    guard !audioNodes.contains(where: { $0 === node }) else { return }
    audioNodes.append(node)
  }

  package func unregister(_ node: AudioNode) {
    audioNodes.removeAll { $0 === node }
  }

  /// Whether `node` or one of its ancestors (the scene included) is paused.
  package static func isPausedInTree(_ node: Node) -> Bool {
    var current: Node? = node
    while let step = current {
      if step.isPaused { return true }
      current = step.parent
    }
    return false
  }

  /// The scene is going (detached, or deallocated): its audio nodes' sounds stop.
  package func stopAudioNodes() {
    for node in audioNodes { node.sceneWentAway() }
    audioNodes.removeAll()
  }
}
