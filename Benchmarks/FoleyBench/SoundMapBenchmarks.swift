import Foley
import Foundation
import Logging

/// What one post of a sound map event costs on the game thread, posted the way a game posts
/// (`scene.events.post`), against the engine call it ends in (`engine.play`) in the same run:
/// a plain event, and a positional one from a node.
@MainActor
enum SoundMapBenchmarks {
  static let map = #"""
    {
      "version": 1,
      "events": {
        "hit": { "play": "short.wav" },
        "hit.at": { "play": "short.wav", "positional": true }
      }
    }
    """#

  /// Game-thread CPU per post (or per `engine.play` when `event` is nil), `perFrame` a frame at
  /// 60 Hz, on an engine of 256 channels that steals the oldest.
  static func measure(
    _ short: Data, event: String?, posts: Int, perFrame: Int, logger: Logger
  ) throws -> Double {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("foley-bench-map-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try short.write(to: folder.appendingPathComponent("short.wav"))
    try Data(map.utf8).write(to: folder.appendingPathComponent("map.json"))
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: 256), session: AudioSession(), logger: logger)
    defer { engine.close() }
    let soundMap = try SoundMap(
      contentsOf: folder.appendingPathComponent("map.json"), engine: engine, seed: 1)
    soundMap.watchesFile = false
    let sound = try engine.sound(data: short)
    let scene = Scene()
    engine.attach(to: scene)
    engine.use(soundMap, for: scene)
    let node = Node()
    node.position = Point(x: 120, y: 40)
    scene.addChild(node)
    func once() {
      if let event {
        scene.events.post(event, from: node)
      } else {
        engine.play(sound)
      }
    }
    for _ in 0..<3 {  // warm up
      for _ in 0..<perFrame { once() }
      scene.update(deltaTime: 1.0 / 60.0)
    }
    engine.waitUntilIdle()
    let frames = max(1, posts / perFrame)
    var cpu: UInt64 = 0
    for _ in 0..<frames {
      let start = Clocks.threadCPUNanoseconds
      for _ in 0..<perFrame { once() }
      cpu += Clocks.threadCPUNanoseconds - start
      scene.update(deltaTime: 1.0 / 60.0)
    }
    engine.waitUntilIdle()
    if event != nil {
      precondition(soundMap.statistics.posted == (frames + 3) * perFrame, "every post must reach the map")
    }
    return Double(cpu) / Double(frames * perFrame) / 1_000
  }

  static func figures(_ short: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let posts = quick ? 20_000 : 100_000
    return [
      "soundmap_post_cpu_us": try measure(short, event: "hit", posts: posts, perFrame: 100, logger: logger),
      "soundmap_post_positional_cpu_us": try measure(
        short, event: "hit.at", posts: posts, perFrame: 100, logger: logger),
      "soundmap_post_reference_play_cpu_us": try measure(
        short, event: nil, posts: posts, perFrame: 100, logger: logger),
    ]
  }
}
