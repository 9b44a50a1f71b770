import Dispatch
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
      // The reverb's return glides to the listener's room's level over 0.3 s: settled first.
      let settled = DispatchTime.now().uptimeNanoseconds + 500_000_000
      waitUntil(stepping: scene) { DispatchTime.now().uptimeNanoseconds > settled }
      let emitter = Node()
      emitter.position = source
      scene.addChild(emitter)
      emitter.run(.playSound(data: AcousticsTests.noise, name: "source.wav", waitForCompletion: false))
      #expect(waitUntil(stepping: scene) { engine.statistics.started == 1 && !engine.isSounding })
    }
  }

  /// Updates `space` for half a second: the reverb's return glides to the listener's room's
  /// level over 0.3 s.
  static func settle(_ space: AudioSpace) {
    let settled = DispatchTime.now().uptimeNanoseconds + 500_000_000
    waitUntil {
      space.update(deltaTime: 1.0 / 60)
      return DispatchTime.now().uptimeNanoseconds > settled
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
      settle(space)
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
    func largestDifference(in range: Range<Int>) -> Float {
      range.map {
        max(
          abs(nodes.left.samples[nodeStart + $0] - data.left.samples[dataStart + $0]),
          abs(nodes.right.samples[nodeStart + $0] - data.right.samples[dataStart + $0]))
      }.max() ?? 0
    }
    // On a quiet machine the two are the same samples from the first. On a loaded one the
    // scene's start varies from run to run (the space's does not) by up to 4e-4 in its first
    // tenth of a second, fading by the second tenth (the reverb's tail keeps some of it): the
    // rest of the noise's second is compared to the sample.
    let whole = largestDifference(in: 0..<length)
    let settled = largestDifference(in: 9_600..<48_000)
    #expect(settled < 1e-4, "largest difference \(settled) from 0.2 s to 1 s (\(whole) from the start)")
    // Muffled alike: the wall's bands within 1 dB of each other.
    let nodeRight = nodes.right.samples[(nodeStart + 9_600)..<(nodeStart + 48_000)]
    let dataRight = data.right.samples[(dataStart + 9_600)..<(dataStart + 48_000)]
    let open = AcousticsTests.Band.high.level(nodeRight) - AcousticsTests.Band.low.level(nodeRight)
    #expect(abs(AcousticsTests.Band.low.level(nodeRight) - AcousticsTests.Band.low.level(dataRight)) < 1)
    #expect(abs(AcousticsTests.Band.high.level(nodeRight) - AcousticsTests.Band.high.level(dataRight)) < 1)
    // And muffled at all: white noise's 4–8 kHz band is 12 dB above its band under 250 Hz (16
    // times as wide); through the brick and the door shut, the highs fall far below.
    #expect(open < 0, "4–8 kHz against under 250 Hz: \(open) dB")
  }
}
