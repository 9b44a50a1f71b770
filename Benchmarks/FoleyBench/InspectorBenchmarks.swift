import CFoleyAllocCounter
import Foley
import Foundation
import Logging

/// What inspecting costs: 256 looping voices over four buses, with and without snapshots taken
/// (the browser inspector's 10 a second, and 60 a second as a panel redrawn every frame would),
/// process CPU as a share of a core, in interleaved rounds; and the allocations inside the render
/// on SDL's audio thread while the bus copies run.
@MainActor
enum InspectorBenchmarks {
  /// Process CPU seconds over `seconds` with 256 voices, taking `rate` snapshots a second.
  static func run(
    _ sound: Data, rate: Double, seconds: Double, logger: Logger
  ) throws -> (cpu: Double, voices: Int) {
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: 256), session: AudioSession(), logger: logger)
    defer { engine.close() }
    let categories: [SoundCategory] = ["music", "ambience", "effects", "speech"]
    var sounds: [Sound] = []
    for category in categories {
      var settings = SoundSettings()
      settings.category = category
      sounds.append(try Sound(data: sound, name: "loop-\(category)", engine: engine, settings: settings))
    }
    for index in 0..<256 {
      engine.play(sounds[index % sounds.count], volume: 0.5, pan: MixBenchmarks.pan(index), loops: -1)
    }
    engine.waitUntilIdle()
    var voices = 0
    if rate > 0 { voices = engine.inspector.snapshot().voices.count }
    Clocks.sleep(seconds: 0.5)
    let before = Clocks.processCPUNanoseconds
    let start = Clocks.wallNanoseconds
    let end = start + UInt64(seconds * 1e9)
    var next = start
    while Clocks.wallNanoseconds < end {
      if rate > 0 {
        let snapshot = engine.inspector.snapshot()
        voices = snapshot.voices.count
        next += UInt64(1e9 / rate)
      } else {
        next += UInt64(0.1e9)
      }
      let now = Clocks.wallNanoseconds
      if next > now { Clocks.sleep(seconds: Double(next - now) / 1e9) }
    }
    return (Double(Clocks.processCPUNanoseconds - before) / 1e9, voices)
  }

  static func figures(_ long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let seconds = quick ? 3.0 : 6.0
    let rounds = quick ? 1 : 3
    var plain: [Double] = []
    var ten: [Double] = []
    var sixty: [Double] = []
    var seen = 0
    let allocationsBefore = foley_realtime_allocations()
    for _ in 0..<rounds {
      plain.append(try run(long, rate: 0, seconds: seconds, logger: logger).cpu)
      let inspected = try run(long, rate: 10, seconds: seconds, logger: logger)
      ten.append(inspected.cpu)
      seen = inspected.voices
      sixty.append(try run(long, rate: 60, seconds: seconds, logger: logger).cpu)
    }
    let allocations = foley_realtime_allocations()
    func median(_ values: [Double]) -> Double { BenchReport.median(values) ?? 0 }
    return [
      "inspector_cpu_percent_256": (median(ten) - median(plain)) / seconds * 100,
      "inspector_cpu_percent_256_60hz": (median(sixty) - median(plain)) / seconds * 100,
      "inspector_plain_cpu_percent_256": median(plain) / seconds * 100,
      "inspector_voices_seen": seen,
      "inspector_audio_thread_allocations": allocations < 0 ? -1 : allocations - allocationsBefore,
      "inspector_seconds": seconds,
    ]
  }
}
