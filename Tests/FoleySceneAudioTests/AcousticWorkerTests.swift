import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

@testable import FoleySceneAudio

/// Moving voices placed through the walls by the acoustics worker: one update behind, walked
/// again once in `geometryUpdateSpread` updates, the same every run, its thread gone with the
/// scene's link.
@MainActor
@Suite("Moving voices through walls", .serialized)
struct AcousticWorkerTests {
  /// A wall across x = 150 from y = -100 to 100, and a door at y = 300 in a wall along y = 250.
  static func walls() -> [AcousticNode] {
    [
      Wall(points: [Point(x: 150, y: -100), Point(x: 150, y: 100)]),
      Wall(points: [Point(x: -400, y: 250), Point(x: -50, y: 250)]),
      Portal(from: Point(x: -50, y: 250), to: Point(x: 50, y: 250), openness: 0.6),
      Wall(points: [Point(x: 50, y: 250), Point(x: 400, y: 250)]),
    ]
  }

  /// The geometry the engine builds from those walls, built the engine's way (their scene's
  /// acoustics).
  static func geometry() throws -> AcousticGeometry {
    let scene = Scene(size: Size(width: 800, height: 600))
    for node in walls() { scene.addChild(node) }
    return try #require(SceneAcoustics.of(scene)).geometry(in: scene)
  }

  /// Where the moving source is at update `step`: round the listener, 320 points out, from below
  /// the wall's end (open), behind the wall (updates 9 to 31), open again, then behind the wall
  /// with the door (from update 38).
  static func place(_ step: Int) -> Point {
    let angle = -1 + Double(step) * 0.05
    return Point(x: 320 * cos(angle), y: 320 * sin(angle))
  }

  /// Whether a placement is `gain` and `pan` to single precision (the worker's answers are in
  /// the mixer's precision).
  static func matches(_ placement: SpatialPlacement, gain: Double, pan: Double) -> Bool {
    abs(placement.gain - gain) <= 1e-6 * max(gain, 1e-3) && abs(placement.pan - pan) <= 1e-6
  }

  /// Runs `updates` updates of a source moving by `place`, with the spread given; each update's
  /// placement of it (after the update).
  static func placements(updates: Int, spread: Int) throws -> [SpatialPlacement] {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let scene = Scene(size: Size(width: 800, height: 600))
    let listener = Node()
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 50, rolloff: 1)
    spatial.geometryUpdateSpread = spread
    engine.attach(to: scene, positional: true, spatial: spatial)
    for node in walls() { scene.addChild(node) }
    let sound = try engine.sound(
      data: makeToneWAV(frequency: 300, duration: 1, amplitude: 0.3), name: "tone.wav")
    let emitter = AudioNode(sound: sound)
    emitter.position = place(0)
    scene.addChild(emitter)
    let link = try #require(SceneAudioLink.of(scene))
    var placements: [SpatialPlacement] = []
    for step in 0..<updates {
      emitter.position = place(step)
      scene.update(deltaTime: 1.0 / 60)
      mixer.advance(seconds: 1.0 / 60)
      placements.append(try #require(link.followedPlacements.first?.placement))
    }
    return placements
  }

  @Test(
    "with a spread of 1, each update places a moving voice as the exact path from where it was one update before"
  )
  func oneUpdateBehind() throws {
    let placements = try Self.placements(updates: 120, spread: 1)
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 50, rolloff: 1)
    var geometry = try Self.geometry()
    var behindWalls = 0
    // Update 0 starts the voice, placed at once; from update 2 on, the worker's answers.
    for step in 2..<placements.count {
      let exact = geometry.path(from: Point(x: 0, y: 0), to: Self.place(step - 1), spatial: spatial)
      if exact.wallsCrossed > 0 { behindWalls += 1 }
      #expect(
        Self.matches(placements[step], gain: exact.gain, pan: exact.pan),
        "update \(step): placed \(placements[step]), the path from one update before \(exact.gain), \(exact.pan)"
      )
    }
    // The motion passed behind both the wall and the door's wall.
    #expect(behindWalls > 20)
  }

  @Test("with the default spread of 4, a voice moving behind a wall is muffled within 5 updates")
  func spreadKeepsUp() throws {
    let placements = try Self.placements(updates: 60, spread: 4)
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 50, rolloff: 1)
    var geometry = try Self.geometry()
    // Every placement is the path through walls walked within the last 4 updates, from one
    // update before.
    for step in 2..<placements.count {
      let source = Self.place(step - 1)
      let matches = (max(0, step - 5)...(step - 1)).contains { walked in
        let walls = geometry.walls(from: Point(x: 0, y: 0), to: Self.place(walked))
        let path = geometry.path(from: Point(x: 0, y: 0), to: source, walls: walls, spatial: spatial)
        return Self.matches(placements[step], gain: path.gain, pan: path.pan)
      }
      #expect(
        matches, "update \(step): \(placements[step]) is no path through walls walked in the last 4 updates")
    }
    // Behind the wall from update 9: its 12 dB (less the door's path) show by update 9 + 5.
    #expect(
      placements[14].gain < placements[5].gain / 2,
      "\(placements[14].gain) behind the wall against \(placements[5].gain) in the open")
  }

  @Test("the same updates give the same placements, run after run")
  func deterministic() throws {
    let first = try Self.placements(updates: 90, spread: 4)
    let second = try Self.placements(updates: 90, spread: 4)
    #expect(first == second)
  }

  @Test("the worker's thread ends when the scene is detached")
  func threadEnds() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let scene = Scene(size: Size(width: 800, height: 600))
    engine.attach(to: scene, positional: true)
    for node in Self.walls() { scene.addChild(node) }
    let sound = try engine.sound(
      data: makeToneWAV(frequency: 300, duration: 1, amplitude: 0.3), name: "tone.wav")
    let emitter = AudioNode(sound: sound)
    scene.addChild(emitter)
    for step in 0..<10 {
      emitter.position = Self.place(step)
      scene.update(deltaTime: 1.0 / 60)
    }
    let worker = try #require(SceneAudioLink.of(scene)?.acousticWorker)
    #expect(!worker.hasEnded)
    engine.detach(from: scene)
    #expect(waitUntil { worker.hasEnded })
  }

  @Test("a sound moved behind a wall is heard through it a few updates later (disk driver)")
  func movedBehindAWall() throws {
    let wall = Wall(points: [Point(x: 150, y: -100), Point(x: 150, y: 100)])
    // From (300, 240), the line to the listener passes the wall's end; from (300, 0), the wall.
    let capture = try AcousticsTests.hear(at: Point(x: 300, y: 240), geometry: [wall]) { scene in
      // At 0.4 s it steps behind the wall (listener at the origin, no distance loss, the same pan).
      scene.children.last?.run(
        .sequence([.wait(forDuration: 0.4), .move(to: Point(x: 300, y: 0), duration: 0)]))
    }
    let range = try AcousticsTests.sound(capture)
    let before = (range.lowerBound + 2_400)..<(range.lowerBound + 16_800)
    let after = (range.lowerBound + 26_400)..<(range.upperBound - 2_400)
    let open = AcousticsTests.Band.low.level(capture.right.samples[before])
    let walled = AcousticsTests.Band.low.level(capture.right.samples[after])
    #expect(abs(open - walled - 12) < 1.5, "low band: \(open) in the open, \(walled) behind the wall")
  }
}
