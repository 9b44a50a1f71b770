import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// A designer's audition: an event heard with parameters, and from a point of the scene.
@MainActor
@Suite("Sound map auditions")
struct SoundMapAuditionTests {
  @Test("an audition at a point is heard from there, through one node the map keeps in the scene")
  func auditionAtAPoint() throws {
    let folder = try makeToneFolder(["hit.wav": 0])
    defer { try? FileManager.default.removeItem(at: folder) }
    // A constant level, panned hard left by the point it is heard from.
    try makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.4, channels: 1).write(
      to: folder.appendingPathComponent("hit.wav"))
    var nodes: [Node] = []
    let capture = try captureDiskOutput { engine, _ in
      let scene = Scene(size: Size(width: 800, height: 600))
      var spatial = SpatialAudio()
      spatial.distanceModel = .none
      engine.attach(to: scene, spatial: spatial)
      let map = try SoundMap(
        json: Data(
          #"{ "version": 1, "events": { "ball.hit": { "play": "hit.wav", "positional": true } } }"#.utf8),
        relativeTo: folder, engine: engine)
      engine.use(map, for: scene)
      #expect(try map.audition("ball.hit", at: Point(x: 0, y: 300)).map(\.file) == ["hit.wav"])
      #expect(
        waitUntil(stepping: scene) { engine.statistics.started == 1 && engine.voiceCensus() == VoiceCensus() }
      )
      nodes = scene.children.filter { $0.name == SoundMap.auditionNodeName }
      #expect(nodes.first?.position == Point(x: 0, y: 300))
      // A second audition moves the same node; one without a point is a plain post.
      try map.audition("ball.hit", at: Point(x: 640, y: 100))
      #expect(scene.children.filter { $0.name == SoundMap.auditionNodeName }.count == 1)
      #expect(nodes.first?.position == Point(x: 640, y: 100))
      #expect(try map.audition("ball.hit").map(\.file) == ["hit.wav"])
      #expect(
        waitUntil(stepping: scene) { engine.statistics.started == 3 && engine.voiceCensus() == VoiceCensus() }
      )
      engine.stopUsing(map, for: scene)
      #expect(!scene.children.contains { $0.name == SoundMap.auditionNodeName })
    }
    #expect(nodes.count == 1)
    let first = try #require(capture.left.audibleRange(threshold: 0.01))
    let level = Float(Int16(0.4 * 32_767)) / 32_768
    #expect(abs(capture.left[first.lowerBound + 2_400] - level) < 1e-4)
    #expect(capture.right.peak(in: first.lowerBound..<(first.lowerBound + 4_800)) < 1e-4)
  }

  @Test(
    "an audition plays what was asked or nothing: an unknown event, parameter or value is refused with the nearest name"
  )
  func auditionsChecked() throws {
    let folder = try makeToneFolder(["wall.wav": 300, "player.wav": 600])
    defer { try? FileManager.default.removeItem(at: folder) }
    let capture = try captureDiskOutput { engine, _ in
      let map = try SoundMap(
        json: Data(
          #"""
          { "version": 1, "events": {
              "ball.hit": { "switch": { "parameter": "surface", "default": "wall",
                                        "cases": { "wall": "wall.wav", "player": "player.wav" } } },
              "chime.call": { "play": "wall.wav" } },
            "music": { "tracks": { "calm": { "stems": ["wall.wav", "player.wav"], "intensity": "danger" } },
                       "states": { "calm": { "track": "calm" } } } }
          """#.utf8),
        relativeTo: folder, engine: engine)
      let refusals: [(String, [String: EventValue], SoundMapAuditionError)] = [
        ("chime.cal", [:], .unknownEvent("chime.cal", suggestion: "chime.call")),
        (
          "ball.hit", ["surfce": "player"],
          .unknownParameter("surfce", event: "ball.hit", reads: ["surface"], suggestion: "surface")
        ),
        (
          "ball.hit", ["surface": "plyer"],
          .unknownValue(
            "plyer", parameter: "surface", event: "ball.hit", cases: ["player", "wall"], suggestion: "player")
        ),
        (
          "chime.call", ["surface": "wall"],
          .unknownParameter("surface", event: "chime.call", reads: [], suggestion: nil)
        ),
        (
          "music.state", ["state": "clam"],
          .unknownValue("clam", parameter: "state", event: "music.state", cases: ["calm"], suggestion: "calm")
        ),
        (
          "music.intensity", ["danger": "high"],
          .unknownValue("high", parameter: "danger", event: "music.intensity", cases: [], suggestion: nil)
        ),
      ]
      for (name, parameters, expected) in refusals {
        #expect(throws: expected) { try map.audition(name, parameters: parameters) }
      }
      #expect(
        SoundMapAuditionError.unknownValue(
          "plyer", parameter: "surface", event: "ball.hit", cases: ["player", "wall"], suggestion: "player"
        ).description
          == #"ball.hit: surface is never "plyer" (did you mean player?); its cases: player, wall"#)
      #expect(map.statistics.posted == 0 && map.statistics.unknown.isEmpty)
      try map.checkAudition("music.intensity", parameters: ["danger": 0.5])
      try map.checkAudition("music.state", parameters: ["state": "calm"])
      // What was asked is what plays: the player's case, heard, and nothing else.
      #expect(try map.audition("ball.hit", parameters: ["surface": "player"]).map(\.file) == ["player.wav"])
      #expect(waitUntil { engine.statistics.started == 1 && engine.voiceCensus() == VoiceCensus() })
    }
    let range = try #require(capture.left.audibleRange(threshold: 0.01))
    let heard = capture.left.frequency(in: range)
    #expect(abs(heard - 600) < 20, "heard \(heard) Hz")
  }
}
