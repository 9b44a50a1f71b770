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
  /// The scene (which owns the link), unretained.
  package var scene: Scene { sceneReference.takeUnretainedValue() }
  /// The scene, held unretained for borrowing: the update's passes call through it with no
  /// reference counting (an `unowned(unsafe)` load is still retained around a call out).
  private let sceneReference: Unmanaged<Scene>
  /// Whether sounds started by actions are positional (follow their node).
  package let positionalActions: Bool
  package var spatial: SpatialAudio {
    didSet { lastListener = nil }  // every placement is computed again
  }
  package let pausesSceneWhenInactive: Bool
  package var observerTokens: [Int] = []
  private var pausedScene = false
  /// Positional voices and the nodes they follow, in slots that keep their index while they are
  /// used (a finished voice's slot is freed and reused), with their placement state: one flat
  /// table of plain values, so a pass over thousands of still emitters reads only those and
  /// touches no node, and a pass over moving ones retains nothing. Main-actor state walked for
  /// every voice each update: the runtime's exclusivity checks are left off (nothing here is
  /// touched twice at once), as on `Node`.
  @exclusivity(unchecked) private var slotState: [PlacedState] = []
  @exclusivity(unchecked) private var freeSlots: [Int] = []
  private var liveSlots: Int { slotState.count - freeSlots.count }
  /// The engine's count of finished voices when the slots were last swept.
  @exclusivity(unchecked) private var finishedVoicesSeen = -1
  /// The placements that changed in an update, kept between updates so a frame does not grow a
  /// new list.
  @exclusivity(unchecked) private var moves: [(Voice, SpatialPlacement)] = []
  /// The scene's moved nodes of the last update, in storage handed back and forth with it.
  @exclusivity(unchecked) private var movedNodes: [Node] = []
  /// Where a positional voice was placed, whether its node (or an ancestor) moved since, and how
  /// far the listener may travel before it must be placed again: at once within the maximum
  /// distance, and beyond it only once the listener could have come within it.
  ///
  /// A live slot owns one retain of its node and of its voice (taken in ``follow(_:of:)``, given
  /// back in ``free(_:)``), held as `Unmanaged` so reading them in the update costs no reference
  /// counting.
  private struct PlacedState {
    var node: Unmanaged<Node>?
    var voice: Unmanaged<Voice>?
    var placement = SpatialPlacement(gain: 0, pan: 0)
    var distance = 0.0
    var recheckAtTravel = 0.0
    var isDirty = false
    var isLive = false
  }
  /// How far the listener has moved, in all, since the link was made.
  @exclusivity(unchecked) private var listenerTravel = 0.0
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
    self.sceneReference = .passUnretained(scene)
    self.positionalActions = positional
    self.spatial = spatial
    self.pausesSceneWhenInactive = pausesSceneWhenInactive
    scene.tracksMoves = true
  }

  deinit {
    // The scene went without a detach: its positional sounds stop, as a detach stops them (a
    // looping one would otherwise play on with nothing left to stop it), and the slots'
    // references go with the link.
    for state in slotState where state.isLive {
      state.voice?.takeRetainedValue().stop()
      state.node?.release()
    }
  }

  /// The scene's slot for its link (its node audio state, as any node's, has a slot of its own).
  package nonisolated static let storageKey = NodeStorageKey<SceneAudioLink>()

  /// The link of the engine attached to `scene`, if any.
  package static func of(_ scene: Scene) -> SceneAudioLink? { scene[storage: storageKey] }

  package func sceneWillUpdate(_ scene: Scene, step: Double) {
    // Held within 64 frames…0.1 s in Double first: a step of 1e308 (or infinity) must not trap.
    let rate = Double(core.format.sampleRate)
    frameLength = Int((step.isFinite ? step * rate : rate).clamped(to: 64...max(64, rate / 10), or: 800))
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
    // Borrowed: every positional start asks, and the retains and releases of the scene and the
    // listener were most of its cost.
    sceneReference.borrow { scene in
      if let listener = scene.listener, listener.inParentHierarchy(scene) { return listener.positionInScene }
      let size = scene.size
      return Point(x: size.width / 2, y: size.height / 2)
    }
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
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = free
    } else {
      slot = slotState.count
      slotState.append(PlacedState())
    }
    slotState[slot] = PlacedState(
      node: .passRetained(node), voice: .passRetained(voice),
      placement: voice.initialPlacement ?? placement, distance: distance,
      recheckAtTravel: listenerTravel + slack(atDistance: distance), isDirty: false, isLive: true)
    // The node keeps its own slots (a field in its storage, not a table to search per move).
    NodeAudio.ensure(node).positionalSlots.append(PositionalSlot(link: ObjectIdentifier(self), slot: slot))
    node.watch()
  }

  private func free(_ slot: Int) {
    guard slotState[slot].isLive, let held = slotState[slot].node else { return }
    let node = held.takeRetainedValue()
    node.unwatch()
    let link = ObjectIdentifier(self)
    NodeAudio.of(node)?.positionalSlots.isolatedRemoveAll { $0.link == link && $0.slot == slot }
    slotState[slot].voice?.release()
    slotState[slot].node = nil
    slotState[slot].voice = nil
    slotState[slot].isLive = false
    freeSlots.append(slot)
  }

  /// Marks the voices of `node` and of the watched nodes below it as moved.
  private func markMoved(_ node: Node) {
    if node.watchers > 0, let audio = NodeAudio.of(node) {
      let link = ObjectIdentifier(self)
      // A node that moved to another scene may still hold slots of the link it left.
      for entry in audio.positionalSlots where entry.link == link { slotState[entry.slot].isDirty = true }
    }
    guard node.watchedInSubtree > node.watchers else { return }
    for child in node.children where child.watchedInSubtree > 0 { markMoved(child) }
  }

  /// Moves every positional voice whose node moved, or that the listener's move may change, to
  /// where it is heard now, ramping over one update.
  private func placeVoices() {
    scene.takeMovedNodes(into: &movedNodes)
    // Emptied (its storage kept) before the update ends: a moved node is not held past it.
    defer { movedNodes.removeAll(keepingCapacity: true) }
    guard liveSlots > 0 else { return }
    let finishedVoices = core.counters.finishedVoices.load(ordering: .acquiring)
    if finishedVoices != finishedVoicesSeen {
      // A voice finished somewhere since the last sweep: free the slots of ours that did.
      finishedVoicesSeen = finishedVoices
      for slot in slotState.indices where slotState[slot].voice?.takeUnretainedValue().isFinished == true {
        free(slot)
      }
    }
    for node in movedNodes { markMoved(node) }
    moves.removeAll(keepingCapacity: true)
    let doppler = spatial.speedOfSound != nil && step > 0
    let listener = listenerPosition
    let placesAll = lastListener == nil
    if let last = lastListener {
      let moved = listener - last
      listenerTravel += (moved.dx * moved.dx + moved.dy * moved.dy).squareRoot()
    }
    lastListener = listener
    sceneReference.borrow { scene in
      placeMoved(in: scene, listener: listener, placesAll: placesAll, doppler: doppler)
    }
    if !moves.isEmpty { core.updatePlacements(moves, overFrames: frameLength) }
  }

  /// `placeVoices`' pass over the slots, with the scene borrowed.
  @inline(__always)
  private func placeMoved(in scene: Scene, listener: Point, placesAll: Bool, doppler: Bool) {
    for slot in slotState.indices {
      // A voice whose node has not moved, with the listener no nearer than it could be heard
      // from, keeps its placement: a field of still emitters costs a look at two plain values.
      guard slotState[slot].isLive,
        placesAll || doppler || slotState[slot].isDirty || listenerTravel > slotState[slot].recheckAtTravel,
        let heldNode = slotState[slot].node, let heldVoice = slotState[slot].voice
      else { continue }
      slotState[slot].isDirty = false
      // Borrowed from the slot, which holds them: no reference counting (an `unowned(unsafe)`
      // local is still retained around each call out).
      heldNode.borrow { node in
        heldVoice.borrow { voice in
          place(slot, node: node, voice: voice, in: scene, listener: listener, doppler: doppler)
        }
      }
    }
  }

  /// Places the voice in `slot` at where its node is now (`placeVoices`' step for one voice).
  @inline(__always)
  private func place(_ slot: Int, node: Node, voice: Voice, in scene: Scene, listener: Point, doppler: Bool) {
    guard node.inParentHierarchy(scene) else { return }
    let old = slotState[slot].placement
    let oldDistance = slotState[slot].distance
    let (placement, distance) = placementAndDistance(at: node.positionInScene, listener: listener)
    slotState[slot].recheckAtTravel = listenerTravel + slack(atDistance: distance)
    slotState[slot].distance = distance
    if doppler {
      // Approaching is positive: the distance shrank over the step.
      let factor = spatial.dopplerFactor(approachingAt: (oldDistance - distance) / step)
      voice.setDoppler(factor, overFrames: frameLength)
    }
    if placement.gain == 0, spatial.stopsBeyondMaximumDistance {
      voice.stop(fadeOut: 0.05)
      return
    }
    guard abs(old.gain - placement.gain) > 1e-6 || abs(old.pan - placement.pan) > 1e-6 else { return }
    slotState[slot].placement = placement
    // The queue's list holds its own reference: the slot may be freed before the queue runs.
    moves.append((voice, placement))
  }

  // MARK: - Audio nodes

  package func register(_ node: AudioNode) {
    guard audioNodeSet.insert(ObjectIdentifier(node)).inserted else { return }
    audioNodes.append(node)
  }

  package func unregister(_ node: AudioNode) {
    guard audioNodeSet.remove(ObjectIdentifier(node)) != nil else { return }
    audioNodes.isolatedRemoveAll { $0 === node }
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
    scene.tracksMoves = false
    for slot in slotState.indices where slotState[slot].isLive { free(slot) }
    for node in audioNodes { node.sceneWentAway() }
    audioNodes.removeAll()
    audioNodeSet.removeAll()
  }
}
