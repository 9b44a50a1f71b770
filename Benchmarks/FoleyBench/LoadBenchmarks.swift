import Foley
import FoleyAudioTesting
import Foundation
import Logging

/// Loading many sounds: isolated decoding (the decoding service) against decoding in the game's
/// own process, with the game small and with 1 GiB resident. Wall time, because the game waits
/// for its sounds; the service's CPU is in another process and would not show in this one's.
@MainActor
enum LoadBenchmarks {
  /// Seconds to decode `files` through a new engine, isolated or not.
  static func seconds(isolated: Bool, files: [Data], logger: Logger) throws -> Double {
    var configuration = AudioConfiguration()
    configuration.isolatesDecoders = isolated
    let engine = try AudioEngine(
      embedded: EmbeddedMixer(), configuration: configuration, session: AudioSession(), logger: logger)
    defer { engine.close() }
    let start = Clocks.wallNanoseconds
    for (index, file) in files.enumerated() { _ = try engine.sound(data: file, name: "load-\(index).wav") }
    return Double(Clocks.wallNanoseconds - start) / 1e9
  }

  /// Isolated ÷ in-process, the best of `rounds` each (interleaved), for `files`.
  static func ratio(
    files: [Data], rounds: Int, logger: Logger
  ) throws -> (ratio: Double, isolated: Double, here: Double) {
    var isolated = Double.infinity
    var here = Double.infinity
    for _ in 0..<rounds {
      isolated = min(isolated, try seconds(isolated: true, files: files, logger: logger))
      here = min(here, try seconds(isolated: false, files: files, logger: logger))
    }
    return (isolated / here, isolated, here)
  }

  static func figures(quick: Bool, logger: Logger) throws -> [String: Any] {
    let count = quick ? 100 : 500
    let files = (0..<count).map { BenchSounds.tone(seconds: 0.25, frequency: 200 + Double($0)) }
    let rounds = quick ? 2 : 3
    // The service, started once.
    _ = try seconds(isolated: true, files: Array(files.prefix(1)), logger: logger)
    let small = try ratio(files: files, rounds: rounds, logger: logger)
    // The old way, a fork per sound, for reference (the service turned off).
    setenv("FOLEY_DECODER_SERVICE_OFF", "1", 1)
    let forked = try seconds(isolated: true, files: files, logger: logger)
    unsetenv("FOLEY_DECODER_SERVICE_OFF")
    // A game that has grown: 1 GiB resident (touched, so it is really there).
    let ballastSize = 1 << 30
    let ballast = UnsafeMutableRawPointer.allocate(byteCount: ballastSize, alignment: 4_096)
    defer { ballast.deallocate() }
    memset(ballast, 1, ballastSize)
    let grown = try ratio(files: files, rounds: rounds, logger: logger)
    setenv("FOLEY_DECODER_SERVICE_OFF", "1", 1)
    let forkedGrown = try seconds(isolated: true, files: Array(files.prefix(count / 5)), logger: logger) * 5
    unsetenv("FOLEY_DECODER_SERVICE_OFF")
    return [
      "load_isolated_ratio": small.ratio,
      "load_isolated_ratio_1gib": grown.ratio,
      "load_isolated_seconds_500": small.isolated * 500 / Double(count),
      "load_in_process_seconds_500": small.here * 500 / Double(count),
      "load_fork_per_sound_ratio": forked / small.here,
      "load_fork_per_sound_ratio_1gib": forkedGrown / grown.here,
    ]
  }
}
