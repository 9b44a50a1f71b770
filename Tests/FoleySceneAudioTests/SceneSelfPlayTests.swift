import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// SpriteKit's most common sound line, `self.run(.playSoundFileNamed(…))` in a scene's own
/// `didMove` or `update`, and several audio features on one node: each sound is heard on the disk
/// driver, one after another, and nothing crashes. (The scene's engine link and the node's audio
/// state once shared one storage slot; the first sound a scene played on itself freed its link.)
@MainActor
@Suite("Scenes that play from themselves (disk driver)", .serialized)
struct SceneSelfPlayTests {
  /// 50 ms of a constant level, so each sound is one flat segment in the output.
  static let burst = makeToneWAV(frequency: 0, duration: 0.05, amplitude: 0.4, channels: 1)

  /// Plays from itself in `didMove(to:)` (a file by name, bytes, a volume and a pan change, then
  /// bytes again), and from `update(_:)` on itself and on a child once the first sequence is done.
  final class SelfPlayingScene: Scene {
    let child = Node()
    let jingle = AudioNode(data: SceneSelfPlayTests.burst, name: "jingle.wav")
    var didMoveSequenceDone = false
    var updatePlaysStarted = false
    var allDone = false
    var updates = 0

    override func didMove(to view: SceneView) {
      addChild(child)
      jingle.autoplayLooped = false  // plays once, when asked
      jingle.isPositional = false
      addChild(jingle)
      run(
        .sequence([
          .playSoundFileNamed("burst.wav", waitForCompletion: true),
          .wait(forDuration: 0.1),
          .playSound(data: SceneSelfPlayTests.burst, name: "burst.wav", waitForCompletion: true),
          .wait(forDuration: 0.1),
          .changeVolume(to: 0.5, duration: 0),
          .stereoPan(to: -1, duration: 0),
          .playSound(data: SceneSelfPlayTests.burst, name: "burst.wav", waitForCompletion: true),
          .wait(forDuration: 0.1),
          .changeVolume(to: 1, duration: 0),
          .stereoPan(to: 0, duration: 0),
          .run { [unowned self] in didMoveSequenceDone = true },
        ]))
    }

    override func update(_ currentTime: TimeInterval) {
      updates += 1
      guard didMoveSequenceDone, !updatePlaysStarted else { return }
      updatePlaysStarted = true
      run(
        .sequence([
          .playSoundFileNamed("burst.wav", waitForCompletion: true),
          .wait(forDuration: 0.1),
          .run { [unowned self] in
            child.run(
              .sequence([
                .playSound(data: SceneSelfPlayTests.burst, name: "burst.wav", waitForCompletion: true),
                .wait(forDuration: 0.1),
                .run { [unowned self] in jingle.run(.play()) },
                .wait(forDuration: 0.2),
                .run { [unowned self] in allDone = true },
              ]))
          },
        ]))
    }
  }

  static func assets() throws -> URL {
    let folder = temporaryFile("assets")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try burst.write(to: folder.appendingPathComponent("burst.wav"))
    return folder
  }

  @Test("a scene runs sound actions on itself and its children from didMove and update: all six are heard")
  func scenePlaysFromItself() throws {
    let assets = try Self.assets()
    defer { try? FileManager.default.removeItem(at: assets) }
    var updates = 0
    var started = 0
    let url = temporaryFile("self-play.raw")
    defer { try? FileManager.default.removeItem(at: url) }
    try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": url.path]) {
      let engine = try AudioEngine(session: AudioSession(), assetRoots: [assets])
      defer { engine.close() }
      let scene = SelfPlayingScene(size: Size(width: 800, height: 600))
      engine.attach(to: scene)
      SceneView().presentScene(scene)
      #expect(waitUntil(stepping: scene, timeout: 30) { scene.allDone && scene.updates >= 100 })
      updates = scene.updates
      started = engine.statistics.started
      #expect(engine.statistics.failed == 0)
    }
    #expect(updates >= 100)
    #expect(started == 6)
    let heard = try DiskCapture(contentsOf: url, format: .float32)
    let segments = heard.left.segments(minimumGap: 2_400, threshold: 1e-3)
    try #require(segments.count == 6, "\(segments)")
    func level(_ signal: Signal, _ range: Range<Int>) -> Float { signal.peak(in: range) }
    let full = level(heard.left, segments[0])
    #expect(full > 0.2)
    for index in [1, 3, 4, 5] { #expect(abs(level(heard.left, segments[index]) - full) < 0.01 * full) }
    // The third, after changeVolume(to: 0.5) and stereoPan(to: -1): quieter, and only on the left.
    #expect(level(heard.left, segments[2]) < 0.75 * full && level(heard.left, segments[2]) > 0.2 * full)
    #expect(level(heard.right, segments[2]) < 1e-3)
  }

  @Test(
    "one audio node that plays itself, posts sound-map events and runs sound actions: every sound is heard")
  func featuresShareANode() throws {
    let assets = try Self.assets()
    defer { try? FileManager.default.removeItem(at: assets) }
    let url = temporaryFile("features.raw")
    defer { try? FileManager.default.removeItem(at: url) }
    var started = 0
    try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": url.path]) {
      let engine = try AudioEngine(session: AudioSession(), assetRoots: [assets])
      defer { engine.close() }
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene)
      let map = try SoundMap(
        json: Data(#"{ "version": 1, "events": { "hit": { "play": "burst.wav" } } }"#.utf8),
        relativeTo: assets,
        engine: engine)
      engine.use(map, for: scene)
      let node = AudioNode(data: Self.burst, name: "burst.wav")
      node.autoplayLooped = false
      node.isPositional = false
      scene.addChild(node)
      var done = false
      node.run(
        .sequence([
          .play(), .wait(forDuration: 0.15),
          .postEvent("hit"), .wait(forDuration: 0.15),
          .playSound(data: Self.burst, name: "burst.wav", waitForCompletion: true), .wait(forDuration: 0.1),
          .changeVolume(to: 0.5, duration: 0), .play(), .wait(forDuration: 0.15),
          .run { done = true },
        ]))
      #expect(waitUntil(stepping: scene, timeout: 30) { done })
      started = engine.statistics.started
      #expect(map.statistics.played == 1)
    }
    #expect(started == 4)
    let heard = try DiskCapture(contentsOf: url, format: .float32)
    let segments = heard.left.segments(minimumGap: 2_400, threshold: 1e-3)
    try #require(segments.count == 4, "\(segments)")
    let full = heard.left.peak(in: segments[0])
    #expect(full > 0.2)
    for index in 1...2 { #expect(abs(heard.left.peak(in: segments[index]) - full) < 0.01 * full) }
    // The node's own sound again, after changeVolume(to: 0.5): half as loud.
    #expect(abs(heard.left.peak(in: segments[3]) - 0.5 * full) < 0.01 * full)
  }
}
