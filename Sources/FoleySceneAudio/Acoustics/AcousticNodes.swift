public import FoleyAudio
public import FoleyScene
import Foundation

/// A node that shapes how sound travels in its scene: a ``Wall``, a ``Portal`` or a ``Room``. Its
/// points are in its own coordinates, so it moves, turns and scales with its node. An engine
/// attached to the scene hears positional sounds through them each update (the umbrella's guide
/// "Sound in space" has the figures).
@MainActor
open class AcousticNode: Node {
  override public init() {
    super.init()
    _ = NodeAudio.ensure(self)
  }

  /// Tells the scene its geometry changed (the points, a material, a door's openness).
  func geometryChanged() {
    if let scene = unretainedScene?.takeUnretainedValue() { SceneAcoustics.of(scene)?.invalidate() }
  }

  func didEnter(_ scene: Scene) {
    SceneAcoustics.ensure(scene).add(self)
    watch()
  }

  func willLeave(_ scene: Scene) {
    SceneAcoustics.of(scene)?.remove(self)
    unwatch()
  }

  /// Adds this node's geometry, in scene coordinates, to `geometry`.
  func contribute(to geometry: inout AcousticGeometry, in scene: Scene) {}

  func points(_ local: [Point], in scene: Scene) -> [Point] {
    local.map { convert($0, to: scene) }
  }
}

/// A wall: a polyline that sound passes through at its material's cost.
///
/// ```swift
/// let wall = Wall(points: [Point(x: 0, y: -200), Point(x: 0, y: 200)], material: .wall)
/// wall.position = Point(x: 150, y: 300)
/// scene.addChild(wall)
/// ```
@MainActor
public final class Wall: AcousticNode {
  /// The wall's corners in the node's coordinates, joined in order.
  public var points: [Point] { didSet { geometryChanged() } }
  public var material: AcousticMaterial { didSet { geometryChanged() } }

  public init(points: [Point], material: AcousticMaterial = .wall) {
    self.points = points
    self.material = material
    super.init()
  }

  /// Walls along the edges of a grid's solid tiles: each run of solid tiles' shared edges with
  /// open ones merged into one segment, so a tile map of thousands of tiles gives a few walls.
  /// `solid[row][column]`, row 0 at the bottom; each tile `tileSize` points square, the grid's
  /// corner at the node's origin.
  public static func fromTiles(
    _ solid: [[Bool]], tileSize: Double, material: AcousticMaterial = .wall
  ) -> [Wall] {
    func isSolid(_ row: Int, _ column: Int) -> Bool {
      row >= 0 && row < solid.count && column >= 0 && column < solid[row].count && solid[row][column]
    }
    var walls: [Wall] = []
    let rows = solid.count
    let columns = solid.map(\.count).max() ?? 0
    // Horizontal edges: between row-1 and row, runs of columns where exactly one side is solid.
    for row in 0...rows {
      var start: Int?
      for column in 0...columns {
        let edge = column < columns && isSolid(row - 1, column) != isSolid(row, column)
        if edge, start == nil { start = column }
        if !edge, let begun = start {
          walls.append(
            Wall(
              points: [
                Point(x: Double(begun) * tileSize, y: Double(row) * tileSize),
                Point(x: Double(column) * tileSize, y: Double(row) * tileSize),
              ], material: material))
          start = nil
        }
      }
    }
    // Vertical edges: between column-1 and column, runs of rows.
    for column in 0...columns {
      var start: Int?
      for row in 0...rows {
        let edge = row < rows && isSolid(row, column - 1) != isSolid(row, column)
        if edge, start == nil { start = row }
        if !edge, let begun = start {
          walls.append(
            Wall(
              points: [
                Point(x: Double(column) * tileSize, y: Double(begun) * tileSize),
                Point(x: Double(column) * tileSize, y: Double(row) * tileSize),
              ], material: material))
          start = nil
        }
      }
    }
    return walls
  }

  override func contribute(to geometry: inout AcousticGeometry, in scene: Scene) {
    geometry.addWall(points(points, in: scene), material: material)
  }
}

/// An opening in a wall — a door, a window, a gap — that sound comes through: leave the gap in
/// the wall, and put the portal across it. Open (``openness`` 1) it lets everything through;
/// closed (0) it is a wall of its ``material``; a sound beyond a wall is also heard through the
/// nearest open portals, from their direction, over the path's length.
///
/// ```swift
/// let door = Portal(from: Point(x: 0, y: -40), to: Point(x: 0, y: 40), material: .wood)
/// door.run(.changeOpenness(to: 0, duration: 0.5))   // it swings shut
/// ```
@MainActor
public final class Portal: AcousticNode {
  public var from: Point { didSet { geometryChanged() } }
  public var to: Point { didSet { geometryChanged() } }
  /// How open it is, 0 (shut) … 1 (open).
  public var openness: Double {
    didSet {
      openness = openness.clamped(to: 0...1, or: oldValue)
      if openness != oldValue { geometryChanged() }
    }
  }
  /// What it is when shut.
  public var material: AcousticMaterial { didSet { geometryChanged() } }

  public init(from: Point, to: Point, openness: Double = 1, material: AcousticMaterial = .wood) {
    self.from = from
    self.to = to
    self.openness = openness.clamped(to: 0...1, or: 1)
    self.material = material
    super.init()
  }

  override func contribute(to geometry: inout AcousticGeometry, in scene: Scene) {
    let ends = points([from, to], in: scene)
    geometry.addPortal(from: ends[0], to: ends[1], openness: openness, closed: material)
  }
}

/// A room: a polygon whose sounds ring in the engine's reverb at its ``reverbSend`` (the voices of
/// positional sounds inside it are sent at least that much), and which sets how much of the
/// reverb the listener hears while inside it (``returnLevel``; outside every room of a scene that
/// has rooms, ``outsideReturnLevel``), gliding over 0.3 s as the listener crosses.
///
/// ```swift
/// let cave = Room(polygon: [Point(x: 0, y: 0), Point(x: 400, y: 0), Point(x: 400, y: 300), Point(x: 0, y: 300)],
///                 reverbSend: 0.6)
/// ```
@MainActor
public final class Room: AcousticNode {
  public var polygon: [Point] { didSet { geometryChanged() } }
  /// The share of its sounds sent to the engine's reverb, 0…1.
  public var reverbSend: Double { didSet { geometryChanged() } }
  /// How much of the engine's reverb is heard while the listener is inside it, 0…1 (1: all).
  public var returnLevel: Double {
    didSet {
      returnLevel = returnLevel.clamped(to: 0...1, or: oldValue)
      geometryChanged()
    }
  }
  /// How much of the reverb a listener outside every room hears (-9 dB): the rooms' ring, heard
  /// through their walls.
  public static let outsideReturnLevel = 0.35

  public init(polygon: [Point], reverbSend: Double = 0.5, returnLevel: Double = 1) {
    self.polygon = polygon
    self.reverbSend = reverbSend.clamped(to: 0...1, or: 0.5)
    self.returnLevel = returnLevel.clamped(to: 0...1, or: 1)
    super.init()
  }

  override func contribute(to geometry: inout AcousticGeometry, in scene: Scene) {
    geometry.addRoom(points(polygon, in: scene), send: reverbSend, returnLevel: returnLevel)
  }
}

extension Action {
  /// Opens or shuts a ``Portal`` to `openness` (0…1) over `duration` seconds; on any other node it
  /// does nothing.
  public static func changeOpenness(to openness: Double, duration: Double) -> Action {
    let start = OpennessStart()
    return .customAction(withDuration: duration) { node, elapsed in
      guard let portal = node as? Portal else { return }
      // Where it was when the action began (its first frame), so the glide is linear.
      if start.value == nil || elapsed == 0 { start.value = portal.openness }
      let from = start.value ?? portal.openness
      let progress = duration > 0 ? min(1, elapsed / duration) : 1
      portal.openness = from + (openness - from) * progress
      if progress >= 1 { start.value = nil }
    }
  }
}

/// Where a running ``Action/changeOpenness(to:duration:)`` started from.
@MainActor
private final class OpennessStart {
  var value: Double?
}

/// The acoustic nodes of one scene, and their geometry in scene coordinates, built again when
/// one of them changes or moves.
@MainActor
final class SceneAcoustics {
  nonisolated static let storageKey = NodeStorageKey<SceneAcoustics>()
  /// The nodes in the order they joined (rooms overlap by it: the last added wins), with holes
  /// where nodes left, and where each one is: adding and removing are constant time, so a tile
  /// map of a hundred thousand walls goes in and out in linear time.
  private var slots: [AcousticNode?] = []
  private var slotOf: [ObjectIdentifier: Int] = [:]
  private var built: AcousticGeometry?
  /// Bumped at every change: the link places every voice again when it moves.
  private(set) var version = 0

  static func of(_ scene: Scene) -> SceneAcoustics? { scene[storage: storageKey] }

  static func ensure(_ scene: Scene) -> SceneAcoustics {
    if let made = of(scene) { return made }
    let made = SceneAcoustics()
    scene[storage: storageKey] = made
    return made
  }

  var isEmpty: Bool { slotOf.isEmpty }

  /// The nodes, in the order they joined.
  private var nodes: some Sequence<AcousticNode> { slots.lazy.compactMap { $0 } }

  func add(_ node: AcousticNode) {
    let id = ObjectIdentifier(node)
    guard slotOf[id] == nil else { return }
    slotOf[id] = slots.count
    slots.append(node)
    invalidate()
  }

  func remove(_ node: AcousticNode) {
    guard let slot = slotOf.removeValue(forKey: ObjectIdentifier(node)) else { return }
    slots[slot] = nil
    // Squeezed out once half the list is holes, so the list stays within twice the nodes.
    if slots.count > 32, slotOf.count * 2 < slots.count {
      slots = slots.filter { $0 != nil }
      for (index, kept) in slots.enumerated() { slotOf[ObjectIdentifier(kept!)] = index }
    }
    invalidate()
  }

  func invalidate() {
    built = nil
    version &+= 1
  }

  func contains(_ node: Node) -> Bool { slotOf[ObjectIdentifier(node)] != nil }

  /// Each acoustic node, and each node above one below the scene, with its parent and its own
  /// transform when the geometry was built: one changed (a move, a turn, a scale, a new parent)
  /// is a moved geometry. Plain comparisons of each node's own values, no walk up its parents.
  private var frames: [Frame] = []

  @MainActor
  private struct Frame {
    unowned(unsafe) let node: Node
    let parent: ObjectIdentifier?
    let position: Point
    let zRotation: Double
    let xScale: Double
    let yScale: Double

    init(_ node: Node) {
      self.node = node
      parent = node.parent.map(ObjectIdentifier.init)
      (position, zRotation, xScale, yScale) = (node.position, node.zRotation, node.xScale, node.yScale)
    }

    var isCurrent: Bool {
      node.position == position && node.zRotation == zRotation && node.xScale == xScale
        && node.yScale == yScale && node.parent.map(ObjectIdentifier.init) == parent
    }
  }

  /// The geometry, built if anything changed since it last was.
  func geometry(in scene: Scene) -> AcousticGeometry {
    if let built { return built }
    var geometry = AcousticGeometry()
    for node in nodes { node.contribute(to: &geometry, in: scene) }
    geometry.index()
    built = geometry
    // Every node from each acoustic node up to the scene, once (the nodes hold their parents:
    // while the geometry is current, each listed node is in the tree).
    var listed = Set<ObjectIdentifier>()
    frames = []
    for node in nodes {
      var current: Node? = node
      while let each = current, each !== scene, listed.insert(ObjectIdentifier(each)).inserted {
        frames.append(Frame(each))
        current = each.parent
      }
    }
    return geometry
  }

  /// Rebuilds on the next look if a node moved, turned or scaled since the geometry was built:
  /// for an update in which too many nodes moved for the scene to list them.
  func checkMoved(in scene: Scene) {
    guard built != nil else { return }
    for frame in frames where !frame.isCurrent {
      invalidate()
      return
    }
  }
}
