import Foley
import Foundation
import Logging

/// From `node.run(.playSound(…))` to the first mixer buffer that carries the sound, in a game loop
/// that updates at 60 Hz: the wait for the next update, the queue, and the device buffer.
@MainActor
enum LatencyBenchmark {
  static func measure(
    _ sound: Data, count: Int, logger: Logger
  ) throws -> (fromRun: Double, fromPlay: Double, buffer: Double) {
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: 256), session: AudioSession(), logger: logger)
    defer { engine.close() }
    let decoded = try engine.sound(data: sound)
    let scene = Scene()
    engine.attach(to: scene)
    let node = Node()
    scene.addChild(node)
    let action = Action.playSound(decoded)
    let frame = 1.0 / 60.0
    var fromRun: [Double] = []
    var fromPlay: [Double] = []
    for index in 0..<count {
      // The game's frame: the action is asked for somewhere in it, the update comes at its end.
      let frameStart = Clocks.wallNanoseconds
      Clocks.sleep(seconds: frame * Double((index * 37) % 100) / 100)
      let requested = Clocks.wallNanoseconds
      node.run(action)
      let left = frame - Double(Clocks.wallNanoseconds - frameStart) / 1e9
      if left > 0 { Clocks.sleep(seconds: left) }
      let played = Clocks.wallNanoseconds
      scene.update(deltaTime: frame)
      guard let voice = engine.newestVoice(of: node) else { continue }
      var mixed: UInt64?
      while mixed == nil && !voice.isFinished {
        Clocks.sleep(seconds: 0.0002)
        mixed = engine.firstMixTime(of: voice)
      }
      if let mixed {
        fromRun.append(Double(mixed - requested) / 1e6)
        fromPlay.append(Double(mixed - played) / 1e6)
      }
      voice.stop()
    }
    func p99(_ values: [Double]) -> Double {
      let sorted = values.sorted()
      return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
    }
    return (p99(fromRun), p99(fromPlay), engine.deviceFormat.bufferDuration * 1_000)
  }

  static func figures(_ short: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let (fromRun, fromPlay, buffer) = try measure(short, count: quick ? 120 : 400, logger: logger)
    return [
      "latency_from_run_ms_p99": fromRun, "latency_ms_p99": fromPlay, "buffer_ms": buffer,
      "frame_ms": 1_000.0 / 60,
    ]
  }
}
