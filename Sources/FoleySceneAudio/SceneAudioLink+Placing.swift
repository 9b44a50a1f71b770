import FoleyAudio
import FoleyScene

/// The link's placing pass, once per update: the positional voices whose node moved, and those
/// the listener's move may change, placed where they are heard now. The slots within hearing are
/// in a list placed again whenever the listener moves, the moved nodes' slots in another, and
/// the rest in a ``TravelHeap`` by the listener travel at which each could first be heard.
extension SceneAudioLink {
  /// Moves every positional voice whose node moved, or that the listener's move may change, to
  /// where it is heard now, ramping over one update.
  func placeVoices() {
    let manyMoved = scene.takeMovedNodes(into: &movedNodes)
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
    // More moves than that next time: the scene only says so, and the walk compares places.
    scene.movedNodesLimit = dirtyListLimit
    if manyMoved {
      // Most nodes moved (the scene stopped listing them): marking each one's slots would reach
      // its storage, its audio state and its slot list, three more objects per voice, where
      // the walk over every slot reads only the node, which the game has just moved.
      dirtyOverflow = true
    } else {
      // By index, unretained: the list holds them (a `for in` retained each node and the list).
      for index in movedNodes.indices { markMoved(.passUnretained(movedNodes[index])) }
    }
    moves.removeAll(keepingCapacity: true)
    placingUpdate += 1
    // Placements the mix follows glide over this update and what the mix has not played of the
    // last glide, as the queue's moves do.
    followGlide = followGlides.next(
      updateFrames: frameLength, mixed: core.mixer.framesMixed.load(ordering: .acquiring),
      bufferFrames: core.format.bufferFrames, sampleRate: core.format.sampleRate)
    let doppler = spatial.speedOfSound != nil && step > 0
    let listener = listenerPosition
    // A wall, a door or a room changed or moved: every voice is heard through it again.
    if acousticsChanged(moved: movedNodes, manyMoved: manyMoved) { lastListener = nil }
    placesThroughGeometry = builtGeometry()
    // The paths the worker worked out in the last update's frame, placed now.
    takeAcousticAnswers()
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
        in: scene, listener: listener, placesAll: placesAll, doppler: doppler, listenerMoved: listenerMoved,
        comparesPlaces: manyMoved)
    }
    if dopplerOn, spatial.speedOfSound == nil {
      // Doppler turned off: every voice back to its own pitch.
      for slot in slotState.indices where slotState[slot].isLive {
        slotState[slot].voice?.borrow { $0.setDoppler(1, overFrames: frameLength) }
      }
    }
    dopplerOn = spatial.speedOfSound != nil
    startAcousticWork()
    if !moves.isEmpty || !releases.isEmpty {
      // Both lists come back empty, with the storage of the ones the queue finished with.
      core.updatePlacements(&moves, releasing: &releases, overFrames: frameLength)
    }
  }

  /// `placeVoices`' work, with the scene borrowed: a pass over every slot when every slot may
  /// need it (the first update, new spatial settings, doppler), otherwise only the slots that
  /// can have changed. With `comparesPlaces` (most nodes moved, none marked), a walk finds the
  /// moved ones by comparing each slot's node with where it was placed.
  @inline(__always)
  func placeMoved(
    in scene: Scene, listener: Point, placesAll: Bool, doppler: Bool, listenerMoved: Bool,
    comparesPlaces: Bool
  ) {
    defer {
      dirtySlots.removeAll(keepingCapacity: true)
      dirtyOverflow = false
    }
    guard !placesAll, !doppler, tiersValid else {
      placeEvery(
        in: scene, listener: listener, placesAll: placesAll, doppler: doppler, comparesPlaces: comparesPlaces)
      return
    }
    if dirtyOverflow {
      // Most voices moved: one walk over the slots places the moved ones, those within hearing
      // (if the listener moved) and the far ones that are due. The far heap's entries of the
      // latter are dropped or pushed again when they come up.
      for slot in slotState.indices where slotState[slot].isLive {
        let due = slotState[slot].isDirty || listenerTravel > slotState[slot].recheckAtTravel
        guard comparesPlaces else {
          if due { placeSlot(slot, in: scene, listener: listener) }
          continue
        }
        switch newPlace(of: slot, in: scene) {
        case .outside: if due { leaveOutside(slot) }
        case .unmoved(let position): if due { placeSlot(slot, at: position, listener: listener) }
        case .moved(let position): placeSlot(slot, at: position, listener: listener)
        }
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
      farHeap.removeFirst()
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

  /// Where a slot's node is now, for a walk that compares places.
  enum NewPlace {
    /// Not in the link's scene (it is not placed).
    case outside
    /// Where the slot was last placed.
    case unmoved(Point)
    /// Somewhere else.
    case moved(Point)
  }

  /// Where `slot`'s node is in `scene` now, against where the slot was last placed: one walk up
  /// the node's ancestors, each borrowed.
  @inline(__always)
  func newPlace(of slot: Int, in scene: Scene) -> NewPlace {
    guard let heldNode = slotState[slot].node,
      let position = heldNode.borrow({ $0.position(in: scene) })
    else { return .outside }
    return position == slotState[slot].scenePosition ? .unmoved(position) : .moved(position)
  }

  /// Places `slot` (its node's move taken) and sorts it into its tier again.
  @inline(__always)
  func placeSlot(_ slot: Int, in scene: Scene, listener: Point) {
    guard let heldNode = slotState[slot].node, let position = heldNode.borrow({ $0.position(in: scene) })
    else { return leaveOutside(slot) }
    placeSlot(slot, at: position, listener: listener)
  }

  /// A due slot whose node is not in the scene: not placed (it keeps its placement), its move
  /// taken and its tier sorted as a placed slot's.
  @inline(__always)
  func leaveOutside(_ slot: Int) {
    slotState[slot].isDirty = false
    sortIntoTierIfNeeded(slot)
  }

  /// Places `slot` at `position` (its node's place in the scene, found by the caller) and sorts
  /// it into its tier again.
  @inline(__always)
  func placeSlot(_ slot: Int, at position: Point, listener: Point) {
    slotState[slot].isDirty = false
    if let heldVoice = slotState[slot].voice {
      heldVoice.borrow { voice in
        place(slot, voice: voice, at: position, listener: listener, doppler: false)
      }
    }
    sortIntoTierIfNeeded(slot)
  }

  /// Sorts a slot just placed into its tier, unless it stays where it was.
  @inline(__always)
  func sortIntoTierIfNeeded(_ slot: Int) {
    // Most placed slots stay where they were (a moving voice within hearing): nothing to sort.
    if !slotState[slot].isNear || slotState[slot].recheckAtTravel > listenerTravel { sortIntoTier(slot) }
  }

  /// Puts `slot` in the near list when any move of the listener may change it, else in the far
  /// heap at the travel that could bring it within hearing.
  func sortIntoTier(_ slot: Int) {
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
    farHeap.push(TravelHeap.Entry(key: recheck, slot: slot))
  }

  /// The far heap again with one entry per far slot (older entries piled up: their keys fell).
  func rebuildFarHeap() {
    let far = slotState.indices.filter { slotState[$0].isLive && !slotState[$0].isNear }
    for slot in far { slotState[slot].heapKey = slotState[slot].recheckAtTravel }
    farHeap.rebuild(
      from: far.lazy.map { TravelHeap.Entry(key: self.slotState[$0].recheckAtTravel, slot: $0) })
  }

  /// A pass over every slot: each placed if it may have changed (with `comparesPlaces`, a node
  /// no longer where its slot was placed has moved). Without doppler it sorts every slot into
  /// its tier afresh.
  func placeEvery(in scene: Scene, listener: Point, placesAll: Bool, doppler: Bool, comparesPlaces: Bool) {
    if !doppler {
      for slot in nearSlots { slotState[slot].isInNearList = false }
      nearSlots.removeAll(keepingCapacity: true)
      farHeap.removeAll()
    }
    for slot in slotState.indices where slotState[slot].isLive {
      // A voice whose node has not moved, with the listener no nearer than it could be heard
      // from, keeps its placement: a field of still emitters costs a look at two plain values
      // (and, when most nodes moved, a walk up from its node).
      let mayHaveChanged =
        placesAll || doppler || slotState[slot].isDirty || listenerTravel > slotState[slot].recheckAtTravel
      guard mayHaveChanged || comparesPlaces, let heldVoice = slotState[slot].voice else { continue }
      let position: Point
      switch newPlace(of: slot, in: scene) {
      case .outside:
        slotState[slot].isDirty = false
        continue
      case .unmoved(let place):
        guard mayHaveChanged else { continue }
        position = place
      case .moved(let place): position = place
      }
      slotState[slot].isDirty = false
      // Borrowed from the slot, which holds it: no reference counting (an `unowned(unsafe)`
      // local is still retained around each call out).
      heldVoice.borrow { voice in
        place(slot, voice: voice, at: position, listener: listener, doppler: doppler)
      }
    }
    tiersValid = !doppler
    guard !doppler else { return }
    for slot in slotState.indices where slotState[slot].isLive {
      slotState[slot].heapKey = .nan
      sortIntoTier(slot)
    }
  }

  /// Places the voice in `slot` where its node is now, `position` in the scene (`placeVoices`'
  /// step for one voice).
  @inline(__always)
  func place(_ slot: Int, voice: Voice, at position: Point, listener: Point, doppler: Bool) {
    slotState[slot].scenePosition = position
    let old = slotState[slot].placement
    let oldDistance = slotState[slot].distance
    var (placement, distance) = placementAndDistance(at: position, listener: listener)
    if placesThroughGeometry {
      if slotState[slot].acousticVersion == geometryVersion, placement.gain > 0 {
        // Walked through this geometry before: the worker places it, for the next update.
        requestAcousticPath(slot, from: listener, to: position)
        placement = slotState[slot].placement
      } else {
        // New, or the walls changed: walked and placed now.
        let path = acousticPath(for: slot, from: listener, to: position)
        placement = SpatialPlacement(gain: path.gain, pan: path.pan)
        tell(voice, in: slot, HeardAcoustics(path))
      }
    }
    slotState[slot].recheckAtTravel = listenerTravel + slack(atDistance: distance)
    slotState[slot].distance = distance
    if doppler {
      // Approaching is positive: the distance shrank over the step.
      let factor = spatial.dopplerFactor(approachingAt: (oldDistance - distance) / step)
      voice.setDoppler(factor, overFrames: frameLength)
    }
    if placement.gain == 0, spatial.stopsBeyondMaximumDistance {
      voice.stop(tween: 0.05)
      return
    }
    guard abs(old.gain - placement.gain) > 1e-6 || abs(old.pan - placement.pan) > 1e-6 else { return }
    slotState[slot].placement = placement
    send(voice, to: placement)
  }

  /// Hands `voice`'s new placement to the mix, and to the audio queue when the mix does not
  /// follow the voice (see `Voice+Following.swift`).
  @inline(__always)
  func send(_ voice: Voice, to placement: SpatialPlacement) {
    guard !voice.followPlacement(placement, glide: followGlide) else { return }
    // Unretained: a freed slot's voice is released on the queue, after this move (`free`).
    moves.append(PlacementMove(.passUnretained(voice), to: placement))
  }
}
