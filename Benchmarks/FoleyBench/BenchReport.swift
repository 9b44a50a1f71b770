import Foundation

/// Combines the rounds of Foley's figures and the C baseline's (JSON lines from `Scripts/bench.sh`),
/// prints the table with each target's verdict, and writes `bench-results.json`: every figure's
/// median, and `<key>_min` beside the ones measured in interleaved rounds.
enum BenchReport {
  /// A figure's values over the rounds: plain numbers, or numbers keyed by a size ("16", "1000").
  struct Samples {
    var values: [Double] = []
    var keyed: [String: [Double]] = [:]
  }

  static func load(_ path: String?) -> [String: Samples] {
    var merged: [String: Samples] = [:]
    guard let path, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return merged }
    for line in text.split(separator: "\n") {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        continue
      }
      for (key, value) in object {
        if let number = (value as? NSNumber)?.doubleValue {
          merged[key, default: Samples()].values.append(number)
        } else if let table = value as? [String: Any] {
          for (size, inner) in table {
            if let number = (inner as? NSNumber)?.doubleValue {
              merged[key, default: Samples()].keyed[size, default: []].append(number)
            }
          }
        }
      }
    }
    return merged
  }

  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    return sorted.count % 2 == 1
      ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
  }

  static func write() throws {
    let environment = ProcessInfo.processInfo.environment
    var samples = load(environment["FOLEY_ROUNDS"])
    for (key, value) in load(environment["RAW_ROUNDS"]) { samples[key] = value }
    var results: [String: Any] = [:]
    var table = BenchTable()
    func value(_ key: String) -> Double? { samples[key].flatMap { median($0.values) } }
    func keyed(_ key: String, _ size: String) -> Double? { samples[key]?.keyed[size].flatMap(median) }
    for (key, sample) in samples {
      if let middle = median(sample.values) {
        results[key] = middle
        if sample.values.count > 1 { results["\(key)_min"] = sample.values.min() }
      }
      if !sample.keyed.isEmpty {
        results[key] = sample.keyed.compactMapValues(median)
        results["\(key)_min"] = sample.keyed.compactMapValues { $0.min() }
      }
    }
    // Figures derived from the rounds' medians.
    let mix = value("mix_cpu_seconds")
    let ratios: [String: Double?] = [
      "mix_cpu_ratio": mix.flatMap { m in value("raw_mix_plain_cpu_seconds").map { m / max($0, 1e-6) } },
      "mix_cpu_ratio_same_work": mix.flatMap { m in
        value("raw_mix_same_cpu_seconds").map { m / max($0, 1e-6) }
      },
      "idle_cpu_ratio": value("idle_cpu_seconds").flatMap { i in
        value("raw_idle_cpu_seconds").map { i / max($0, 1e-6) }
      },
    ]
    for (key, ratio) in ratios { results[key] = ratio ?? NSNull() }
    results["pygame_trigger_us"] = Double(environment["PYGAME"] ?? "") ?? NSNull()
    results["raw_c_trigger_us"] = keyed("raw_c_trigger_us_by_channels", "256") ?? NSNull()
    results["raw_c_trigger_cpu_us"] = keyed("raw_c_trigger_cpu_us_by_channels", "256") ?? NSNull()
    // The prepared track's start under the name the table uses (measured by the music group).
    results["prepared_music_start_ms"] = value("music_prepared_play_to_first_sample_ms") ?? NSNull()
    let output = environment["OUT"] ?? "bench-results.json"
    try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
      .write(to: URL(fileURLWithPath: output))
    table.fill(results: results, samples: samples)
    print(
      "Foley benchmarks\((environment["QUICK"] ?? "").isEmpty ? "" : " (--quick)") on \(environment["MACHINE"] ?? "?")"
    )
    print(table.rows.joined(separator: "\n"))
    print("wrote \(output)")
  }
}
