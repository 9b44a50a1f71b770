import FoleyAudio
import Foundation
import Logging

/// How cost grows with load: a trigger, a positional update and a busy game's whole frame at 1,
/// 4 and 16 times the load of their rows (100, 400 and 1,600 nodes triggering each frame; 256,
/// 1,024 and 4,096 moving positional voices; the whole frame's nodes, triggers and voices all
/// scaled), so a reader sees whether each stays flat, grows in step or grows worse.
@MainActor
enum ScaleBenchmarks {
  static let scales = [1, 4, 16]

  static func figures(short: Data, long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    var trigger: [String: Double] = [:]
    var positional: [String: Double] = [:]
    var frameMedian: [String: Double] = [:]
    var frameP99: [String: Double] = [:]
    let seconds = quick ? 3.0 : 8.0
    for scale in scales {
      let nodes = 100 * scale
      trigger["\(scale)"] =
        try TriggerBenchmarks.measure(
          short, triggers: max(quick ? 20_000 : 100_000, nodes * 20), nodes: nodes, channels: 256,
          logger: logger
        )
        .gameCPUMicroseconds
      positional["\(scale)"] =
        try PositionalBenchmarks.measure(
          long, seconds: seconds, voices: PositionalBenchmarks.voices * scale, logger: logger
        )
        .update
      let loud = try FrameBenchmarks.measure(
        short: short, long: long, sound: true, seconds: seconds, scale: scale, logger: logger)
      let silent = try FrameBenchmarks.measure(
        short: short, long: long, sound: false, seconds: seconds, scale: scale, logger: logger)
      frameMedian["\(scale)"] = loud.medianMicroseconds - silent.medianMicroseconds
      frameP99["\(scale)"] = loud.p99Microseconds - silent.p99Microseconds
    }
    return [
      "scale_trigger_cpu_us": trigger, "scale_positional_update_us": positional,
      "scale_frame_sound_share_us_median": frameMedian, "scale_frame_sound_share_us_p99": frameP99,
    ]
  }
}
