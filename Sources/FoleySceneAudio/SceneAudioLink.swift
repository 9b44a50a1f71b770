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
  /// table of plain values, so a pass over every slot touches no still emitter's node, and a
  /// pass over moving ones retains nothing. An update walks only the slots that can have changed
  /// (the near list, the moved slots, the far heap's due ones). Main-actor state walked for
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
    /// Placed again whenever the listener moves (it is within hearing), rather than when the
    /// listener's travel reaches its `recheckAtTravel` (the far heap's slots).
    var isNear = false
    /// Whether `nearSlots` lists it (until a walk of the list drops it).
    var isInNearList = false
    /// The key of its newest entry in the far heap; nan when it has none.
    var heapKey = Double.nan
  }
  /// The slots placed again whenever the listener moves: those within hearing. A slot that left
  /// the tier (or was freed) stays listed until the next walk drops it.
  @exclusivity(unchecked) private var nearSlots: [Int] = []
  /// The other slots, by the listener travel at which they could first be heard: a binary
  /// min-heap, so an update pops only the slots the listener may have come within hearing of and
  /// a field of far, still emitters costs nothing per update. A slot's older entries (its key
  /// fell since) are dropped when they come up.
  @exclusivity(unchecked) private var farHeap: [FarEntry] = []
  private struct FarEntry {
    var key: Double
    var slot: Int
  }
  /// The slots whose node moved since the last update (``markMoved(_:)``), up to
  /// `dirtyListLimit`; beyond it (most voices move) the update walks every slot instead, which
  /// costs less than listing them.
  @exclusivity(unchecked) private var dirtySlots: [Int] = []
  @exclusivity(unchecked) private var dirtyListLimit = 64
  @exclusivity(unchecked) private var dirtyOverflow = false
  /// Whether the near list and the far heap hold every live slot: false after an update that
  /// placed every slot anyway (doppler), until a full pass sorts them again.
  @exclusivity(unchecked) private var tiersValid = false
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

  /// Each followed voice's node and the placement it was last given (for tests: every update
  /// must leave each of them where its node is heard from the listener).
  package var followedPlacements: [(node: Node, placement: SpatialPlacement)] {
    slotState.compactMap { state in
      guard state.isLive, let node = state.node else { return nil }
      return (node.takeUnretainedValue(), state.placement)
    }
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
      recheckAtTravel: listenerTravel + slack(atDistance: distance), isDirty: false, isLive: true,
      isInNearList: slotState[slot].isInNearList)
    if tiersValid { sortIntoTier(slot) }
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
      for entry in audio.positionalSlots where entry.link == link && !slotState[entry.slot].isDirty {
        slotState[entry.slot].isDirty = true
        if dirtySlots.count < dirtyListLimit {
          dirtySlots.append(entry.slot)
        } else {
          dirtyOverflow = true
        }
      }
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
    dirtyListLimit = max(64, liveSlots / 4)
    for node in movedNodes { markMoved(node) }
    moves.removeAll(keepingCapacity: true)
    let doppler = spatial.speedOfSound != nil && step > 0
    let listener = listenerPosition
    let placesAll = lastListener == nil
    let travelBefore = listenerTravel
    if let last = lastListener {
      let moved = listener - last
      listenerTravel += (moved.dx * moved.dx + moved.dy * moved.dy).squareRoot()
    }
    lastListener = listener
    let listenerMoved = listenerTravel > travelBefore
    sceneReference.borrow { scene in
      placeMoved(
        in: scene, listener: listener, placesAll: placesAll, doppler: doppler, listenerMoved: listenerMoved)
    }
    if !moves.isEmpty { core.updatePlacements(moves, overFrames: frameLength) }
  }

  /// `placeVoices`' work, with the scene borrowed: a pass over every slot when every slot may
  /// need it (the first update, new spatial settings, doppler), otherwise only the slots that
  /// can have changed.
  @inline(__always)
  private func placeMoved(
    in scene: Scene, listener: Point, placesAll: Bool, doppler: Bool, listenerMoved: Bool
  ) {
    defer {
      dirtySlots.removeAll(keepingCapacity: true)
      dirtyOverflow = false
    }
    guard !placesAll, !doppler, tiersValid else {
      placeEvery(in: scene, listener: listener, placesAll: placesAll, doppler: doppler)
      return
    }
    if dirtyOverflow {
      // Most voices moved: one walk over the slots places the moved ones, those within hearing
      // (if the listener moved) and the far ones that are due. The far heap's entries of the
      // latter are dropped or pushed again when they come up.
      for slot in slotState.indices {
        guard slotState[slot].isLive,
          slotState[slot].isDirty || listenerTravel > slotState[slot].recheckAtTravel
        else { continue }
        placeSlot(slot, in: scene, listener: listener)
      }
      return
    }
    if listenerMoved {
      // Within hearing: every move of the listener changes how they are heard.
      var kept = 0
      for index in nearSlots.indices {
        let slot = nearSlots[index]
        if slotState[slot].isLive, slotState[slot].isNear {
          placeSlot(slot, in: scene, listener: listener)
        }
        if slotState[slot].isLive, slotState[slot].isNear {
          nearSlots[kept] = slot
          kept += 1
        } else {
          slotState[slot].isInNearList = false
        }
      }
      nearSlots.removeLast(nearSlots.count - kept)
    }
    for slot in dirtySlots where slotState[slot].isLive && slotState[slot].isDirty {
      placeSlot(slot, in: scene, listener: listener)
    }
    // Beyond hearing: only those the listener may have come within hearing of.
    while let top = farHeap.first, top.key < listenerTravel {
      popFar()
      let slot = top.slot
      guard slotState[slot].isLive, !slotState[slot].isNear, slotState[slot].heapKey == top.key else {
        continue  // freed, near now, or an older entry
      }
      slotState[slot].heapKey = .nan
      if slotState[slot].recheckAtTravel >= listenerTravel {
        sortIntoTier(slot)  // placed since, farther: not due yet
      } else {
        placeSlot(slot, in: scene, listener: listener)
      }
    }
    if farHeap.count > 2 * liveSlots + 64 { rebuildFarHeap() }
  }

  /// Places `slot` (its node's move taken) and sorts it into its tier again.
  @inline(__always)
  private func placeSlot(_ slot: Int, in scene: Scene, listener: Point) {
    slotState[slot].isDirty = false
    guard let heldNode = slotState[slot].node, let heldVoice = slotState[slot].voice else { return }
    heldNode.borrow { node in
      heldVoice.borrow { voice in
        place(slot, node: node, voice: voice, in: scene, listener: listener, doppler: false)
      }
    }
    // Most placed slots stay where they were (a moving voice within hearing): nothing to sort.
    if !slotState[slot].isNear || slotState[slot].recheckAtTravel > listenerTravel { sortIntoTier(slot) }
  }

  /// Puts `slot` in the near list when any move of the listener may change it, else in the far
  /// heap at the travel that could bring it within hearing.
  private func sortIntoTier(_ slot: Int) {
    let recheck = slotState[slot].recheckAtTravel
    if recheck <= listenerTravel {
      slotState[slot].isNear = true
      // Its entries in the far heap, if any, are out of date now.
      slotState[slot].heapKey = .nan
      if !slotState[slot].isInNearList {
        slotState[slot].isInNearList = true
        nearSlots.append(slot)
      }
      return
    }
    slotState[slot].isNear = false
    let pending = slotState[slot].heapKey
    // An entry due no later is already there: when it comes up the slot is pushed again.
    guard pending.isNaN || recheck < pending else { return }
    slotState[slot].heapKey = recheck
    pushFar(FarEntry(key: recheck, slot: slot))
  }

  private func pushFar(_ entry: FarEntry) {
    farHeap.append(entry)
    var child = farHeap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard farHeap[child].key < farHeap[parent].key else { break }
      farHeap.swapAt(child, parent)
      child = parent
    }
  }

  private func popFar() {
    let last = farHeap.removeLast()
    guard !farHeap.isEmpty else { return }
    farHeap[0] = last
    siftDown(from: 0)
  }

  private func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < farHeap.count else { return }
      let right = left + 1
      let child = right < farHeap.count && farHeap[right].key < farHeap[left].key ? right : left
      guard farHeap[child].key < farHeap[parent].key else { return }
      farHeap.swapAt(child, parent)
      parent = child
    }
  }

  /// The far heap again with one entry per far slot (older entries piled up: their keys fell).
  private func rebuildFarHeap() {
    farHeap.removeAll(keepingCapacity: true)
    for slot in slotState.indices where slotState[slot].isLive && !slotState[slot].isNear {
      slotState[slot].heapKey = slotState[slot].recheckAtTravel
      farHeap.append(FarEntry(key: slotState[slot].recheckAtTravel, slot: slot))
    }
    for index in stride(from: farHeap.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
  }

  /// A pass over every slot: each placed if it may have changed. Without doppler it sorts every
  /// slot into its tier afresh.
  private func placeEvery(in scene: Scene, listener: Point, placesAll: Bool, doppler: Bool) {
    if !doppler {
      for slot in nearSlots { slotState[slot].isInNearList = false }
      nearSlots.removeAll(keepingCapacity: true)
      farHeap.removeAll(keepingCapacity: true)
    }
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
    tiersValid = !doppler
    guard !doppler else { return }
    for slot in slotState.indices where slotState[slot].isLive {
      slotState[slot].heapKey = .nan
      sortIntoTier(slot)
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
