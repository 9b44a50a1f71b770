import Foley
import FoleyAudioTesting
import Foundation
import Logging

/// Decoding once, the memory voices add, and the memory many distinct sounds leave behind.
@MainActor
enum MemoryBenchmarks {
  /// Decodes when the same bytes play 1,000 times, and the memory 1,000 concurrent plays of a 1 s
  /// sound add beyond the decoded sound.
  static func voices(short: Data, long: Data, logger: Logger) throws -> (decodes: Int, growthKiB: Double) {
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: 1_024), session: AudioSession(), logger: logger
    )
    defer { engine.close() }
    for _ in 0..<1_000 { engine.play(data: short) }
    engine.waitUntilIdle()
    let decodes = engine.statistics.decodes
    let sound = try engine.sound(data: long)
    // Warm up: let the pool grow once and the queues reach their working size.
    for _ in 0..<1_000 { engine.play(sound) }
    engine.waitUntilIdle()
    Clocks.sleep(seconds: 1.2)
    let before = Clocks.residentKiB
    var voices: [Voice] = []
    voices.reserveCapacity(1_000)
    for _ in 0..<1_000 { voices.append(engine.play(sound)) }
    engine.waitUntilIdle()
    let after = Clocks.residentKiB
    precondition(engine.statistics.activeVoices > 0)
    return (decodes, after - before)
  }

  /// 1,000 distinct quarter-second sounds played once each (as `Data`), then every voice ends:
  /// what stays resident, and what the cache holds (at most `soundCacheLimit`, 64 MiB).
  static func distinctSounds(logger: Logger) throws -> (growthMiB: Double, cachedMiB: Double) {
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: 256), session: AudioSession(), logger: logger)
    defer { engine.close() }
    let before = Clocks.residentKiB
    for index in 0..<1_000 {
      engine.play(data: BenchSounds.tone(seconds: 0.25, frequency: 200 + Double(index)))
      if index % 100 == 99 { engine.waitUntilIdle() }
    }
    engine.waitUntilIdle()
    while engine.statistics.activeVoices > 0 { Clocks.sleep(seconds: 0.05) }
    engine.play(data: BenchSounds.tone(seconds: 0.25, frequency: 100))  // a last insert trims the cache
    engine.waitUntilIdle()
    return ((Clocks.residentKiB - before) / 1_024, Double(engine.cachedSoundBytes) / 1_048_576)
  }

  static func figures(short: Data, long: Data, logger: Logger) throws -> [String: Any] {
    let (decodes, growth) = try voices(short: short, long: long, logger: logger)
    let (distinctGrowth, cached) = try distinctSounds(logger: logger)
    return [
      "decodes_for_1000_plays": Double(decodes), "rss_growth_kib_1000_voices": growth,
      "rss_growth_mib_1000_distinct_sounds": distinctGrowth, "cache_mib_1000_distinct_sounds": cached,
    ]
  }
}
