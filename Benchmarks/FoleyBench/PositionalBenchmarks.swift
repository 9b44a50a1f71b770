import CFoleyAllocCounter
import Foley
import Foundation
import Logging

/// 256 positional voices moving every frame: 256 looping `AudioNode`s circling the listener, the
/// scene updating at 60 Hz on this thread for a fixed wall time. Game-thread CPU per update (the
/// moves and the scene's update, which places every voice; not the circles' trigonometry, the
/// game's own work, computed before the clock starts as in C) and process CPU as a share of a core;
/// the C reference (`raw_mixer positional`: `Mix_SetPosition` on 256 channels each frame) runs
/// beside it in `Scripts/bench.sh`. The same again among 1,000 wall segments and 20 doors, each
/// voice heard through them; and the same 256 through the engine's space (`engine.space`: a voice
/// per emitter, moved and updated with no scene).
@MainActor
enum PositionalBenchmarks {
  static let voices = 256

  /// 1,000 wall segments (a maze of 100 ten-segment walls over the emitters' ground) and 20 open
  /// doors, for the geometry row.
  static func maze() -> [AcousticNode] {
    var nodes: [AcousticNode] = []
    for wall in 0..<100 {
      let row = Double(wall / 10)
      let column = Double(wall % 10)
      let origin = Point(x: -560 + column * 112, y: -560 + row * 112)
      // A zigzag of ten short segments across its cell.
      let points = (0...10).map { step in
        Point(x: origin.x + Double(step) * 9, y: origin.y + (step % 2 == 0 ? 0 : 40))
      }
      nodes.append(Wall(points: points))
    }
    for door in 0..<20 {
      let x = -500 + Double(door % 5) * 250
      let y = -450 + Double(door / 5) * 300
      nodes.append(Portal(from: Point(x: x, y: y), to: Point(x: x + 40, y: y), openness: 0.5))
    }
    return nodes
  }

  /// Where emitter `index` is at `time`: each of 256 on its own circle round the origin (30 to
  /// 540 points out), at its own speed, so every voice's distance and pan change every frame.
  static func circlePosition(_ index: Int, at time: Double) -> Point {
    let angle = time * (0.5 + Double(index % 7) * 0.2) + Double(index) * 2.399
    let radius = 30 + Double(index % 256) * 2
    return Point(x: radius * cos(angle), y: radius * sin(angle))
  }

  /// - Parameter voices: how many emitters move (the scale curves take 4 and 16 times the row's
  ///   256); the channels stop at 1,024, past which the quietest are virtual.
  static func measure(
    _ long: Data, seconds: Double, geometry: Bool = false, spread: Int = SpatialAudio().geometryUpdateSpread,
    voices: Int = voices, throughSpace: Bool = false, logger: Logger
  ) throws -> (update: Double, percent: Double) {
    var configuration = AudioConfiguration()
    configuration.initialChannels = min(voices, 1_024)
    configuration.maximumChannels = min(voices, 1_024)
    let engine = try AudioEngine(configuration: configuration, session: AudioSession(), logger: logger)
    defer { engine.close() }
    var settings = SoundSettings()
    settings.volume = 0.02
    let sound = try Sound(data: long, name: "long.wav", engine: engine, settings: settings)
    let scene = Scene(size: Size(width: 800, height: 600))
    let listener = Node()
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.geometryUpdateSpread = spread
    let space = engine.space
    if throughSpace {
      space.spatial = spatial
    } else {
      engine.attach(to: scene, positional: true, spatial: spatial)
    }
    if geometry { for node in maze() { scene.addChild(node) } }
    let emitters = throughSpace ? [] : (0..<voices).map { _ in AudioNode(sound: sound) }
    for emitter in emitters { scene.addChild(emitter) }
    let spaceVoices =
      throughSpace ? (0..<voices).map { space.play(sound, at: circlePosition($0, at: 0), loops: -1) } : []
    var time = 0.0
    var positions = [Point](repeating: .zero, count: voices)
    // The game's own work, outside the timed part (the C reference leaves out the same): where
    // each emitter is this frame. Each on its own circle (30 to 540 points out), at its own speed:
    // every voice's distance and pan change every frame.
    func nextPositions() {
      time += 1.0 / 60
      for index in 0..<voices { positions[index] = circlePosition(index, at: time) }
    }
    // Foley's part: the moves and the scene's update, which places every voice.
    func frame() {
      if throughSpace {
        for index in spaceVoices.indices { space.move(spaceVoices[index], to: positions[index]) }
        space.update(deltaTime: 1.0 / 60)
        return
      }
      for (index, emitter) in emitters.enumerated() { emitter.position = positions[index] }
      scene.update(deltaTime: 1.0 / 60)
    }
    for _ in 0..<30 {
      nextPositions()
      frame()
    }
    engine.waitUntilIdle()
    precondition(
      geometry || engine.voiceCensus().audible == min(voices, 1_024),
      "every emitter a channel holds must be heard")
    Clocks.sleep(seconds: 0.5)
    let before = Clocks.processCPUNanoseconds
    let start = Clocks.wallNanoseconds
    var next = start
    var updateCPU: UInt64 = 0
    var updates = 0
    while Clocks.wallNanoseconds - start < UInt64(seconds * 1e9) {
      nextPositions()
      let cpu = Clocks.threadCPUNanoseconds
      frame()
      updateCPU += Clocks.threadCPUNanoseconds - cpu
      updates += 1
      next += 16_666_667
      let now = Clocks.wallNanoseconds
      if next > now { Clocks.sleep(seconds: Double(next - now) / 1e9) }
    }
    let wall = Double(Clocks.wallNanoseconds - start) / 1e9
    let process = Double(Clocks.processCPUNanoseconds - before) / 1e9
    return (Double(updateCPU) / Double(updates) / 1_000, process / wall * 100)
  }

  static func figures(_ long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    // The mixing thread takes the moving voices' placements itself: it must allocate nothing
    // doing so.
    let allocationsBefore = foley_realtime_allocations()
    let measured = try measure(long, seconds: quick ? 3 : 8, logger: logger)
    let allocations = foley_realtime_allocations()
    let walled = try measure(long, seconds: quick ? 3 : 8, geometry: true, logger: logger)
    let everyUpdate = try measure(long, seconds: quick ? 3 : 8, geometry: true, spread: 1, logger: logger)
    let spaceBefore = foley_realtime_allocations()
    let space = try measure(long, seconds: quick ? 3 : 8, throughSpace: true, logger: logger)
    let spaceAllocations = foley_realtime_allocations()
    return [
      "space_update_us_256": space.update, "space_cpu_percent_256": space.percent,
      "space_audio_thread_allocations": spaceBefore < 0 ? -1 : spaceAllocations - spaceBefore,
      "positional_geometry_every_update_us_256": everyUpdate.update,
      "positional_geometry_cpu_percent_256": walled.percent,
      "positional_geometry_every_update_cpu_percent_256": everyUpdate.percent,
      "positional_update_us_256": measured.update, "positional_cpu_percent_256": measured.percent,
      // -1: the counter is compiled out (a sanitizer build).
      "positional_audio_thread_allocations": allocationsBefore < 0 ? -1 : allocations - allocationsBefore,
      "positional_geometry_update_us_256": walled.update,
    ]
  }
}
