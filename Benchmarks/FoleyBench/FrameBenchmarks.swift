import Foley
import Foundation
import Logging

/// A busy 2D game's whole frame: 2,000 nodes of which 500 run actions, 256 looping positional
/// voices moving among 1,000 wall segments and 20 doors, 64 sound triggers a frame (32 positional
/// sound-map posts with captions, 32 `playSound` actions), music in two stems and captions on,
/// stepped at 60 Hz of wall time. Game-thread CPU per frame (median and 99th percentile) and
/// process CPU, beside the same scene with sound disabled (no engine: the same nodes, actions
/// and moves, no voices, no triggers), so the sound's share of a frame is the difference.
@MainActor
enum FrameBenchmarks {
  static let map = #"""
    {
      "version": 1,
      "events": {
        "hit": { "play": "short.wav", "positional": true, "caption": "Hit" }
      }
    }
    """#

  struct Frame {
    var medianMicroseconds: Double
    var p99Microseconds: Double
    var processPercent: Double
  }

  static func measure(
    short: Data, long: Data, sound: Bool, seconds: Double, scale: Int = 1, logger: Logger
  ) throws -> Frame {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-bench-frame-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try short.write(to: folder.appendingPathComponent("short.wav"))
    try Data(map.utf8).write(to: folder.appendingPathComponent("map.json"))
    let bass = folder.appendingPathComponent("bass.wav")
    let pad = folder.appendingPathComponent("pad.wav")
    try BenchSounds.tone(seconds: 8, frequency: 110).write(to: bass)
    try BenchSounds.tone(seconds: 8, frequency: 330).write(to: pad)

    let scene = Scene(size: Size(width: 800, height: 600), seed: 1)
    let listener = Node()
    scene.addChild(listener)
    scene.listener = listener
    // 2,000 nodes (the game's sprites), 500 of them moving back and forth by actions.
    var sprites: [Node] = []
    for index in 0..<(2_000 * scale) {
      let node = Node()
      node.position = Point(x: Double(index % 50) * 16 - 400, y: Double(index / 50 % 40) * 15 - 300)
      scene.addChild(node)
      if index % 4 == 0 {
        node.run(
          .repeatForever(
            .sequence([
              .move(by: Vector(dx: 30, dy: 10), duration: 0.8),
              .move(by: Vector(dx: -30, dy: -10), duration: 0.8),
            ])))
      }
      sprites.append(node)
    }
    for node in PositionalBenchmarks.maze() { scene.addChild(node) }

    var engine: AudioEngine?
    var soundMap: SoundMap?
    var emitters: [Node] = []
    var hit: Action?
    let voices = 256 * scale
    if sound {
      var configuration = AudioConfiguration()
      configuration.initialChannels = 256
      configuration.maximumChannels = 256
      let made = try AudioEngine(configuration: configuration, session: AudioSession(), logger: logger)
      engine = made
      var settings = SoundSettings()
      settings.volume = 0.02
      let loop = try Sound(data: long, name: "long.wav", engine: made, settings: settings)
      made.attach(to: scene, positional: true)
      let map = try SoundMap(contentsOf: folder.appendingPathComponent("map.json"), engine: made, seed: 1)
      map.watchesFile = false
      made.use(map, for: scene)
      soundMap = map
      made.captions.isEnabled = true
      try made.music.play(
        stems: [Track(url: bass, loopCount: -1), Track(url: pad, loopCount: -1)], levels: [1, 0.5])
      emitters = (0..<voices).map { _ in AudioNode(sound: loop) }
      hit = .playSound(data: short, name: "short.wav")
    } else {
      emitters = (0..<voices).map { _ in Node() }
    }
    for emitter in emitters { scene.addChild(emitter) }
    defer { engine?.close() }

    var time = 0.0
    var positions = [Point](repeating: .zero, count: voices)
    // The game's own work, outside the timed part: where each emitter is this frame.
    func nextPositions() {
      time += 1.0 / 60
      for index in 0..<voices { positions[index] = PositionalBenchmarks.circlePosition(index, at: time) }
    }
    var frameNumber = 0
    func frame() {
      for (index, emitter) in emitters.enumerated() { emitter.position = positions[index] }
      if sound {
        for trigger in 0..<(32 * scale) {
          let node = sprites[(frameNumber * 64 + trigger * 2) % sprites.count]
          scene.events.post("hit", from: node)
          sprites[(frameNumber * 64 + trigger * 2 + 1) % sprites.count].run(hit!)
        }
      }
      scene.update(deltaTime: 1.0 / 60)
      frameNumber += 1
    }
    for _ in 0..<60 {
      nextPositions()
      frame()
    }
    engine?.waitUntilIdle()
    Clocks.sleep(seconds: 0.5)
    var samples: [UInt64] = []
    samples.reserveCapacity(Int(seconds * 60) + 60)
    let before = Clocks.processCPUNanoseconds
    let start = Clocks.wallNanoseconds
    var next = start
    while Clocks.wallNanoseconds - start < UInt64(seconds * 1e9) {
      nextPositions()
      let cpu = Clocks.threadCPUNanoseconds
      frame()
      samples.append(Clocks.threadCPUNanoseconds - cpu)
      next += 16_666_667
      let now = Clocks.wallNanoseconds
      if next > now { Clocks.sleep(seconds: Double(next - now) / 1e9) }
    }
    let wall = Double(Clocks.wallNanoseconds - start) / 1e9
    let process = Double(Clocks.processCPUNanoseconds - before) / 1e9
    if let soundMap {
      precondition(
        soundMap.statistics.posted >= frameNumber * 32 * scale - 64, "every post must reach the map")
    }
    samples.sort()
    return Frame(
      medianMicroseconds: Double(samples[samples.count / 2]) / 1_000,
      p99Microseconds: Double(samples[min(samples.count - 1, samples.count * 99 / 100)]) / 1_000,
      processPercent: process / wall * 100)
  }

  static func figures(short: Data, long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let seconds = quick ? 8.0 : 30.0
    let loud = try measure(short: short, long: long, sound: true, seconds: seconds, logger: logger)
    let silent = try measure(short: short, long: long, sound: false, seconds: seconds, logger: logger)
    return [
      "frame_us_median": loud.medianMicroseconds, "frame_us_p99": loud.p99Microseconds,
      "frame_cpu_percent": loud.processPercent,
      "frame_silent_us_median": silent.medianMicroseconds, "frame_silent_us_p99": silent.p99Microseconds,
      "frame_silent_cpu_percent": silent.processPercent,
      "frame_sound_share_us_median": loud.medianMicroseconds - silent.medianMicroseconds,
      "frame_sound_share_us_p99": loud.p99Microseconds - silent.p99Microseconds,
    ]
  }
}
