import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// The engine's space and a scene's nodes are two faces of one placement: the same walls, door and
/// room, listener and source, heard through each on the disk driver.
@MainActor
@Suite("The space and the scene hear alike (disk driver)", .serialized)
struct SpaceAndSceneTests {
  /// A wall at x = 150 with a shut door across its middle, the source's side a room.
  static let wallPoints = [
    [Point(x: 150, y: -300), Point(x: 150, y: -40)], [Point(x: 150, y: 40), Point(x: 150, y: 300)],
  ]
  static let door = (Point(x: 150, y: -40), Point(x: 150, y: 40))
  static let room = [
    Point(x: 150, y: -300), Point(x: 600, y: -300), Point(x: 600, y: 300), Point(x: 150, y: 300),
  ]
  static let source = Point(x: 300, y: 200)  // the straight line crosses the brick, not the door

  static var spatial: SpatialAudio {
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 100, rolloff: 1)
    return spatial
  }

  /// The source played once through a scene's `Wall`, `Portal` and `Room` nodes.
  static func throughNodes() throws -> DiskCapture {
    try captureDiskOutput { engine, _ in
      engine.reverb.apply(.room)
      let scene = Scene(size: Size(width: 800, height: 600))
      let listener = Node()
      scene.addChild(listener)
      scene.listener = listener
      engine.attach(to: scene, positional: true, spatial: spatial)
      for points in wallPoints { scene.addChild(Wall(points: points, material: .brick)) }
      scene.addChild(Portal(from: door.0, to: door.1, openness: 0, material: .wood))
      scene.addChild(Room(polygon: room, reverbSend: 0.4))
      let emitter = Node()
      emitter.position = source
      scene.addChild(emitter)
      emitter.run(.playSound(data: AcousticsTests.noise, name: "source.wav", waitForCompletion: false))
      #expect(waitUntil(stepping: scene) { engine.statistics.started == 1 && !engine.isSounding })
    }
  }

  /// The same through the engine's space, the geometry set as data.
  static func throughSpace() throws -> DiskCapture {
    try captureDiskOutput { engine, _ in
      engine.reverb.apply(.room)
      let space = engine.space
      space.spatial = spatial
      space.acoustics = AudioSpace.Acoustics(
        walls: wallPoints.map { .init(points: $0, material: .brick) },
        portals: [.init(from: door.0, to: door.1, openness: 0, material: .wood)],
        rooms: [.init(polygon: room, reverbSend: 0.4)])
      space.update(deltaTime: 1.0 / 60)
      let sound = try Sound(data: AcousticsTests.noise, name: "source.wav", engine: engine)
      let voice = space.play(sound, at: source)
      #expect(
        waitUntil {
          space.update(deltaTime: 1.0 / 60)
          return voice.isFinished && !engine.isSounding
        })
    }
  }

  @Test("walls, a door and a room as data sound as the same nodes do: the same samples, the same bands")
  func dataMatchesNodes() throws {
    let nodes = try Self.throughNodes()
    let data = try Self.throughSpace()
    let nodeStart = try #require(nodes.left.audibleRange(threshold: 1e-6)).lowerBound
    let dataStart = try #require(data.left.audibleRange(threshold: 1e-6)).lowerBound
    let length = 48_000 + 9_600  // the second of noise and the first of its reverb tail
    try #require(
      nodes.left.samples.count >= nodeStart + length && data.left.samples.count >= dataStart + length)
    var largest: Float = 0
    for offset in 0..<length {
      largest = max(
        largest, abs(nodes.left.samples[nodeStart + offset] - data.left.samples[dataStart + offset]),
        abs(nodes.right.samples[nodeStart + offset] - data.right.samples[dataStart + offset]))
    }
    #expect(largest < 1e-6, "largest difference \(largest)")
    // Muffled alike: the wall's bands within 1 dB of each other (they are the same samples).
    let nodeRight = nodes.right.samples[nodeStart..<(nodeStart + 48_000)]
    let dataRight = data.right.samples[dataStart..<(dataStart + 48_000)]
    let open = AcousticsTests.Band.high.level(nodeRight) - AcousticsTests.Band.low.level(nodeRight)
    #expect(abs(AcousticsTests.Band.low.level(nodeRight) - AcousticsTests.Band.low.level(dataRight)) < 1)
    #expect(abs(AcousticsTests.Band.high.level(nodeRight) - AcousticsTests.Band.high.level(dataRight)) < 1)
    // And muffled at all: white noise's 4–8 kHz band is 12 dB above its band under 250 Hz (16
    // times as wide); through the brick and the door shut, the highs fall far below.
    #expect(open < 0, "4–8 kHz against under 250 Hz: \(open) dB")
  }
}
