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
  package var spatial: SpatialAudio {
    didSet { lastListener = nil }  // every placement is computed again
  }
  package let pausesSceneWhenInactive: Bool
  package var observerTokens: [Int] = []
  private var pausedScene = false
  /// Positional voices, the nodes they follow and where they were last placed; finished ones are
  /// dropped each update.
  private var placed: [(node: Node, voice: Voice)] = []
  /// Beside each entry of `placed`: its node, unretained (kept alive by `placed`), and where it
  /// was placed; plain values, so a pass over thousands of still emitters retains nothing.
  private var placedNodes: [Unmanaged<Node>] = []
  private var placedVoices: [Unmanaged<Voice>] = []
  /// The engine's count of finished voices when `placed` was last swept.
  private var finishedVoicesSeen = -1
  private var placedState: [PlacedState] = []
  /// Where a positional voice was placed, when its node last moved in the scene (its
  /// ``FoleyScene/Node/sceneTransformStamp``), and how far the listener may travel before it can
  /// be heard (beyond the maximum distance, at least the distance past it).
  private struct PlacedState {
    var placement: SpatialPlacement
    var distance: Double
    var stamp: UInt64
    var recheckAtTravel: Double
  }
  /// How far the listener has moved, in all, since the link was made.
  private var listenerTravel = 0.0
  /// Where the listener was at the last update.
  private var lastListener: Point?
  /// The audio nodes in the scene.
  private(set) var audioNodes: [AudioNode] = []
  private var audioNodeSet: Set<ObjectIdentifier> = []
  /// ``FoleyScene/Node/pauseClock`` and the audio nodes' count when their held state was last
  /// worked out.
  private var pauseClockSeen: UInt64?
  private var audioNodesSeen = 0
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
    // Audio nodes pause with their scene (or a paused ancestor) and resume with it: asked again
    // when a node was paused, resumed or moved in a tree, or an audio node joined. Siblings share
    // the answer for their parent's chain (a field of emitters is usually one parent's).
    guard Node.pauseClock != pauseClockSeen || audioNodes.count != audioNodesSeen else { return }
    pauseClockSeen = Node.pauseClock
    audioNodesSeen = audioNodes.count
    var lastParent: ObjectIdentifier?
    var parentPaused = false
    for node in audioNodes {
      var held = node.isPaused
      if !held, let parent = node.parent {
        let key = ObjectIdentifier(parent)
        if key != lastParent {
          lastParent = key
          parentPaused = Self.isPausedInTree(parent)
        }
        held = parentPaused
      }
      node.setHeldByScene(held)
    }
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
    placementAndDistance(at: node.positionInScene, listener: listenerPosition)
  }

  private func placementAndDistance(at position: Point, listener: Point) -> (SpatialPlacement, Double) {
    let offset = position - listener
    let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
    return (
      SpatialPlacement(
        gain: spatial.gain(atDistance: distance), pan: spatial.pan(forHorizontalOffset: offset.dx)),
      distance
    )
  }

  /// How far the listener can travel before a sound `distance` away could be heard: its distance
  /// beyond the maximum (0 within it: any move places it again).
  private func slack(atDistance distance: Double) -> Double {
    guard spatial.maximumDistance.isFinite, distance.isFinite, distance > spatial.maximumDistance else {
      return 0
    }
    return distance - spatial.maximumDistance
  }

  /// Places `voice` at `node` from now on, each update.
  package func follow(_ voice: Voice, of node: Node) {
    let (placement, distance) = placementAndDistance(at: node.positionInScene, listener: listenerPosition)
    placed.append((node, voice))
    placedNodes.append(.passUnretained(node))
    placedVoices.append(.passUnretained(voice))
    placedState.append(
      PlacedState(
        placement: voice.initialPlacement ?? placement, distance: distance, stamp: node.sceneTransformStamp,
        recheckAtTravel: listenerTravel + slack(atDistance: distance)))
  }

  /// Moves every positional voice to where its node is now, ramping over one update.
  private func placeVoices() {
    guard !placed.isEmpty else { return }
    var anyFinished = false
    let finishedVoices = core.counters.finishedVoices.load(ordering: .acquiring)
    // Only when a voice has finished somewhere since the last sweep.
    for entry in placedVoices where finishedVoices != finishedVoicesSeen {
      unowned(unsafe) let voice = entry.takeUnretainedValue()
      if voice.isFinished {
        anyFinished = true
        break
      }
    }
    finishedVoicesSeen = finishedVoices
    if anyFinished {
      let kept = placed.indices.filter { !placed[$0].voice.isFinished }
      placedNodes = kept.map { placedNodes[$0] }
      placedVoices = kept.map { placedVoices[$0] }
      placedState = kept.map { placedState[$0] }
      placed = kept.map { placed[$0] }
    }
    var moves: [(Voice, SpatialPlacement)] = []
    let doppler = spatial.speedOfSound != nil && step > 0
    let listener = listenerPosition
    // When the listener holds still, a node that did too changes nothing (and costs a compare).
    let placesAll = lastListener == nil
    if let last = lastListener {
      let moved = listener - last
      listenerTravel += (moved.dx * moved.dx + moved.dy * moved.dy).squareRoot()
    }
    lastListener = listener
    for index in placedNodes.indices {
      // Kept alive by `placed`: looked at without a retain (no closure either, which would be
      // checked for the main actor on every call).
      unowned(unsafe) let node = placedNodes[index].takeUnretainedValue()
      guard node.parent === scene || node.scene === scene else { continue }
      // A node that has not moved, with the listener no nearer than it could be heard from,
      // keeps its placement (a field of emitters costs a compare each).
      let stamp = node.sceneTransformStamp
      if !placesAll, !doppler, stamp == placedState[index].stamp,
        listenerTravel <= placedState[index].recheckAtTravel
      {
        continue
      }
      let position = node.positionInScene
      let voice = placed[index].voice
      let (old, oldDistance) = (placedState[index].placement, placedState[index].distance)
      let (placement, distance) = placementAndDistance(at: position, listener: listener)
      placedState[index].stamp = stamp
      placedState[index].recheckAtTravel = listenerTravel + slack(atDistance: distance)
      if doppler {
        // Approaching is positive: the distance shrank over the step.
        let factor = spatial.dopplerFactor(approachingAt: (oldDistance - distance) / step)
        voice.setDoppler(factor, overFrames: frameLength)
      }
      placedState[index].distance = distance
      if placement.gain == 0, spatial.stopsBeyondMaximumDistance {
        voice.stop(fadeOut: 0.05)
        continue
      }
      guard abs(old.gain - placement.gain) > 1e-6 || abs(old.pan - placement.pan) > 1e-6 else { continue }
      placedState[index].placement = placement
      moves.append((voice, placement))
    }
    if !moves.isEmpty { core.updatePlacements(moves, overFrames: frameLength) }
  }

  // MARK: - Audio nodes

  package func register(_ node: AudioNode) {
    guard audioNodeSet.insert(ObjectIdentifier(node)).inserted else { return }
    audioNodes.append(node)
  }

  package func unregister(_ node: AudioNode) {
    guard audioNodeSet.remove(ObjectIdentifier(node)) != nil else { return }
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
    audioNodeSet.removeAll()
  }
}
