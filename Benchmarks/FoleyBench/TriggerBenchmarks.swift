import CFoleyAllocCounter
import Foley
import FoleyAudioTesting
import Foundation
import Logging

/// What one sound trigger costs: on the game thread (the action running and the request queued)
/// and in the whole process (the audio queue starting the voice and SDL mixing it too), at
/// several channel counts and node counts.
@MainActor
enum TriggerBenchmarks {
  struct Cost {
    var gameWallMicroseconds = 0.0
    var gameCPUMicroseconds = 0.0
    var processCPUMicroseconds = 0.0
    var endToEndWallMicroseconds = 0.0
    /// Allocations per trigger on the game thread, and in the whole process (the audio queue's
    /// and SDL's threads too); -1 when the counter is compiled out.
    var gameAllocations = 0.0
    var processAllocations = 0.0
  }

  static func configuration(channels: Int) -> AudioConfiguration {
    var configuration = AudioConfiguration()
    configuration.initialChannels = channels
    configuration.maximumChannels = channels
    return configuration
  }

  /// `nodes` nodes each run `.playSound(data:)` once a frame until `triggers` have run, on an
  /// engine with `channels` channels (steal-oldest at the cap), the scene updating at 60 Hz;
  /// with a capture of every command to `capture` running through the measured frames, if given.
  static func measure(
    _ sound: Data, triggers: Int, nodes count: Int, channels: Int, capture: URL? = nil, logger: Logger
  ) throws -> Cost {
    let engine = try AudioEngine(
      configuration: configuration(channels: channels), session: AudioSession(), logger: logger)
    defer { engine.close() }
    _ = try engine.sound(data: sound)  // decoded ahead, as a game preloads
    let scene = Scene()
    engine.attach(to: scene)
    let nodes = (0..<count).map { _ in Node() }
    for node in nodes { scene.addChild(node) }
    let action = Action.playSound(data: sound)
    // Warm up: the channel pool grows, the queues reach their working size.
    for _ in 0..<3 {
      for node in nodes { node.run(action) }
      scene.update(deltaTime: 1.0 / 60.0)
    }
    engine.waitUntilIdle()
    if let capture { try engine.startCapture(to: capture, replacing: true, limit: 1 << 30) }
    let frames = max(1, triggers / count)
    var cost = Cost()
    let gameAllocationsStart = foley_thread_allocations()
    let processAllocationsStart = foley_total_allocations()
    let processStart = Clocks.processCPUNanoseconds
    let wallStart = Clocks.wallNanoseconds
    var gameCPU: UInt64 = 0
    var gameWall: UInt64 = 0
    for _ in 0..<frames {
      let cpu = Clocks.threadCPUNanoseconds
      let wall = Clocks.wallNanoseconds
      for node in nodes { node.run(action) }
      scene.update(deltaTime: 1.0 / 60.0)
      gameCPU += Clocks.threadCPUNanoseconds - cpu
      gameWall += Clocks.wallNanoseconds - wall
    }
    let gameAllocationsEnd = foley_thread_allocations()
    engine.waitUntilIdle()
    // The capture's lines written: its writer's work is part of the process's.
    if capture != nil {
      precondition(engine.stopCapture()?.endedBy == "stopped", "the capture must hold it all")
    }
    let processAllocationsEnd = foley_total_allocations()
    let total = Double(frames * count)
    cost.gameAllocations =
      gameAllocationsStart < 0 ? -1 : Double(gameAllocationsEnd - gameAllocationsStart) / total
    cost.processAllocations =
      processAllocationsStart < 0 ? -1 : Double(processAllocationsEnd - processAllocationsStart) / total
    cost.gameCPUMicroseconds = Double(gameCPU) / total / 1_000
    cost.gameWallMicroseconds = Double(gameWall) / total / 1_000
    cost.processCPUMicroseconds = Double(Clocks.processCPUNanoseconds - processStart) / total / 1_000
    cost.endToEndWallMicroseconds = Double(Clocks.wallNanoseconds - wallStart) / total / 1_000
    precondition(engine.statistics.requested == (frames + 3) * count, "every trigger must reach the engine")
    return cost
  }

  /// Allocations per trigger as a game makes them: `nodes` nodes each run `.playSound(data:)`
  /// once a frame, the frames paced at 60 Hz of wall time, so the mix runs in step and the voices
  /// end as they would in play. Counted over the last `frames` frames, after as many to warm up
  /// (the engine's pools reach their working size). -1 when the counter is compiled out.
  static func pacedAllocations(
    _ sound: Data, nodes count: Int, channels: Int, frames: Int, logger: Logger
  ) throws -> (game: Double, process: Double, gameCPUMicroseconds: Double) {
    let engine = try AudioEngine(
      configuration: configuration(channels: channels), session: AudioSession(), logger: logger)
    defer { engine.close() }
    _ = try engine.sound(data: sound)
    let scene = Scene()
    engine.attach(to: scene)
    let nodes = (0..<count).map { _ in Node() }
    for node in nodes { scene.addChild(node) }
    let action = Action.playSound(data: sound)
    let period: UInt64 = 1_000_000_000 / 60
    var next = Clocks.wallNanoseconds
    var gameCPU: UInt64 = 0
    func frame() {
      let cpu = Clocks.threadCPUNanoseconds
      for node in nodes { node.run(action) }
      scene.update(deltaTime: 1.0 / 60.0)
      gameCPU += Clocks.threadCPUNanoseconds - cpu
      next += period
      let now = Clocks.wallNanoseconds
      if next > now { usleep(UInt32((next - now) / 1_000)) }
    }
    for _ in 0..<frames { frame() }
    gameCPU = 0
    let gameStart = foley_thread_allocations()
    let processStart = foley_total_allocations()
    for _ in 0..<frames { frame() }
    let game = foley_thread_allocations() - gameStart
    let process = foley_total_allocations() - processStart
    let total = Double(frames * count)
    let cpu = Double(gameCPU) / total / 1_000
    return gameStart < 0 ? (-1, -1, cpu) : (Double(game) / total, Double(process) / total, cpu)
  }

  static func figures(_ short: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let triggers = quick ? 20_000 : 100_000
    let main = try measure(short, triggers: triggers, nodes: 100, channels: 256, logger: logger)
    var figures: [String: Any] = [
      "trigger_us": main.gameWallMicroseconds,
      "trigger_end_to_end_us": main.endToEndWallMicroseconds,
      "trigger_cpu_us": main.gameCPUMicroseconds,
      "trigger_process_cpu_us": main.processCPUMicroseconds,
      "trigger_burst_allocations": main.gameAllocations,
      "trigger_burst_process_allocations": main.processAllocations,
    ]
    // Paced at 60 Hz, as a game runs: with 100 and with 1,000 nodes triggering each frame. What
    // a frame costs whatever its triggers (the queue hop) is the same in both; the difference over
    // the 900 extra triggers a frame is what one trigger costs.
    let frames = quick ? 60 : 180
    let few = try pacedAllocations(short, nodes: 100, channels: 256, frames: frames, logger: logger)
    let many = try pacedAllocations(short, nodes: 1_000, channels: 256, frames: frames, logger: logger)
    func perTrigger(_ few: Double, _ many: Double) -> Double {
      few < 0 ? -1 : max(0, (many * 1_000 - few * 100) / 900)
    }
    figures["trigger_allocations"] = perTrigger(few.game, many.game)
    figures["trigger_process_allocations"] = perTrigger(few.process, many.process)
    figures["trigger_allocations_per_frame"] = few.game < 0 ? -1 : few.game * 100
    figures["trigger_paced_cpu_us"] = few.gameCPUMicroseconds
    var byChannels: [String: Double] = [:]
    for channels in [16, 64, 256, 1_024] {
      byChannels["\(channels)"] =
        try measure(short, triggers: triggers / 2, nodes: 100, channels: channels, logger: logger)
        .processCPUMicroseconds
    }
    figures["trigger_process_cpu_us_by_channels"] = byChannels
    var byNodes: [String: Double] = [:]
    for nodes in [100, 1_000, 5_000] {
      byNodes["\(nodes)"] =
        try measure(
          short, triggers: max(triggers / 2, nodes * 10), nodes: nodes, channels: 256, logger: logger
        )
        .gameCPUMicroseconds
    }
    figures["trigger_cpu_us_by_nodes"] = byNodes
    // The same triggers with a capture writing every one of them.
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-bench-\(getpid()).foleycapture")
    defer { try? FileManager.default.removeItem(at: file) }
    let captured = try measure(
      short, triggers: triggers, nodes: 100, channels: 256, capture: file, logger: logger)
    figures["capture_trigger_cpu_us"] = captured.gameCPUMicroseconds
    figures["capture_trigger_process_cpu_us"] = captured.processCPUMicroseconds
    figures["capture_start_stop_us"] = try startStopCost(file: file, logger: logger)
    return figures
  }

  /// Game-thread CPU to start a capture and stop it (the file opened, its header written, its
  /// lines flushed and synced), averaged over 50 captures of a running engine.
  static func startStopCost(file: URL, logger: Logger) throws -> Double {
    let engine = try AudioEngine(session: AudioSession(), logger: logger)
    defer { engine.close() }
    let cycles = 50
    let start = Clocks.threadCPUNanoseconds
    for _ in 0..<cycles {
      try engine.startCapture(to: file, replacing: true)
      engine.stopCapture()
    }
    return Double(Clocks.threadCPUNanoseconds - start) / Double(cycles) / 1_000
  }
}
