import FoleyAudio
import FoleyScene

/// The link's part in captions, rumble and the scene's walls, doors and rooms: which voices follow
/// which nodes for them, and how a sound is heard through the scene's geometry.
extension SceneAudioLink {
  // MARK: - Captions and rumble

  /// Marks `voice`, placed at `node`, as captioned or rumbling: its caption and rumble follow the
  /// node from the next update, when the captions and the haptics take its play.
  func followForAccessibility(_ voice: Voice, at node: Node) {
    accessibleNodes[ObjectIdentifier(voice)] = (voice, node)
  }

  /// Brings the engine's captions and rumble in line with the frame: the new plays, each such
  /// voice's place seen from the listener. Costs nothing while nothing is captioned or rumbles.
  func updateAccessibility() {
    let captions = engine.captionsIfMade ?? (core.captionPlays.hasPlays ? engine.captions : nil)
    let haptics = engine.hapticsIfMade ?? (core.rumblePlays.hasPlays ? engine.haptics : nil)
    accessibilityListener = listenerPosition
    captions?.update(placing: self)
    haptics?.update(placing: self)
    // Both took this frame's plays with the nodes they follow, and hold them from now on.
    accessibleNodes.removeAll(keepingCapacity: true)
  }

  // MARK: - Walls, doors and rooms

  /// How a sound at `position` is heard from `listener` through the scene's acoustic geometry;
  /// nil when the scene has none.
  func acousticPath(from listener: Point, to position: Point) -> AcousticPath? {
    guard builtGeometry() else { return nil }
    return geometry!.path(from: listener, to: position, spatial: spatial)
  }

  /// How the voice in `slot`, its source at `position`, is heard from `listener` through the
  /// scene's walls, doors and rooms, walked now on this thread (a new voice, or new walls).
  func acousticPath(for slot: Int, from listener: Point, to position: Point) -> AcousticPath {
    slotState[slot].acousticVersion = geometryVersion
    return geometry!.path(from: listener, to: position, spatial: spatial)
  }

  /// Asks the worker for the path of the voice in `slot`, for the next update.
  func requestAcousticPath(_ slot: Int, from listener: Point, to position: Point) {
    acousticRequests.append(
      AcousticWorker.Request(
        slot: Int32(slot), occupant: slotState[slot].occupant, listener: listener, source: position))
  }

  /// Hands this update's requests to the worker, which works them out during the game's frame.
  func startAcousticWork() {
    guard !acousticRequests.isEmpty, let geometry else { return }
    let worker = acousticWorker ?? AcousticWorker()
    acousticWorker = worker
    worker.start(
      &acousticRequests, geometry: geometry, version: geometryVersion, spatial: spatial, update: placingUpdate
    )
  }

  /// Places the voices whose paths the worker worked out since the last update. An answer for a
  /// slot freed or taken again, or through walls that have changed since, is dropped.
  func takeAcousticAnswers() {
    let version = Int32(truncatingIfNeeded: geometryVersion)
    acousticWorker?.join { answer in
      let slot = Int(answer.slot)
      guard slot < slotState.count, slotState[slot].isLive, slotState[slot].occupant == answer.occupant,
        answer.version == version, slotState[slot].acousticVersion == geometryVersion,
        let heldVoice = slotState[slot].voice
      else { return }
      heldVoice.borrow { voice in
        tell(
          voice, in: slot,
          HeardAcoustics(
            cutoff: Double(answer.cutoff), send: Double(answer.send),
            occlusion: Double(answer.occlusionDecibels),
            portal: Int(answer.portal)))
        let placement = SpatialPlacement(gain: Double(answer.gain), pan: Double(answer.pan))
        if placement.gain == 0, spatial.stopsBeyondMaximumDistance {
          voice.stop(tween: 0.05)
          return
        }
        let old = slotState[slot].placement
        guard abs(old.gain - placement.gain) > 1e-6 || abs(old.pan - placement.pan) > 1e-6 else { return }
        slotState[slot].placement = placement
        send(voice, to: placement)
      }
    }
  }

  /// Tells `voice` (in `slot`) of its path's cutoff, send, occlusion and portal when one of them
  /// changed audibly (its atomics and ramps are touched only then).
  func tell(_ voice: Voice, in slot: Int, _ heard: HeardAcoustics) {
    guard heard.differs(from: slotState[slot].heardAcoustics) else { return }
    slotState[slot].heardAcoustics = heard
    voice.setAcoustics(
      cutoff: heard.cutoff, send: heard.send, occlusion: heard.occlusion,
      portal: heard.portal < 0 ? nil : heard.portal,
      over: Double(frameLength) / Double(core.format.sampleRate))
  }

  /// Brings `geometry` up to date with the scene's acoustic nodes; false when it has none.
  func builtGeometry() -> Bool {
    guard let acoustics = SceneAcoustics.of(scene), !acoustics.isEmpty else { return false }
    if geometry == nil || geometryVersion != acoustics.version {
      geometry = acoustics.geometry(in: scene)
      geometryVersion = acoustics.version
    }
    return true
  }

  /// The listener's room sets the engine's reverb return: its `returnLevel` inside it,
  /// `Room.outsideReturnLevel` outside every room (the reverb glides there over 0.3 s). A scene
  /// without rooms leaves the return to the game.
  func updateListenerRoom() {
    guard builtGeometry(), let geometry, !geometry.rooms.isEmpty else {
      if listenerReturn != nil {
        engine.reverb.returnLevel = 1
        listenerReturn = nil
      }
      return
    }
    let level =
      geometry.room(containing: listenerPosition).map { geometry.rooms[$0].returnLevel }
      ?? Room.outsideReturnLevel
    guard level != listenerReturn else { return }
    listenerReturn = level
    engine.reverb.returnLevel = level
  }

  /// Whether the scene's acoustic geometry changed since the voices were last placed through it,
  /// a moved node among `moved` included (a wall, or a node with walls below it).
  func acousticsChanged(moved: [Node], manyMoved: Bool) -> Bool {
    guard let acoustics = SceneAcoustics.of(scene), !acoustics.isEmpty else {
      let had = geometry != nil
      geometry = nil
      return had
    }
    if manyMoved {
      acoustics.checkMoved(in: scene)
    } else {
      for node in moved where Self.holdsAcoustics(node) {
        acoustics.invalidate()
        break
      }
    }
    return acoustics.version != geometryVersion
  }

  /// Whether `node` is an acoustic node or has one below it (looked for only under nodes with
  /// watched nodes below them: a moving emitter with none is passed at once).
  static func holdsAcoustics(_ node: Node) -> Bool {
    if node is AcousticNode { return true }
    guard node.watchedInSubtree > node.watchers else { return false }
    return node.children.contains { $0.watchedInSubtree > 0 && holdsAcoustics($0) }
  }
}

extension SceneAudioLink: ScenePlacing {
  func anchor(of voice: Voice) -> AnyObject? {
    guard let held = accessibleNodes[ObjectIdentifier(voice)], held.voice === voice else { return nil }
    return held.node
  }

  func placement(of anchor: Unmanaged<AnyObject>) -> ScenePlacement {
    placement(of: anchor, heardThrough: -1)
  }

  func placement(of anchor: Unmanaged<AnyObject>, heardThrough portal: Int) -> ScenePlacement {
    // Only `anchor(of:)` makes anchors, and it gives nodes; borrowed, the caller holds it.
    let position = anchor.borrow { unsafeDowncast($0, to: Node.self).positionInScene }
    let listener = accessibilityListener
    if portal >= 0, let middle = geometry?.middle(ofPortal: portal) {
      // Heard through a door: from the door's middle, over the way through it (the path the
      // acoustics took as loudest), so a caption leads to the door, not into the wall.
      let toDoor: Vector = middle - listener
      let beyond: Vector = position - middle
      let near: Double = (toDoor.dx * toDoor.dx + toDoor.dy * toDoor.dy).squareRoot()
      let far: Double = (beyond.dx * beyond.dx + beyond.dy * beyond.dy).squareRoot()
      let distance = near + far
      return ScenePlacement(
        dx: toDoor.dx, dy: toDoor.dy, distance: distance, gain: spatial.gain(atDistance: distance))
    }
    let offset = position - listener
    let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
    return ScenePlacement(
      dx: offset.dx, dy: offset.dy, distance: distance, gain: spatial.gain(atDistance: distance))
  }
}
