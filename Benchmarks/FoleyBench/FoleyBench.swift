import Dispatch
import Foley
import Foundation
import Logging

/// Foley's side of the benchmarks. `Scripts/bench.sh` runs it group by group, interleaved with the
/// C baseline over several rounds, then asks it for the report.
///
///     foley-bench --write-sounds DIR
///     foley-bench [--quick] --only trigger|mix|actions|latency|memory|music|load|shaping|offline|virtual|inspector|inspectormap|soundmap|positional|rollback|startup|idle SHORT.wav LONG.wav   (one JSON line)
///     foley-bench --report        (reads FOLEY_ROUNDS, RAW_ROUNDS, PYGAME, OUT, MACHINE, QUICK)
@main
enum FoleyBench {
  @MainActor
  static func main() throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "--write-sounds", arguments.count == 2 {
      try BenchSounds.write(to: URL(fileURLWithPath: arguments[1]))
      return
    }
    if arguments.first == "--report" {
      try BenchReport.write()
      return
    }
    let quick = arguments.first == "--quick"
    if quick { arguments.removeFirst() }
    guard arguments.count == 4, arguments[0] == "--only" else {
      FileHandle.standardError.write(
        Data(
          "usage: foley-bench [--quick] --only GROUP short.wav long.wav | --report | --write-sounds DIR\n"
            .utf8))
      exit(2)
    }
    let short = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
    let long = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))
    var logger = Logger(label: "foley.bench")
    logger.logLevel = .error
    let figures: [String: Any]
    switch arguments[1] {
    case "trigger": figures = try TriggerBenchmarks.figures(short, quick: quick, logger: logger)
    case "mix": figures = try MixBenchmarks.figures(long, quick: quick, logger: logger)
    case "actions": figures = try ActionBenchmarks.figures(short, quick: quick, logger: logger)
    case "latency": figures = try LatencyBenchmark.figures(short, quick: quick, logger: logger)
    case "memory": figures = try MemoryBenchmarks.figures(short: short, long: long, logger: logger)
    case "music": figures = try MusicBenchmarks.figures(quick: quick, logger: logger)
    case "load": figures = try LoadBenchmarks.figures(quick: quick, logger: logger)
    case "shaping": figures = try ShapingBenchmarks.figures(long, quick: quick, logger: logger)
    case "offline": figures = try OfflineBenchmarks.figures(long, quick: quick, logger: logger)
    case "virtual": figures = try VirtualBenchmarks.figures(long, quick: quick, logger: logger)
    case "inspector": figures = try InspectorBenchmarks.figures(long, quick: quick, logger: logger)
    case "inspectormap": figures = try InspectorMapBenchmarks.figures(short, quick: quick, logger: logger)
    case "soundmap": figures = try SoundMapBenchmarks.figures(short, quick: quick, logger: logger)
    case "positional": figures = try PositionalBenchmarks.figures(long, quick: quick, logger: logger)
    case "rollback": figures = try RollbackBenchmarks.figures(short, quick: quick, logger: logger)
    case "frame":
      figures = try FrameBenchmarks.figures(short: short, long: long, quick: quick, logger: logger)
    case "scale":
      figures = try ScaleBenchmarks.figures(short: short, long: long, quick: quick, logger: logger)
    case "startup": figures = try StartupBenchmarks.figures(long, quick: quick, logger: logger)
    case "idle":
      // An open engine with nothing playing (Scripts/bench.sh runs the C reference beside it).
      let seconds = quick ? 3.0 : 20.0
      figures = [
        "idle_cpu_seconds": try MixBenchmarks.idle(seconds: seconds, logger: logger), "idle_seconds": seconds,
      ]
    default:
      FileHandle.standardError.write(Data("foley-bench: unknown group \(arguments[1])\n".utf8))
      exit(2)
    }
    let json = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
  }
}
