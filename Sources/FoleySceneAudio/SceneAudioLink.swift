package import FoleyAudio
import FoleyCore
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
  let sceneReference: Unmanaged<Scene>
  /// Whether sounds started by actions are positional (follow their node).
  package let positionalActions: Bool
  package var spatial: SpatialAudio {
    didSet { lastListener = nil }  // every placement is computed again
  }
  package let pausesSceneWhenInactive: Bool
  var observerTokens: [Observation] = []
  private var pausedScene = false
  /// The plays the scene's actions, audio nodes and sound map asked for since the last update,
  /// gathered without a lock and handed to the core once, after the update.
  @exclusivity(unchecked) var batch = PlayBatch()
  /// Positional voices and the nodes they follow, in slots that keep their index while they are
  /// used (a finished voice's slot is freed and reused), with their placement state: one flat
  /// table of plain values (``PlacedSlotTable``), so a pass over every slot touches no still emitter's node, and a
  /// pass over moving ones retains nothing. An update walks only the slots that can have changed
  /// (the near list, the moved slots, the far heap's due ones). Main-actor state walked for
  /// every voice each update: the runtime's exclusivity checks are left off (nothing here is
  /// touched twice at once), as on `Node`.
  @exclusivity(unchecked) var slotState = PlacedSlotTable()
  @exclusivity(unchecked) var freeSlots: [Int] = []
  var liveSlots: Int { slotState.count - freeSlots.count }
  /// The engine's count of finished voices when the slots were last swept.
  @exclusivity(unchecked) var finishedVoicesSeen = -1
  /// The placements that changed in an update, kept between updates so a frame does not grow a
  /// new list (each names its voice unretained: the slot's retain keeps it, and a freed slot's
  /// is given back on the queue, after the moves: `releases`).
  @exclusivity(unchecked) var moves: [PlacementMove] = []
  /// The voices of slots freed since the last update, released on the queue after the moves
  /// sent before (which name them unretained).
  @exclusivity(unchecked) var releases: [Unmanaged<Voice>] = []
  /// The scene's moved nodes of the last update, in storage handed back and forth with it.
  @exclusivity(unchecked) var movedNodes: [Node] = []
  /// Where a positional voice was placed, whether its node (or an ancestor) moved since, and how
  /// far the listener may travel before it must be placed again: at once within the maximum
  /// distance, and beyond it only once the listener could have come within it.
  ///
  /// A live slot owns one retain of its node and of its voice (taken in ``follow(_:of:)``, given
  /// back in ``free(_:)``: the voice's on the queue, after the moves that name it), held as
  /// `Unmanaged` so reading them in the update costs no reference counting.
  struct PlacedState {
    var node: Unmanaged<Node>?
    var voice: Unmanaged<Voice>?
    var placement = SpatialPlacement(gain: 0, pan: 0)
    /// Where its node was in the scene when it was last placed (nan before): an update in which
    /// most nodes moved finds the moved ones by comparing, instead of marking each moved node's
    /// slots through its audio state.
    var scenePosition = Point(x: .nan, y: .nan)
    var distance = 0.0
    var recheckAtTravel = 0.0
    var isDirty = false
    var isLive = false
    /// Placed again whenever the listener moves (it is within hearing), rather than when the
    /// listener's travel reaches its `recheckAtTravel` (the far heap's slots).
    var isNear = false
    /// Whether `nearSlots` lists it (until a walk of the list drops it).
    var isInNearList = false
    /// The key of its newest entry in the far heap; nan when it has none.
    var heapKey = Double.nan
    /// The geometry version it was last placed through on this thread (-1: none); the worker
    /// places it while that is the scene's.
    var acousticVersion = -1
    /// Which voice holds the slot (a new number at each ``follow``), for the worker's answers.
    var occupant: UInt32 = 0
    /// What its voice was last told of the walls (cutoff, send, occlusion, portal).
    var heardAcoustics = HeardAcoustics.none
  }
  /// The slots placed again whenever the listener moves: those within hearing. A slot that left
  /// the tier (or was freed) stays listed until the next walk drops it.
  @exclusivity(unchecked) var nearSlots: [Int] = []
  /// The other slots, by the listener travel at which they could first be heard: a binary
  /// min-heap, so an update pops only the slots the listener may have come within hearing of and
  /// a field of far, still emitters costs nothing per update. A slot's older entries (its key
  /// fell since) are dropped when they come up.
  @exclusivity(unchecked) var farHeap = TravelHeap()
  /// The slots whose node moved since the last update (``markMoved(_:)``), up to
  /// `dirtyListLimit`; beyond it (most voices move) the update walks every slot instead, which
  /// costs less than listing them. With more moved nodes than that (the scene stops listing them
  /// there: `Scene.movedNodesLimit`), nothing is marked: the walk compares each slot's node with
  /// where it was placed.
  @exclusivity(unchecked) var dirtySlots: [Int] = []
  @exclusivity(unchecked) var dirtyListLimit = 64
  @exclusivity(unchecked) var dirtyOverflow = false
  /// Whether the near list and the far heap hold every live slot: false after an update that
  /// placed every slot anyway (doppler), until a full pass sorts them again.
  @exclusivity(unchecked) var tiersValid = false
  /// How far the listener has moved, in all, since the link was made.
  @exclusivity(unchecked) var listenerTravel = 0.0
  /// Where the listener was at the last update.
  var lastListener: Point?
  /// The scene's walls, doors and rooms as last built, and the version of them it was built from.
  @exclusivity(unchecked) var geometry: AcousticGeometry?
  @exclusivity(unchecked) var geometryVersion = -1
  /// The updates placed so far: a moving voice's walls are walked again
  /// ``SpatialAudio/geometryUpdateSpread`` updates after its last walk.
  @exclusivity(unchecked) var placingUpdate = 0
  /// Whether this update's placements go through the scene's geometry (it has some).
  @exclusivity(unchecked) var placesThroughGeometry = false
  /// The moving voices placed through the walls in this update, for ``acousticWorker``; made
  /// once the scene has geometry.
  @exclusivity(unchecked) var acousticRequests: [AcousticWorker.Request] = []
  var acousticWorker: AcousticWorker?
  @exclusivity(unchecked) var occupants: UInt32 = 0
  /// The reverb return last set from the listener's room (nil: never, or the scene has no rooms).
  var listenerReturn: Double?
  /// The captioned or rumbling positional voices started since the last update and the nodes
  /// they follow, until the captions and the haptics take them.
  var accessibleNodes: [ObjectIdentifier: (voice: Voice, node: Node)] = [:]
  /// Where the listener is, for ``placement(of:)`` during the captions' and haptics' update.
  var accessibilityListener = Point.zero
  /// The audio nodes in the scene.
  private(set) var audioNodes: [AudioNode] = []
  private var audioNodeSet: Set<ObjectIdentifier> = []
  /// ``FoleyScene/Node/pauseClock`` and the audio nodes' count when their held state was last
  /// worked out.
  private var pauseClockSeen: UInt64?
  private var audioNodesSeen = 0
  /// The last update's step, in sample frames: how long a placement change ramps.
  var frameLength = 800
  /// How long the placements the mix follows glide (``PlacementGlide``), and this update's glide.
  var followGlides = PlacementGlide()
  var followGlide = 0
  /// The last update's step in seconds (doppler's velocities are distances over it), and whether
  /// the link had a speed of sound then.
  var step = 1.0 / 60
  var dopplerOn = false

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
    acousticWorker?.stop()
    // The scene went without a detach: its positional sounds stop, as a detach stops them (a
    // looping one would otherwise play on with nothing left to stop it), and the slots'
    // references go with the link.
    for slot in slotState.indices where slotState[slot].isLive {
      guard let voice = slotState[slot].voice else { continue }
      voice.takeUnretainedValue().stop()
      releases.append(voice)
      slotState[slot].node?.release()
    }
    slotState.deallocate()
    core.release(afterQueue: releases)
    // Plays asked for since the last update still go; the voices kept for reuse are let go.
    core.flushRequests(&batch)
    batch.voices.removeAll()
  }

  /// The scene's slot for its link (its node audio state, as any node's, has a slot of its own).
  nonisolated static let storageKey = NodeStorageKey<SceneAudioLink>()

  /// The link of the engine attached to `scene`, if any.
  package static func of(_ scene: Scene) -> SceneAudioLink? { scene[storage: storageKey] }

  func sceneWillUpdate(_ scene: Scene, step: Double) {
    // Held within 64 frames…0.1 s in Double first: a step of 1e308 (or infinity) must not trap.
    let rate = Double(core.format.sampleRate)
    let frames = step.isFinite ? step * rate : rate  // a finite step may overflow to infinity here
    frameLength = Int(Swift.min(Swift.max(frames.isNaN ? 800 : frames, 64), Swift.max(64, rate / 10)))
    self.step = step
    // The session's transitions and every engine-side event (music, sound maps, speech).
    engine.session.mailbox.drain()
    // A closed engine's scene updates on: its sounds do nothing, said once.
    if engine.refusesUseAfterClose("scene update") { return }
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

  func sceneDidUpdate(_ scene: Scene) {
    placeVoices()
    core.flushRequests(&batch)
    updateAccessibility()
    updateListenerRoom()
  }

  // MARK: - Positions

  /// Where the listener is: the listener node's place in the scene, or the scene's centre.
  var listenerPosition: Point {
    // Borrowed: every positional start asks, and the retains and releases of the scene and the
    // listener were most of its cost.
    sceneReference.borrow { scene in
      if let listener = scene.listener, listener.inParentHierarchy(scene) { return listener.positionInScene }
      let size = scene.size
      return Point(x: size.width / 2, y: size.height / 2)
    }
  }

  func placementAndDistance(at position: Point, listener: Point) -> (SpatialPlacement, Double) {
    let offset = position - listener
    return spatial.placement(dx: offset.dx, dy: offset.dy)
  }

  /// How far the listener can travel before a sound `distance` away could be heard: its distance
  /// beyond the maximum (0 within it: any move places it again).
  func slack(atDistance distance: Double) -> Double {
    guard spatial.maximumDistance.isFinite, distance.isFinite, distance > spatial.maximumDistance else {
      return 0
    }
    return distance - spatial.maximumDistance
  }

  /// Where `node` is in the scene, and how a sound there is heard from the listener (through the
  /// scene's walls, doors and rooms, if it has any).
  package func place(of node: Node) -> ScenePlace {
    let position = node.positionInScene
    let listener = listenerPosition
    var (placement, distance) = placementAndDistance(at: position, listener: listener)
    var path: AcousticPath?
    if let found = acousticPath(from: listener, to: position) {
      placement = SpatialPlacement(gain: found.gain, pan: found.pan)
      path = found
    }
    return ScenePlace(position: position, placement: placement, distance: distance, path: path)
  }

  /// Places `voice` at `node` from now on, `place` being where it is now (a positional start
  /// reckons it once, for the voice's first placement and for this).
  package func follow(_ voice: Voice, of node: Node, at place: ScenePlace) {
    let (position, placement, distance) = (place.position, place.placement, place.distance)
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = free
    } else {
      slot = slotState.count
      slotState.append(PlacedState())
    }
    slotState[slot] = PlacedState(
      node: .passRetained(node), voice: .passRetained(voice),
      placement: voice.initialPlacement ?? placement, scenePosition: position, distance: distance,
      recheckAtTravel: listenerTravel + slack(atDistance: distance), isDirty: false, isLive: true,
      isInNearList: slotState[slot].isInNearList)
    occupants &+= 1
    slotState[slot].occupant = occupants
    // Its start was placed through the walls as they are: the worker places it from now on.
    if place.path != nil, geometry != nil { slotState[slot].acousticVersion = geometryVersion }
    if tiersValid { sortIntoTier(slot) }
    // The node keeps its own slots (a field in its storage, not a table to search per move).
    NodeAudio.ensure(node).positionalSlots.append(PositionalSlot(link: ObjectIdentifier(self), slot: slot))
    node.watch()
  }

  func free(_ slot: Int) {
    guard slotState[slot].isLive, let held = slotState[slot].node else { return }
    let node = held.takeRetainedValue()
    node.unwatch()
    NodeAudio.of(node)?.forgetPositionalSlot(slot, of: ObjectIdentifier(self))
    // Released on the queue, after any move of it already sent (moves name it unretained).
    if let voice = slotState[slot].voice { releases.append(voice) }
    slotState[slot].node = nil
    slotState[slot].voice = nil
    slotState[slot].isLive = false
    freeSlots.append(slot)
  }

  /// Marks the voices of `node` and of the watched nodes below it as moved.
  func markMoved(_ node: Unmanaged<Node>) {
    node.borrow { markBorrowedMoved($0) }
  }

  @inline(__always)
  private func markBorrowedMoved(_ node: Node) {
    if node.watchers > 0, let audio = node.unretainedStorage(NodeAudio.storageKey) {
      let link = ObjectIdentifier(self)
      // Borrowed: every moved node's state is read each update.
      Unmanaged<NodeAudio>.fromOpaque(audio).borrow { audio in
        // A node that moved to another scene may still hold slots of the link it left. (By
        // index: an iterator would retain the list.)
        for index in 0..<audio.positionalSlots.count {
          let entry = audio.positionalSlots[index]
          guard entry.link == link, !slotState[entry.slot].isDirty else { continue }
          slotState[entry.slot].isDirty = true
          if dirtySlots.count < dirtyListLimit {
            dirtySlots.append(entry.slot)
          } else {
            dirtyOverflow = true
          }
        }
      }
    }
    guard node.watchedInSubtree > node.watchers else { return }
    for child in node.children where child.watchedInSubtree > 0 { markMoved(.passUnretained(child)) }
  }

  // MARK: - Audio nodes

  func register(_ node: AudioNode) {
    guard audioNodeSet.insert(ObjectIdentifier(node)).inserted else { return }
    audioNodes.append(node)
  }

  func unregister(_ node: AudioNode) {
    guard audioNodeSet.remove(ObjectIdentifier(node)) != nil else { return }
    audioNodes.isolatedRemoveAll { $0 === node }
  }

  /// Whether `node` or one of its ancestors (the scene included) is paused.
  static func isPausedInTree(_ node: Node) -> Bool {
    var current: Node? = node
    while let step = current {
      if step.isPaused { return true }
      current = step.parent
    }
    return false
  }

  /// The scene is going (detached, or deallocated): its audio nodes' sounds stop.
  func stopAudioNodes() {
    // The plays asked for before the scene went still go.
    core.flushRequests(&batch)
    scene.tracksMoves = false
    for slot in slotState.indices where slotState[slot].isLive { free(slot) }
    core.release(afterQueue: releases)
    releases.removeAll()
    for node in audioNodes { node.sceneWentAway() }
    audioNodes.removeAll()
    audioNodeSet.removeAll()
  }
}

/// A node's place in its scene and how a sound there is heard: what a positional start reckons
/// once and hands to the link.
package struct ScenePlace {
  package var position: Point
  package var placement: SpatialPlacement
  package var distance: Double
  /// How it is heard through the scene's walls, doors and rooms (nil: the scene has none).
  package var path: AcousticPath?
}
