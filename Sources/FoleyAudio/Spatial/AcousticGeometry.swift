package import FoleyCore
import Foundation

/// What a wall or a closed door does to sound that passes through it: a broadband attenuation and
/// a low-pass (the darkening). Walls crossed one after another multiply their attenuations; the
/// lowest cutoff among them applies.
///
/// ```swift
/// let wall = Wall(points: [Point(x: 0, y: 0), Point(x: 0, y: 400)], material: .brick)
/// let curtain = AcousticMaterial(attenuationDecibels: -3, cutoff: 6_000)
/// ```
public struct AcousticMaterial: Sendable, Hashable {
  /// The broadband level change through it, in dB (-100…0).
  public var attenuationDecibels: Double
  /// The low-pass cutoff of sound through it, in hertz (20…20,000).
  public var cutoff: Double

  public init(attenuationDecibels: Double, cutoff: Double) {
    self.attenuationDecibels = attenuationDecibels.clamped(to: -100...0, or: 0)
    self.cutoff = cutoff.clamped(to: 20...20_000, or: 20_000)
  }

  /// A plain interior wall: -12 dB, and nothing much above 1 kHz.
  public static let wall = AcousticMaterial(attenuationDecibels: -12, cutoff: 1_000)
  /// A thin partition or a wooden door: -6 dB, dull above 2.5 kHz.
  public static let wood = AcousticMaterial(attenuationDecibels: -6, cutoff: 2_500)
  /// A thick outer wall: -24 dB, only a thud under 400 Hz.
  public static let brick = AcousticMaterial(attenuationDecibels: -24, cutoff: 400)

  var gain: Double { pow(10, attenuationDecibels / 20) }
  var cutoffLog2: Double { log2(cutoff) }
}

/// How a sound is heard from the listener through the scene's walls, doors and rooms.
package struct AcousticPath: Equatable {
  /// The gain of every path together (distance gain and walls), as a power sum.
  package var gain: Double
  /// Where it is heard from, -1…1: the paths' pans weighted by their power.
  package var pan: Double
  /// The low-pass cutoff, in hertz (20,000: open), weighted by the paths' power on a log scale.
  package var cutoff: Double
  /// The portal the loudest path goes through; nil when the straight line is loudest.
  package var portal: Int?
  /// The walls the straight line crosses, and what they take in dB.
  package var wallsCrossed: Int
  package var occlusionDecibels: Double
  /// The reverb send of the room the sound is in (0 outside every room).
  package var send: Double
}

/// What a positional voice was last told of the walls around it (by a scene's link or the
/// engine's space), to tell it again only when
/// something changed that can be heard: the cutoff by 1 %, the send by 0.001, the occlusion by
/// 0.05 dB (the voice ramps to each new value, so a smaller change is not lost but deferred).
package struct HeardAcoustics {
  package var cutoff: Double
  package var send: Double
  package var occlusion: Double
  /// The portal the loudest path goes through; -1 for the straight line.
  package var portal: Int

  package init(_ path: AcousticPath) {
    (cutoff, send, occlusion, portal) = (path.cutoff, path.send, path.occlusionDecibels, path.portal ?? -1)
  }

  package init(cutoff: Double, send: Double, occlusion: Double, portal: Int) {
    (self.cutoff, self.send, self.occlusion, self.portal) = (cutoff, send, occlusion, portal)
  }

  /// Nothing told yet (no path has a nan cutoff).
  package static let none = HeardAcoustics(cutoff: .nan, send: 0, occlusion: 0, portal: -1)

  /// Nothing in the way: what a voice heard through walls that are gone is told.
  package static let open = HeardAcoustics(cutoff: 20_000, send: 0, occlusion: 0, portal: -1)

  /// Whether `other` differs from it by an audible step (always, from ``none``).
  package func differs(from other: HeardAcoustics) -> Bool {
    !(abs(cutoff - other.cutoff) <= 0.01 * other.cutoff) || abs(send - other.send) > 0.001
      || abs(occlusion - other.occlusion) > 0.05 || portal != other.portal
  }
}

/// The scene's walls, doors and rooms in scene coordinates, with a uniform grid over their
/// segments so a line crosses only the cells it passes through.
package struct AcousticGeometry {
  package struct Segment {
    package var a: Point
    package var b: Point
    package var gain: Double
    package var cutoffLog2: Double
    /// The portal it belongs to (its opening), or -1 for a wall.
    package var portal: Int
  }

  package struct Opening {
    package var a: Point
    package var b: Point
    package var openness: Double
    package var middle: Point { Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2) }
  }

  package struct Area {
    package var polygon: [Point]
    package var send: Double
    /// How much of the reverb a listener inside it hears.
    package var returnLevel: Double
    var minimum: Point
    var maximum: Point
  }

  package private(set) var segments: [Segment] = []
  private(set) var portals: [Opening] = []

  /// The middle of portal `index`'s opening (nil for no such portal): where a sound heard
  /// through it comes from.
  package func middle(ofPortal index: Int) -> Point? {
    portals.indices.contains(index) ? portals[index].middle : nil
  }
  package private(set) var rooms: [Area] = []
  private var origin = Point(x: 0, y: 0)
  private var cellSize = 64.0
  private var columns = 0
  private var rows = 0
  /// The grid's cells as one list: cell `c`'s segments are `cellItems[cellStarts[c]..<cellStarts[c + 1]]`.
  private var cellStarts: [Int32] = []
  private var cellItems: [Int32] = []
  /// Per segment, the query that last saw it (so a segment in several cells counts once).
  private var seen: [UInt32] = []
  private var query: UInt32 = 0

  package init() {}

  package var isEmpty: Bool { segments.isEmpty && rooms.isEmpty }

  /// The largest coordinate a wall, portal or room may have, in scene points: far beyond any
  /// level, and small enough that no span, length or grid cell computed from it overflows.
  static let coordinateLimit = 1e12

  /// Whether every point is finite and within ``coordinateLimit``; if not, says once (per kind of
  /// node) that the geometry is ignored.
  private static func usable(_ points: [Point], member: StaticString) -> Bool {
    for point in points
    where !(abs(point.x) <= coordinateLimit && abs(point.y) <= coordinateLimit) {
      // NaN fails the comparison too.
      RefusedNumbers.note(member, value: abs(point.x) <= coordinateLimit ? point.y : point.x)
      return false
    }
    return true
  }

  package mutating func addWall(_ points: [Point], material: AcousticMaterial) {
    guard points.count >= 2, Self.usable(points, member: "Wall.points (in scene coordinates)") else { return }
    for index in 1..<points.count {
      segments.append(
        Segment(
          a: points[index - 1], b: points[index], gain: material.gain, cutoffLog2: material.cutoffLog2,
          portal: -1))
    }
  }

  package mutating func addPortal(
    from a: Point, to b: Point, openness: Double, closed material: AcousticMaterial
  ) {
    guard Self.usable([a, b], member: "Portal.from/to (in scene coordinates)") else { return }
    let open = openness.clamped(to: 0...1, or: 1)
    // An opening `open` of the way: the door's attenuation and darkening fade out as it opens.
    let gain = open + (1 - open) * material.gain
    let cutoff = open * log2(20_000) + (1 - open) * material.cutoffLog2
    segments.append(Segment(a: a, b: b, gain: gain, cutoffLog2: cutoff, portal: portals.count))
    portals.append(Opening(a: a, b: b, openness: open))
  }

  package mutating func addRoom(_ polygon: [Point], send: Double, returnLevel: Double = 1) {
    guard polygon.count >= 3, Self.usable(polygon, member: "Room.polygon (in scene coordinates)") else {
      return
    }
    let xs = polygon.map(\.x)
    let ys = polygon.map(\.y)
    rooms.append(
      Area(
        polygon: polygon, send: send.clamped(to: 0...1, or: 0),
        returnLevel: returnLevel.clamped(to: 0...1, or: 1),
        minimum: Point(x: xs.min()!, y: ys.min()!),
        maximum: Point(x: xs.max()!, y: ys.max()!)))
  }

  /// Builds the grid: cells of about the mean segment length, at most 256 a side (or, with
  /// `cellsPerSide`, that many: 1 puts every segment in one cell, which tests every segment).
  package mutating func index(cellsPerSide: Int? = nil) {
    seen = [UInt32](repeating: 0, count: segments.count)
    guard !segments.isEmpty else {
      columns = 0
      rows = 0
      cellStarts = []
      cellItems = []
      return
    }
    var low = segments[0].a
    var high = segments[0].a
    var total = 0.0
    for segment in segments {
      for point in [segment.a, segment.b] {
        low = Point(x: min(low.x, point.x), y: min(low.y, point.y))
        high = Point(x: max(high.x, point.x), y: max(high.y, point.y))
      }
      total += hypot(segment.b.x - segment.a.x, segment.b.y - segment.a.y)
    }
    let span = max(high.x - low.x, high.y - low.y, 1)
    cellSize =
      cellsPerSide.map { span / Double(max(1, $0)) + 1 }
      ?? max(total / Double(segments.count), span / 256, 1)
    origin = low
    columns = Int((high.x - low.x) / cellSize) + 1
    rows = Int((high.y - low.y) / cellSize) + 1
    var cells = [[Int32]](repeating: [], count: columns * rows)
    for (number, segment) in segments.enumerated() {
      // Every cell of the segment's bounding box (segments are short next to the grid's span).
      let (c0, r0) = cell(of: Point(x: min(segment.a.x, segment.b.x), y: min(segment.a.y, segment.b.y)))
      let (c1, r1) = cell(of: Point(x: max(segment.a.x, segment.b.x), y: max(segment.a.y, segment.b.y)))
      for row in r0...r1 {
        for column in c0...c1 { cells[row * columns + column].append(Int32(number)) }
      }
    }
    cellStarts = [0]
    cellItems = []
    for cell in cells {
      cellItems += cell
      cellStarts.append(Int32(cellItems.count))
    }
  }

  /// The grid cell holding `point`, clamped to the grid. Clamped as a `Double` before it becomes
  /// an `Int` (a point far outside, or NaN, lands on the nearest edge cell rather than trapping).
  @inline(__always)
  private func cell(of point: Point) -> (Int, Int) {
    (
      Self.index((point.x - origin.x) / cellSize, count: columns),
      Self.index((point.y - origin.y) / cellSize, count: rows)
    )
  }

  @inline(__always)
  private static func index(_ position: Double, count: Int) -> Int {
    let last = Double(count - 1)
    // `!(x > 0)` is true for NaN as well as for x ≤ 0.
    guard position > 0 else { return 0 }
    return position >= last ? count - 1 : Int(position)
  }

  /// Whether segments `p`–`q` and `a`–`b` cross (touching counts; parallel ones do not).
  @inline(__always)
  static func crosses(_ p: Point, _ q: Point, _ a: Point, _ b: Point) -> Bool {
    let d1 = (q.x - p.x) * (a.y - p.y) - (q.y - p.y) * (a.x - p.x)
    let d2 = (q.x - p.x) * (b.y - p.y) - (q.y - p.y) * (b.x - p.x)
    let d3 = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
    let d4 = (b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x)
    return (d1 * d2 <= 0) && (d3 * d4 <= 0) && !(d1 == 0 && d2 == 0)
  }

  /// The segments the line `p`–`q` crosses (a portal's own segment left out when `excluding`
  /// names it), through the grid: the line clipped to the grid, then only the cells it passes
  /// through (Amanatides–Woo), each segment tested once.
  package mutating func crossings(
    from p: Point, to q: Point, excluding portal: Int = -2, _ body: (Segment) -> Void
  ) {
    guard columns > 0, p.x.isFinite, p.y.isFinite, q.x.isFinite, q.y.isFinite else { return }
    let dx = q.x - p.x
    let dy = q.y - p.y
    guard dx.isFinite, dy.isFinite else { return }
    // The part of the line inside the grid, as `t0...t1` along it (none: nothing to cross).
    var t0 = 0.0
    var t1 = 1.0
    let width = Double(columns) * cellSize
    let height = Double(rows) * cellSize
    // One axis at a time (Liang–Barsky); false when the line misses the grid on it.
    func clip(_ start: Double, _ delta: Double, _ low: Double, _ high: Double) -> Bool {
      if delta == 0 { return start >= low && start <= high }
      let a = (low - start) / delta
      let b = (high - start) / delta
      t0 = max(t0, min(a, b))
      t1 = min(t1, max(a, b))
      return true
    }
    guard clip(p.x, dx, origin.x, origin.x + width), clip(p.y, dy, origin.y, origin.y + height) else {
      return
    }
    guard t0 <= t1 else { return }
    query &+= 1
    if query == 0 {
      for index in seen.indices { seen[index] = 0 }
      query = 1
    }
    let stamp = query
    let (startColumn, startRow) = cell(of: Point(x: p.x + t0 * dx, y: p.y + t0 * dy))
    let (endColumn, endRow) = cell(of: Point(x: p.x + t1 * dx, y: p.y + t1 * dy))
    var column = startColumn
    var row = startRow
    let stepColumn = dx > 0 ? 1 : -1
    let stepRow = dy > 0 ? 1 : -1
    let cellLeft = origin.x + Double(column) * cellSize
    let cellBottom = origin.y + Double(row) * cellSize
    var tMaxX = dx == 0 ? Double.infinity : ((dx > 0 ? cellLeft + cellSize : cellLeft) - p.x) / dx
    var tMaxY = dy == 0 ? Double.infinity : ((dy > 0 ? cellBottom + cellSize : cellBottom) - p.y) / dy
    let tDeltaX = dx == 0 ? Double.infinity : cellSize / abs(dx)
    let tDeltaY = dy == 0 ? Double.infinity : cellSize / abs(dy)
    let columns = columns
    let rows = rows
    let limit = columns + rows + 2
    // Through the arrays' storage: the walk is the geometry's inner loop, run for every heard
    // voice's lines each update.
    segments.withUnsafeBufferPointer { segments in
      cellStarts.withUnsafeBufferPointer { starts in
        cellItems.withUnsafeBufferPointer { items in
          seen.withUnsafeMutableBufferPointer { seen in
            var steps = 0
            while true {
              let cell = row * columns + column
              for item in Int(starts[cell])..<Int(starts[cell + 1]) {
                let index = Int(items[item])
                guard seen[index] != stamp else { continue }
                seen[index] = stamp
                let segment = segments[index]
                if segment.portal != portal, Self.crosses(p, q, segment.a, segment.b) { body(segment) }
              }
              if column == endColumn && row == endRow { break }
              steps += 1
              if steps > limit { break }
              if tMaxX < tMaxY {
                column += stepColumn
                tMaxX += tDeltaX
              } else {
                row += stepRow
                tMaxY += tDeltaY
              }
              guard column >= 0, column < columns, row >= 0, row < rows else { break }
            }
          }
        }
      }
    }
  }

  /// The same count by testing every segment: for checking the grid.
  package func bruteForceCrossings(from p: Point, to q: Point) -> Int {
    segments.filter { Self.crosses(p, q, $0.a, $0.b) }.count
  }

  /// What the line `p`–`q` loses through the walls it crosses: the product of their gains, the
  /// lowest cutoff (log2 hertz), and how many.
  package mutating func loss(
    from p: Point, to q: Point, excluding portal: Int = -2
  ) -> (
    gain: Double, cutoffLog2: Double, count: Int
  ) {
    var gain = 1.0
    var cutoff = log2(20_000.0)
    var count = 0
    crossings(from: p, to: q, excluding: portal) { segment in
      gain *= segment.gain
      cutoff = min(cutoff, segment.cutoffLog2)
      count += 1
    }
    return (gain, cutoff, count)
  }

  /// The listener's legs to every portal, worked out once per listener position and shared by
  /// every source's path.
  private var legsFrom: Point?
  var legs: [(gain: Double, cutoffLog2: Double, length: Double)] = []

  mutating func legs(from listener: Point) {
    guard legsFrom != listener || legs.count != portals.count else { return }
    legsFrom = listener
    legs.removeAll(keepingCapacity: true)
    for index in portals.indices {
      let middle = portals[index].middle
      let leg = loss(from: listener, to: middle, excluding: index)
      legs.append((leg.gain, leg.cutoffLog2, hypot(middle.x - listener.x, middle.y - listener.y)))
    }
  }

  /// The room `point` is in (the last added of those that hold it), if any.
  package func room(containing point: Point) -> Int? {
    for index in rooms.indices.reversed() {
      let room = rooms[index]
      guard point.x >= room.minimum.x, point.x <= room.maximum.x, point.y >= room.minimum.y,
        point.y <= room.maximum.y
      else { continue }
      var inside = false
      var previous = room.polygon.count - 1
      for current in room.polygon.indices {
        let a = room.polygon[current]
        let b = room.polygon[previous]
        if (a.y > point.y) != (b.y > point.y), point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x {
          inside.toggle()
        }
        previous = current
      }
      if inside { return index }
    }
    return nil
  }
}
