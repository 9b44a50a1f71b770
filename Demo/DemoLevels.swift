import Foley
import Foundation

/// One level of the hunt: where its chimes lie (the one being sought rings; the others wait their
/// turn), its balls, and the walls, doors and rooms the sound travels through. The walls are the
/// engine's acoustic geometry (`Wall`, `Portal`, `Room`): a chime behind one is muffled, a chime
/// in the next room is heard through the door, and a chime in the cave rings in its reverb — the
/// game computes none of it.
struct DemoLevel: Sendable {
  struct Ball: Sendable {
    var position: Point
    /// Points per second; its direction in radians.
    var speed: Double
    var heading: Double
  }

  struct Door: Sendable {
    var from: Point
    var to: Point
    /// Seconds between swinging shut and open again (nil: always open).
    var swings: Double?
  }

  struct Hall: Sendable {
    var name: String
    /// A rectangle: its lower-left corner and its size.
    var x: Double
    var y: Double
    var width: Double
    var height: Double
    var reverbSend: Double

    func contains(_ point: Point) -> Bool {
      point.x >= x && point.x <= x + width && point.y >= y && point.y <= y + height
    }

    var polygon: [Point] {
      [
        Point(x: x, y: y), Point(x: x + width, y: y), Point(x: x + width, y: y + height),
        Point(x: x, y: y + height),
      ]
    }
  }

  var number: Int
  var name: String
  /// Seconds to find every chime in.
  var seconds: Double
  var chimes: [Point]
  /// The chime (by index) that drifts back and forth while it is sought, and how far.
  var driftingChime: Int?
  var playerStart: Point
  var balls: [Ball]
  /// Walls as polylines (doors are gaps left in them).
  var walls: [[Point]]
  var doors: [Door]
  var halls: [Hall]

  static let all: [DemoLevel] = [openField, twoRooms, cave]

  /// The chimes' places for a round: as designed with no seed; with one, each moved up to
  /// ``seededReach`` points from its design in a direction the seed picks, staying in its room
  /// (the move crosses no wall and no door), clear of walls and the field's edges, and no nearer
  /// the player's start than its design less 30 points (a seed makes no level easier). The
  /// drifting chime keeps its place, so its path stays clear.
  func chimePlaces(seed: UInt64?, fieldWidth: Double, fieldTop: Double) -> [Point] {
    guard let seed else { return chimes }
    var state = seed &+ UInt64(number) &* 0x9E37_79B9_7F4A_7C15
    func next() -> Double {
      // SplitMix64: the same places for the same seed on every machine.
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    let barriers = segments + doors.map { ($0.from, $0.to) }
    return chimes.enumerated().map { index, designed in
      guard index != driftingChime else { return designed }
      let reach = Self.length(designed - playerStart)
      for _ in 0..<32 {
        let angle = next() * 2 * .pi
        let distance = (0.3 + 0.7 * next()) * Self.seededReach
        let place = Point(x: designed.x + cos(angle) * distance, y: designed.y + sin(angle) * distance)
        guard (30...(fieldWidth - 30)).contains(place.x), (30...(fieldTop - 30)).contains(place.y),
          Self.length(place - playerStart) >= reach - 30,
          segments.allSatisfy({ Self.length(place - WallContact.nearest(place, $0.0, $0.1)) >= 30 }),
          !barriers.contains(where: { Self.crosses(designed, place, $0.0, $0.1) })
        else { continue }
        return place
      }
      return designed
    }
  }

  static func length(_ v: Vector) -> Double { (v.dx * v.dx + v.dy * v.dy).squareRoot() }

  /// How far a seed may move a chime from its design, in points.
  static let seededReach = 80.0

  /// Whether segment `a`–`b` crosses segment `c`–`d`.
  static func crosses(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> Bool {
    func side(_ p: Point, _ q: Point, _ r: Point) -> Double {
      (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    }
    return side(a, b, c) * side(a, b, d) <= 0 && side(c, d, a) * side(c, d, b) <= 0
  }

  static func numbered(_ number: Int) -> DemoLevel {
    all[max(0, min(all.count - 1, number - 1))]
  }

  /// Level 1: an open field, three chimes, three slow balls.
  static let openField = DemoLevel(
    number: 1, name: "The open field", seconds: 75,
    chimes: [Point(x: 640, y: 400), Point(x: 150, y: 120), Point(x: 470, y: 90)],
    driftingChime: nil, playerStart: Point(x: 400, y: 260),
    balls: [
      Ball(position: Point(x: 120, y: 420), speed: 120, heading: 0.3),
      Ball(position: Point(x: 700, y: 150), speed: 120, heading: 2.2),
      Ball(position: Point(x: 300, y: 60), speed: 110, heading: 4.1),
    ],
    walls: [], doors: [], halls: [])

  /// Level 2: a wall across the field with a door; the east room rings.
  static let twoRooms = DemoLevel(
    number: 2, name: "Two rooms", seconds: 90,
    chimes: [Point(x: 660, y: 420), Point(x: 120, y: 380), Point(x: 560, y: 80), Point(x: 260, y: 100)],
    driftingChime: nil, playerStart: Point(x: 200, y: 250),
    balls: [
      Ball(position: Point(x: 100, y: 450), speed: 130, heading: 0.5),
      Ball(position: Point(x: 700, y: 200), speed: 130, heading: 2.4),
      Ball(position: Point(x: 300, y: 60), speed: 120, heading: 1.2),
      Ball(position: Point(x: 600, y: 460), speed: 120, heading: 4.0),
    ],
    walls: [[Point(x: 420, y: 0), Point(x: 420, y: 210)], [Point(x: 420, y: 300), Point(x: 420, y: 516)]],
    doors: [Door(from: Point(x: 420, y: 210), to: Point(x: 420, y: 300), swings: nil)],
    halls: [Hall(name: "east room", x: 420, y: 0, width: 380, height: 516, reverbSend: 0.45)])

  /// Level 3: a north hall and a cave behind a door that swings, five chimes, one drifting.
  static let cave = DemoLevel(
    number: 3, name: "The cave", seconds: 120,
    chimes: [
      Point(x: 90, y: 440), Point(x: 700, y: 420), Point(x: 380, y: 80), Point(x: 690, y: 90),
      Point(x: 330, y: 420),
    ],
    driftingChime: 4, playerStart: Point(x: 250, y: 150),
    balls: [
      Ball(position: Point(x: 100, y: 100), speed: 150, heading: 0.4),
      Ball(position: Point(x: 450, y: 200), speed: 150, heading: 2.0),
      Ball(position: Point(x: 200, y: 450), speed: 140, heading: 5.5),
      Ball(position: Point(x: 650, y: 300), speed: 140, heading: 3.5),
      Ball(position: Point(x: 700, y: 60), speed: 130, heading: 1.9),
    ],
    walls: [
      [Point(x: 0, y: 320), Point(x: 190, y: 320)], [Point(x: 270, y: 320), Point(x: 560, y: 320)],
      [Point(x: 560, y: 0), Point(x: 560, y: 230)], [Point(x: 560, y: 310), Point(x: 560, y: 516)],
    ],
    doors: [
      Door(from: Point(x: 190, y: 320), to: Point(x: 270, y: 320), swings: nil),
      Door(from: Point(x: 560, y: 230), to: Point(x: 560, y: 310), swings: 7),
    ],
    halls: [
      Hall(name: "north hall", x: 0, y: 320, width: 560, height: 196, reverbSend: 0.25),
      Hall(name: "cave", x: 560, y: 0, width: 240, height: 516, reverbSend: 0.7),
    ])

  /// The walls' segments, each once.
  var segments: [(Point, Point)] {
    walls.flatMap { line in zip(line, line.dropFirst()).map { ($0, $1) } }
  }
}

/// Circles against walls: balls bounce off them, the player is held back by them (a door's gap
/// lets both through).
enum WallContact {
  /// The nearest point of segment `a`–`b` to `p`.
  static func nearest(_ p: Point, _ a: Point, _ b: Point) -> Point {
    let ab = b - a
    let length = ab.dx * ab.dx + ab.dy * ab.dy
    guard length > 0 else { return a }
    let t = max(0, min(1, ((p.x - a.x) * ab.dx + (p.y - a.y) * ab.dy) / length))
    return Point(x: a.x + ab.dx * t, y: a.y + ab.dy * t)
  }

  /// The most sub-steps one move is cut into (a second's move of the fastest ball is 60).
  static let maximumSubsteps = 1_000

  /// How many sub-steps a move of `distance` takes for a circle of `radius`: none longer than
  /// half the radius, so the circle can never pass a wall between two of them.
  static func substeps(distance: Double, radius: Double) -> Int {
    guard distance.isFinite, distance > 0 else { return 1 }
    return max(1, min(maximumSubsteps, Int((distance / (radius / 2)).rounded(.up))))
  }

  /// Moves a circle of `radius` from `position` by `move`, in sub-steps no longer than half its
  /// radius, held inside `bounds` and pushed out of every segment at each: however long the
  /// step, it cannot be carried through a wall. Returns the normals it was pushed along.
  static func sweep(
    _ position: inout Point, by move: Vector, radius: Double, segments: [(Point, Point)],
    bounds: ClosedRange<Double>, _ yBounds: ClosedRange<Double>
  ) -> [Vector] {
    let length = (move.dx * move.dx + move.dy * move.dy).squareRoot()
    let steps = substeps(distance: length, radius: radius)
    let part = steps > 1 ? move * (1 / Double(steps)) : move
    var normals: [Vector] = []
    for _ in 0..<steps {
      position = position + part
      position.x = min(max(position.x, bounds.lowerBound), bounds.upperBound)
      position.y = min(max(position.y, yBounds.lowerBound), yBounds.upperBound)
      normals += pushOut(&position, radius: radius, segments: segments)
    }
    return normals
  }

  /// Moves a circle of `radius` at `position` out of every segment it overlaps; returns the
  /// normals it was pushed along (empty when it touched none).
  static func pushOut(_ position: inout Point, radius: Double, segments: [(Point, Point)]) -> [Vector] {
    var normals: [Vector] = []
    for (a, b) in segments {
      let near = nearest(position, a, b)
      let offset = position - near
      let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
      guard distance < radius else { continue }
      let normal = distance > 1e-9 ? offset * (1 / distance) : Vector(dx: b.y - a.y, dy: a.x - b.x).unit
      position = near + normal * radius
      normals.append(normal)
    }
    return normals
  }
}

extension Vector {
  fileprivate var unit: Vector {
    let length = (dx * dx + dy * dy).squareRoot()
    return length > 0 ? self * (1 / length) : Vector(dx: 1, dy: 0)
  }
}
