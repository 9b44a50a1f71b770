import Foley
import FoleyAudioTesting
import Foundation
import Logging

/// The mixing thread's work: 64 looping voices at half volume over nine pan positions, and an
/// open engine with nothing playing. Process CPU while the program itself sleeps.
@MainActor
enum MixBenchmarks {
  /// The nine pan positions the C baseline uses too.
  static func pan(_ index: Int) -> Double { Double(index % 9) / 4 - 1 }

  static func mix(_ sound: Data, voices: Int, seconds: Double, logger: Logger) throws -> Double {
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: voices), session: AudioSession(),
      logger: logger)
    defer { engine.close() }
    let decoded = try engine.sound(data: sound)
    for index in 0..<voices { engine.play(decoded, volume: 0.5, pan: pan(index), loops: -1) }
    engine.waitUntilIdle()
    Clocks.sleep(seconds: 0.5)  // let the voices settle past their first buffers
    let before = Clocks.processCPUNanoseconds
    Clocks.sleep(seconds: seconds)
    return Double(Clocks.processCPUNanoseconds - before) / 1e9
  }

  static func idle(seconds: Double, logger: Logger) throws -> Double {
    let engine = try AudioEngine(session: AudioSession(), logger: logger)
    defer { engine.close() }
    Clocks.sleep(seconds: 0.5)
    let before = Clocks.processCPUNanoseconds
    Clocks.sleep(seconds: seconds)
    return Double(Clocks.processCPUNanoseconds - before) / 1e9
  }

  static func figures(_ long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let seconds = quick ? 3.0 : 8.0
    return [
      "mix_cpu_seconds": try mix(long, voices: 64, seconds: seconds, logger: logger),
      "mix_seconds": seconds,
    ]
  }
}
