import FoleyAudio
import FoleyScene

/// The link's part in captions, rumble and the scene's walls, doors and rooms: which voices follow
/// which nodes for them, and how a sound is heard through the scene's geometry.
extension SceneAudioLink {
  // MARK: - Captions and rumble

  /// Marks `voice`, placed at `node`, as captioned or rumbling: its caption and rumble follow the
  /// node.
  func followForAccessibility(_ voice: Voice, at node: Node) {
    accessibleNodes[ObjectIdentifier(voice)] = (voice, node)
  }

  /// Brings the engine's captions and rumble in line with the frame: the new plays, each such
  /// voice's place seen from the listener. Costs nothing while nothing is captioned or rumbles.
  func updateAccessibility() {
    let captions = engine.captionsIfMade ?? (core.captionPlays.hasPlays ? engine.captions : nil)
    let haptics = engine.hapticsIfMade ?? (core.rumblePlays.hasPlays ? engine.haptics : nil)
    guard captions != nil || haptics != nil else { return }
    let listener = listenerPosition
    let place = { (voice: Voice) -> ScenePlacement? in
      guard let held = self.accessibleNodes[ObjectIdentifier(voice)], held.voice === voice else { return nil }
      let offset = held.node.positionInScene - listener
      let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
      return ScenePlacement(
        dx: offset.dx, dy: offset.dy, distance: distance, gain: self.spatial.gain(atDistance: distance))
    }
    captions?.update(place: place)
    haptics?.update(place: place)
    if !accessibleNodes.isEmpty { accessibleNodes = accessibleNodes.filter { !$0.value.voice.isFinished } }
  }

  // MARK: - Walls, doors and rooms

  /// How a sound at `position` is heard from `listener` through the scene's acoustic geometry;
  /// nil when the scene has none.
  func acousticPath(from listener: Point, to position: Point) -> AcousticPath? {
    guard builtGeometry() else { return nil }
    return geometry!.path(from: listener, to: position, spatial: spatial)
  }

  /// Brings `geometry` up to date with the scene's acoustic nodes; false when it has none.
  private func builtGeometry() -> Bool {
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
