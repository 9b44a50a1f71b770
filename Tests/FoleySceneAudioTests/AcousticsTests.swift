import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// Walls, doors and rooms heard in the mixed output (disk driver): a listener at the scene's
/// origin, a sound 300 points to its right or above, and the scene's acoustic geometry between.
@MainActor
@Suite("Walls, doors and rooms (disk driver)", .serialized)
struct AcousticsTests {
  /// A second-order section (the audio EQ cookbook's) for measuring bands.
  struct Band {
    var sections: [(b: [Double], a: [Double])]

    static func section(lowPass: Bool, at frequency: Double) -> (b: [Double], a: [Double]) {
      let omega = 2 * Double.pi * frequency / 48_000
      let alpha = sin(omega) / (2 * 0.5.squareRoot())
      let cosine = cos(omega)
      let a0 = 1 + alpha
      let b =
        lowPass
        ? [(1 - cosine) / 2, 1 - cosine, (1 - cosine) / 2]
        : [(1 + cosine) / 2, -(1 + cosine), (1 + cosine) / 2]
      return (b.map { $0 / a0 }, [1, -2 * cosine / a0, (1 - alpha) / a0])
    }

    /// 4–8 kHz (two high-passes at 4 kHz, two low-passes at 8 kHz), and under 250 Hz (four
    /// low-passes).
    static let high = Band(sections: [
      section(lowPass: false, at: 4_000), section(lowPass: false, at: 4_000),
      section(lowPass: true, at: 8_000),
      section(lowPass: true, at: 8_000),
    ])
    static let low = Band(sections: Array(repeating: section(lowPass: true, at: 250), count: 4))

    /// The band's level in dB over `samples`.
    func level(_ samples: ArraySlice<Float>) -> Double {
      var signal = samples.map(Double.init)
      for (b, a) in sections {
        var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
        for index in signal.indices {
          let x = signal[index]
          let y = b[0] * x + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2
          (x2, x1, y2, y1) = (x1, x, y1, y)
          signal[index] = y
        }
      }
      let power = signal.reduce(0) { $0 + $1 * $1 } / Double(max(1, signal.count))
      return 10 * log10(max(power, 1e-30))
    }
  }

  static let noise: Data = {
    let samples = whiteNoise(seconds: 1, seed: 7).map { Int16($0 * 0.4 * 32_767) }
    return makeWAV(samples: samples, sampleRate: 48_000, channels: 1)
  }()

  /// A scene attached to `engine` with its listener at the origin, no distance loss, and
  /// `geometry` in it.
  @MainActor
  static func listeningScene(on engine: AudioEngine, geometry: [AcousticNode]) -> Scene {
    let scene = Scene(size: Size(width: 800, height: 600))
    let listener = Node()
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.distanceModel = .none
    engine.attach(to: scene, positional: true, spatial: spatial)
    for node in geometry { scene.addChild(node) }
    return scene
  }

  /// Plays `sound` once at `source` with `geometry` in the scene; the output's left and right.
  static func hear(
    _ sound: Data = noise, at source: Point, geometry: [AcousticNode], during: ((Scene) -> Void)? = nil,
    reverb: Bool = false
  ) throws -> DiskCapture {
    try captureDiskOutput { engine, output in
      let scene = listeningScene(on: engine, geometry: geometry)
      if reverb { engine.reverb.apply(.hall) }
      let emitter = Node()
      emitter.position = source
      scene.addChild(emitter)
      emitter.run(.playSound(data: sound, name: "source.wav", waitForCompletion: false))
      during?(scene)
      #expect(
        waitUntil(stepping: scene) { engine.statistics.started == 1 && engine.voiceCensus() == VoiceCensus() }
      )
      // The reverb's tail, heard out.
      if reverb {
        #expect(waitUntil(stepping: scene) { !engine.isSounding })
        output.waitForMore(seconds: 0.6)
      }
    }
  }

  /// The level of a 0.2 s burst's reverb tail: both channels' RMS from 0.3 s after it ends, for
  /// 0.1 s.
  static func tail(_ capture: DiskCapture) throws -> Double {
    let start = try #require(capture.left.audibleRange(threshold: 0.05)?.lowerBound)
    try #require(start + 28_800 <= capture.left.samples.count, "the capture ends before the tail")
    let window = (start + 24_000)..<(start + 28_800)
    return capture.left.rms(in: window) + capture.right.rms(in: window)
  }

  static func wall(atX x: Double, material: AcousticMaterial = .wall) -> Wall {
    Wall(points: [Point(x: x, y: -300), Point(x: x, y: 300)], material: material)
  }

  /// The audible stretch of both channels.
  static func sound(_ capture: DiskCapture) throws -> Range<Int> {
    let left = capture.left.audibleRange(threshold: 1e-4)
    let right = capture.right.audibleRange(threshold: 1e-4)
    let start = try #require(min(left?.lowerBound ?? .max, right?.lowerBound ?? .max) as Int?)
    let end = max(left?.upperBound ?? 0, right?.upperBound ?? 0)
    try #require(end > start)
    return start..<end
  }

  @Test("a wall between darkens and attenuates by its material; the same wall behind changes nothing")
  func wallBetweenAndBehind() throws {
    let open = try Self.hear(at: Point(x: 300, y: 0), geometry: [])
    let between = try Self.hear(at: Point(x: 300, y: 0), geometry: [Self.wall(atX: 150)])
    let behind = try Self.hear(at: Point(x: 300, y: 0), geometry: [Self.wall(atX: -150)])
    func levels(_ capture: DiskCapture) throws -> (low: Double, high: Double) {
      let range = try Self.sound(capture)
      let right = capture.right.samples[range]
      return (Band.low.level(right), Band.high.level(right))
    }
    let (openLow, openHigh) = try levels(open)
    let (betweenLow, betweenHigh) = try levels(between)
    let (behindLow, behindHigh) = try levels(behind)
    // -12 dB through the wall, a low-pass at 1 kHz on top: 4–8 kHz falls by far more.
    #expect(abs(openLow - betweenLow - 12) < 1, "low band: \(openLow) open, \(betweenLow) through the wall")
    #expect(openHigh - betweenHigh >= 12 + 12, "4–8 kHz: \(openHigh) open, \(betweenHigh) through the wall")
    #expect(
      abs(openLow - behindLow) < 0.1 && abs(openHigh - behindHigh) < 0.1,
      "behind: \(behindLow), \(behindHigh)")
  }

  @Test("two walls crossed cost twice one wall's attenuation")
  func twoWalls() throws {
    let one = try Self.hear(at: Point(x: 300, y: 0), geometry: [Self.wall(atX: 150)])
    let two = try Self.hear(at: Point(x: 300, y: 0), geometry: [Self.wall(atX: 100), Self.wall(atX: 200)])
    let open = try Self.hear(at: Point(x: 300, y: 0), geometry: [])
    let level = { (capture: DiskCapture) throws -> Double in
      Band.low.level(capture.right.samples[try Self.sound(capture)])
    }
    let (openLevel, oneLevel, twoLevel) = (try level(open), try level(one), try level(two))
    #expect(
      abs((openLevel - twoLevel) - 2 * (openLevel - oneLevel)) < 1, "\(openLevel), \(oneLevel), \(twoLevel)")
  }

  /// A wall along y = 150 with a doorway from x = -250 to -150, the source behind it straight
  /// ahead at (0, 300).
  static func doorway(openness: Double) -> [AcousticNode] {
    [
      Wall(points: [Point(x: -600, y: 150), Point(x: -250, y: 150)]),
      Wall(points: [Point(x: -150, y: 150), Point(x: 600, y: 150)]),
      Portal(from: Point(x: -250, y: 150), to: Point(x: -150, y: 150), openness: openness),
    ]
  }

  @Test("behind a wall, an open door off to the left: heard from the left, louder than with the door shut")
  func soundComesThroughTheDoor() throws {
    let open = try Self.hear(at: Point(x: 0, y: 300), geometry: Self.doorway(openness: 1))
    let shut = try Self.hear(at: Point(x: 0, y: 300), geometry: Self.doorway(openness: 0))
    let openRange = try Self.sound(open)
    let shutRange = try Self.sound(shut)
    let openLeft = Band.low.level(open.left.samples[openRange])
    let openRight = Band.low.level(open.right.samples[openRange])
    let shutLeft = Band.low.level(shut.left.samples[shutRange])
    let shutRight = Band.low.level(shut.right.samples[shutRange])
    // Through the door: a pan of -0.47 (the door's -0.5, with the wall's -12 dB straight line
    // at 0): cos and sin of 0.13π, 7.1 dB to the left. Shut, the straight line only: centred.
    #expect(abs((openLeft - openRight) - 7.1) < 1, "open: left \(openLeft), right \(openRight)")
    #expect(abs(shutLeft - shutRight) < 0.5, "shut: left \(shutLeft), right \(shutRight)")
    // Open: the door's path at full level and the wall's at a quarter, by power 1.03; shut: the
    // wall's 0.25 alone. 12.3 dB louder, in the sum of both ears.
    let openPower = pow(10, openLeft / 10) + pow(10, openRight / 10)
    let shutPower = pow(10, shutLeft / 10) + pow(10, shutRight / 10)
    #expect(abs(10 * log10(openPower / shutPower) - 12.3) < 1, "\(openPower) against \(shutPower)")
  }

  @Test(
    "the inspector shows each voice's walls and path: -12 dB and the door when open, the straight line when shut"
  )
  func inspectorShowsThePath() throws {
    var seen: [VoiceAcoustics?] = []
    _ = try captureDiskOutput { engine, _ in
      let geometry = Self.doorway(openness: 1)
      let scene = Self.listeningScene(on: engine, geometry: geometry)
      let hidden = AudioNode(data: Self.noise, name: "behind.wav")
      hidden.position = Point(x: 0, y: 300)
      let beside = AudioNode(data: Self.noise, name: "behind.wav")
      beside.position = Point(x: 300, y: -100)
      scene.addChild(hidden)
      scene.addChild(beside)
      #expect(waitUntil(stepping: scene) { engine.voiceCensus().audible == 2 })
      @MainActor func look() -> [VoiceAcoustics?] {
        scene.update(deltaTime: 1.0 / 60)
        engine.waitUntilIdle()
        // By id: the one behind the wall started first (both play the same bytes, one sound).
        let voices = engine.inspector.snapshot().voices.sorted { $0.id < $1.id }
        return voices.count == 2 ? voices.map(\.acoustics) : []
      }
      seen = look()
      (geometry[2] as! Portal).openness = 0
      seen += look()
    }
    try #require(seen.count == 4)
    // Open: the straight line through the wall (-12 dB, 1 kHz), but the loudest way is the door.
    #expect(
      seen[0].map { abs($0.occlusionDecibels - -12) < 0.01 && $0.path == "portal 0" } == true, "\(seen)")
    #expect(seen[0].map { $0.cutoff > 1_000 } == true, "\(seen)")
    // Nothing between the listener and the sound beside it.
    #expect(
      seen[1].map { $0.occlusionDecibels == 0 && abs($0.cutoff - 20_000) < 1 && $0.path == "direct" } == true,
      "\(seen)")
    // Shut: only the straight line, through the wall at its 1 kHz.
    #expect(seen[2].map { $0.path == "direct" && abs($0.cutoff - 1_000) < 1 } == true, "\(seen)")
  }

  @Test("a door swinging shut over 0.5 s makes no sample step larger than the sound's own")
  func doorClosesSmoothly() throws {
    let tone = makeToneWAV(frequency: 200, duration: 1.5, amplitude: 0.5, channels: 1)
    let geometry = Self.doorway(openness: 1)
    let capture = try Self.hear(tone, at: Point(x: 0, y: 300), geometry: geometry) { _ in
      geometry[2].run(.sequence([.wait(forDuration: 0.4), .changeOpenness(to: 0, duration: 0.5)]))
    }
    let range = try Self.sound(capture)
    let sourceStep = Float(0.5 * 2 * Double.pi * 200 / 48_000) * 1.01
    for signal in [capture.left, capture.right] {
      // Past the voice's own de-click ramps at its start and end.
      let inner = (range.lowerBound + 2_400)..<(range.upperBound - 2_400)
      #expect(signal.largestStep(in: inner) <= sourceStep, "step \(signal.largestStep(in: inner))")
    }
    // And it did shut: the last half second is the wall's straight line, centred and quieter.
    let end = (range.upperBound - 14_400)..<(range.upperBound - 2_400)
    let start = (range.lowerBound + 2_400)..<(range.lowerBound + 14_400)
    #expect(capture.left.rms(in: start) > 2 * capture.left.rms(in: end))
  }

  @Test("a source in a ringing room leaves a tail 20 dB above the same source outside it")
  func roomsRing() throws {
    let burst = makeToneWAV(frequency: 440, duration: 0.2, amplitude: 0.5, channels: 1)
    let square = [
      Point(x: 100, y: -200), Point(x: 500, y: -200), Point(x: 500, y: 200), Point(x: 100, y: 200),
    ]
    let inside = try Self.hear(
      burst, at: Point(x: 300, y: 0), geometry: [Room(polygon: square, reverbSend: 0.8)], reverb: true)
    let outside = try Self.hear(
      burst, at: Point(x: -300, y: 0), geometry: [Room(polygon: square, reverbSend: 0.8)], reverb: true)
    let ringing = try Self.tail(inside)
    let dry = try Self.tail(outside)
    #expect(
      ringing > 1e-3 && 20 * log10(ringing / max(dry, 1e-9)) >= 20, "tail \(ringing) inside, \(dry) outside")
  }

  @Test("the listener's room sets the reverb's return: outside the ringing room its tail is 9 dB down")
  func listenersRoomSetsTheReturn() throws {
    let burst = makeToneWAV(frequency: 440, duration: 0.2, amplitude: 0.5, channels: 1)
    // The source at (300, 0) rings in both; the first room holds the listener at the origin too.
    func room(from left: Double) -> Room {
      Room(
        polygon: [
          Point(x: left, y: -200), Point(x: 500, y: -200), Point(x: 500, y: 200), Point(x: left, y: 200),
        ], reverbSend: 0.8)
    }
    let within = try Self.hear(burst, at: Point(x: 300, y: 0), geometry: [room(from: -100)], reverb: true)
    let without = try Self.hear(burst, at: Point(x: 300, y: 0), geometry: [room(from: 100)], reverb: true)
    let inside = try Self.tail(within)
    let outside = try Self.tail(without)
    let drop = 20 * log10(inside / max(outside, 1e-12))
    #expect(abs(drop - -20 * log10(Room.outsideReturnLevel)) < 1, "the tail is \(drop) dB lower outside")
  }
}

/// The geometry's grid against brute force, on random layouts.
@Suite("Acoustic geometry index")
struct AcousticGeometryTests {
  @Test("2,000 random layouts: the grid finds exactly the walls a line crosses, and the same path")
  func gridMatchesBruteForce() {
    var random = SplitMix(seed: 2_026)
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 50, rolloff: 1)
    for layout in 0..<2_000 {
      var geometry = AcousticGeometry()
      let walls = 1 + Int(random.next() % 60)
      for _ in 0..<walls {
        let a = Point(x: random.unit() * 1_000, y: random.unit() * 1_000)
        let b = Point(x: a.x + (random.unit() - 0.5) * 300, y: a.y + (random.unit() - 0.5) * 300)
        geometry.addWall([a, b], material: .wall)
      }
      for _ in 0..<Int(random.next() % 4) {
        let a = Point(x: random.unit() * 1_000, y: random.unit() * 1_000)
        geometry.addPortal(
          from: a, to: Point(x: a.x + 60, y: a.y), openness: random.unit(), closed: .wood)
      }
      geometry.index()
      let listener = Point(x: random.unit() * 1_200 - 100, y: random.unit() * 1_200 - 100)
      let source = Point(x: random.unit() * 1_200 - 100, y: random.unit() * 1_200 - 100)
      let expected = geometry.bruteForceCrossings(from: listener, to: source)
      let found = geometry.loss(from: listener, to: source).count
      #expect(found == expected, "layout \(layout): \(found) crossings found, \(expected) by brute force")
      // And a line from far outside the walls' ground (the grid clips it to its own edges).
      let far = Point(x: random.unit() * 8_000 - 3_500, y: random.unit() * 8_000 - 3_500)
      #expect(
        geometry.loss(from: far, to: source).count == geometry.bruteForceCrossings(from: far, to: source),
        "layout \(layout): from \(far)")
      // The path through the grid against one through brute force (every segment tested).
      var brute = geometry
      brute.index(cellsPerSide: 1)
      let fast = geometry.path(from: listener, to: source, spatial: spatial)
      let slow = brute.path(from: listener, to: source, spatial: spatial)
      // The same walls, met in another order: equal to rounding.
      #expect(
        fast.portal == slow.portal && fast.wallsCrossed == slow.wallsCrossed
          && abs(fast.gain - slow.gain) <= 1e-9 * max(slow.gain, 1e-300) && abs(fast.pan - slow.pan) < 1e-9
          && abs(fast.cutoff - slow.cutoff) < 1e-6, "layout \(layout): \(fast) against \(slow)")
    }
  }
}

/// A tile map's solid tiles turned into walls.
@MainActor
@Suite("Walls from tiles")
struct WallsFromTilesTests {
  @Test("a solid block gives its four edges, each merged into one wall; a notch adds its own edges")
  func mergesEdges() {
    var solid = [[Bool]](repeating: [Bool](repeating: false, count: 5), count: 5)
    for row in 1...3 { for column in 1...3 { solid[row][column] = true } }
    let walls = Wall.fromTiles(solid, tileSize: 10)
    let segments = Set(
      walls.map { "\($0.points[0].x),\($0.points[0].y)-\($0.points[1].x),\($0.points[1].y)" })
    #expect(
      segments == [
        "10.0,10.0-40.0,10.0", "10.0,40.0-40.0,40.0", "10.0,10.0-10.0,40.0", "40.0,10.0-40.0,40.0",
      ])
    // A notch in the top edge: the top splits in two, and the notch has a floor and two sides.
    solid[3][2] = false
    #expect(Wall.fromTiles(solid, tileSize: 10).count == 4 - 1 + 2 + 3)
    #expect(Wall.fromTiles([], tileSize: 10).isEmpty)
  }
}

/// A small seeded generator.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
