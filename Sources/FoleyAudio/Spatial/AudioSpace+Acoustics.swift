public import FoleyCore

extension AudioSpace {
  /// Walls, doors and rooms as plain values: what a scene's `Wall`, `Portal` and `Room` nodes
  /// declare, for a game with its own level data. Set ``AudioSpace/acoustics`` to a new value
  /// whenever the level changes (a door swings, a wall falls); every voice is heard through it
  /// from the next update.
  ///
  /// ```swift
  /// var acoustics = AudioSpace.Acoustics()
  /// acoustics.walls.append(.init(points: [Point(x: 500, y: -300), Point(x: 500, y: 300)], material: .brick))
  /// acoustics.portals.append(.init(from: Point(x: 500, y: -40), to: Point(x: 500, y: 40), openness: 0.2))
  /// acoustics.rooms.append(.init(polygon: [Point(x: 500, y: -300), Point(x: 900, y: -300),
  ///                                        Point(x: 900, y: 300), Point(x: 500, y: 300)], reverbSend: 0.6))
  /// engine.space.acoustics = acoustics
  /// ```
  ///
  /// A sound is heard along its straight line to its listener through every wall it crosses
  /// (their attenuations multiply, the lowest cutoff applies) and, when that line is blocked,
  /// through the three open doors nearest it, from the door's side; in a room, it rings in the
  /// engine's reverb at the room's send. The reverb's return follows the first listener's room.
  /// Coordinates that are not finite, or beyond ±10¹² units, leave that wall, door or room out
  /// (said once in the log).
  public struct Acoustics: Sendable, Hashable {
    /// A wall: a polyline, each of its segments stopping sound by its material.
    public struct Wall: Sendable, Hashable {
      public var points: [Point]
      public var material: AcousticMaterial

      public init(points: [Point], material: AcousticMaterial = .wall) {
        self.points = points
        self.material = material
      }
    }

    /// A door (a portal) across a gap in a wall: sound passes through it as it is open (0 shut, 1
    /// open), and through its material when shut.
    public struct Portal: Sendable, Hashable {
      public var from: Point
      public var to: Point
      /// 0 (shut) … 1 (open); a NaN is taken as open.
      public var openness: Double
      public var material: AcousticMaterial

      public init(from: Point, to: Point, openness: Double = 1, material: AcousticMaterial = .wood) {
        self.from = from
        self.to = to
        self.openness = openness.clamped(to: 0...1, or: 1)
        self.material = material
      }
    }

    /// A room: a polygon whose sounds ring in the engine's reverb at `reverbSend`, and whose
    /// `returnLevel` is how much of the reverb a listener inside it hears.
    public struct Room: Sendable, Hashable {
      public var polygon: [Point]
      public var reverbSend: Double
      public var returnLevel: Double

      public init(polygon: [Point], reverbSend: Double = 0.5, returnLevel: Double = 1) {
        self.polygon = polygon
        self.reverbSend = reverbSend.clamped(to: 0...1, or: 0.5)
        self.returnLevel = returnLevel.clamped(to: 0...1, or: 1)
      }
    }

    public var walls: [Wall]
    public var portals: [Portal]
    public var rooms: [Room]

    public init(walls: [Wall] = [], portals: [Portal] = [], rooms: [Room] = []) {
      self.walls = walls
      self.portals = portals
      self.rooms = rooms
    }

    /// How much of the reverb a listener outside every room of a space that has rooms hears
    /// (-9 dB): the rooms' ring, heard through their walls.
    public static let outsideReturnLevel = 0.35

    /// The geometry these values describe, indexed for walking (nil: no walls, doors or rooms).
    var geometry: AcousticGeometry? {
      guard !walls.isEmpty || !portals.isEmpty || !rooms.isEmpty else { return nil }
      var geometry = AcousticGeometry()
      for wall in walls { geometry.addWall(wall.points, material: wall.material) }
      for portal in portals {
        geometry.addPortal(
          from: portal.from, to: portal.to, openness: portal.openness, closed: portal.material)
      }
      for room in rooms {
        geometry.addRoom(room.polygon, send: room.reverbSend, returnLevel: room.returnLevel)
      }
      geometry.index()
      return geometry.isEmpty ? nil : geometry
    }
  }

  /// How a sound at `position` is heard from `listener`: straight, or through the walls, doors and
  /// rooms when the space has some (with what they do to it).
  func path(
    of position: SIMD2<Double>, from listener: SIMD2<Double>
  ) -> (
    SpatialPlacement, Double, AcousticPath?
  ) {
    let (placement, distance) = placement(of: position, from: listener)
    guard geometry != nil else { return (placement, distance, nil) }
    let path = geometry!.path(
      from: Point(listener), to: Point(position), spatial: spatial)
    return (SpatialPlacement(gain: path.gain, pan: path.pan), distance, path)
  }

  /// Tells `entry`'s voice what the walls do to it, when that changed by an audible step (as a
  /// scene's link does).
  func tellAcoustics(_ path: AcousticPath?, to entry: inout Entry, voice: Voice) {
    let heard = path.map(HeardAcoustics.init) ?? .open
    guard heard.differs(from: entry.acoustics) else { return }
    entry.acoustics = heard
    voice.setAcoustics(
      cutoff: heard.cutoff, send: heard.send, occlusion: heard.occlusion,
      portal: heard.portal < 0 ? nil : heard.portal, over: Double(frameLength) / Double(sampleRate))
  }

  /// Sets the reverb's return from the first listener's room, when the space has rooms (and back
  /// to full when it no longer has).
  func updateListenerRoom(_ listener: SIMD2<Double>) {
    guard let geometry, !geometry.rooms.isEmpty else {
      if listenerReturn != nil {
        engine.value.reverb.returnLevel = 1
        listenerReturn = nil
      }
      return
    }
    let level =
      geometry.room(containing: Point(listener)).map { geometry.rooms[$0].returnLevel }
      ?? Acoustics.outsideReturnLevel
    guard level != listenerReturn else { return }
    listenerReturn = level
    engine.value.reverb.returnLevel = level
  }
}
