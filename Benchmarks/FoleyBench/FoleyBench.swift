import Dispatch
import Foley
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Foley's side of the benchmarks. Prints one JSON object with the figures Foley itself measures;
/// `Scripts/bench.sh` adds the C and pygame baselines and writes the table.
///
///     foley-bench [--quick] SOUND_025.wav SOUND_1S.wav
@main
enum FoleyBench {
  @MainActor
  static func main() throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "--write-sounds", arguments.count == 2 {
      // The benchmark's sounds: 0.25 s and 1 s of a 440 Hz sine, 48 kHz stereo 16-bit.
      for (name, seconds) in [("short.wav", 0.25), ("long.wav", 1.0)] {
        try toneWAV(seconds: seconds).write(
          to: URL(fileURLWithPath: arguments[1]).appendingPathComponent(name))
      }
      return
    }
    if arguments.first == "--report" {
      try BenchReport.write()
      return
    }
    let quick = arguments.first == "--quick"
    if quick { arguments.removeFirst() }
    guard arguments.count == 2 else {
      FileHandle.standardError.write(Data("usage: foley-bench [--quick] short.wav long.wav\n".utf8))
      exit(2)
    }
    let short = try Data(contentsOf: URL(fileURLWithPath: arguments[0]))
    let long = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    var logger = Logger(label: "foley.bench")
    logger.logLevel = .error
    var figures: [String: Double] = [:]

    let triggers = quick ? 20_000 : 100_000
    let (gameThread, endToEnd) = try measureTriggers(short, count: triggers, logger: logger)
    figures["trigger_us"] = gameThread
    figures["trigger_end_to_end_us"] = endToEnd

    let frames = quick ? 120 : 600
    figures["actions_ns_per_node"] = try measureActions(short, nodes: 10_000, frames: frames, logger: logger)
    figures["baseline_loop_ns_per_node"] = measureBaselineLoop(nodes: 10_000, frames: frames)

    let mixSeconds = quick ? 3.0 : 10.0
    figures["mix_cpu_seconds"] = try measureMixing(long, voices: 64, seconds: mixSeconds, logger: logger)
    figures["mix_seconds"] = mixSeconds

    let (p99, buffer) = try measureLatency(short, count: quick ? 200 : 1_000, logger: logger)
    figures["latency_ms_p99"] = p99
    figures["buffer_ms"] = buffer

    let (decodes, growth) = try measureDecodesAndMemory(short: short, long: long, logger: logger)
    figures["decodes_for_1000_plays"] = Double(decodes)
    figures["rss_growth_kib_1000_voices"] = growth

    let json = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
  }

  static func configuration(channels: Int) -> AudioConfiguration {
    var configuration = AudioConfiguration()
    configuration.initialChannels = channels
    configuration.maximumChannels = channels
    return configuration
  }

  /// `trigger_us` (game thread: action run + its share of the update) and `trigger_end_to_end_us`
  /// (until the audio queue has served them all), 256 channels, steal-oldest.
  @MainActor
  static func measureTriggers(_ sound: Data, count: Int, logger: Logger) throws -> (Double, Double) {
    let engine = try AudioEngine(
      configuration: configuration(channels: 256), session: AudioSession(), logger: logger)
    defer { engine.close() }
    _ = try engine.sound(data: sound)  // preloaded
    let scene = Scene()
    engine.attach(to: scene)
    let nodes = (0..<100).map { _ in Node() }
    for node in nodes { scene.addChild(node) }
    let action = Action.playSound(data: sound)
    let perFrame = 100
    let start = DispatchTime.now().uptimeNanoseconds
    var gameNanos: UInt64 = 0
    for _ in 0..<(count / perFrame) {
      let frameStart = DispatchTime.now().uptimeNanoseconds
      for node in nodes { node.run(action) }
      scene.update(deltaTime: 1.0 / 60.0)
      gameNanos += DispatchTime.now().uptimeNanoseconds - frameStart
    }
    engine.waitUntilIdle()
    let total = DispatchTime.now().uptimeNanoseconds - start
    precondition(engine.statistics.requested == count, "every trigger must reach the engine")
    return (Double(gameNanos) / Double(count) / 1_000, Double(total) / Double(count) / 1_000)
  }

  /// 10,000 nodes each running move / wait / playSound forever, with the session inactive.
  @MainActor
  static func measureActions(_ sound: Data, nodes count: Int, frames: Int, logger: Logger) throws -> Double {
    let session = AudioSession()
    let engine = try AudioEngine(
      configuration: configuration(channels: 256), session: session, logger: logger)
    defer { engine.close() }
    session.deactivate(reason: .host("benchmark"))
    let scene = Scene()
    engine.attach(to: scene)
    let action = Action.repeatForever(
      .sequence([
        .move(by: Vector(dx: 3, dy: 1), duration: 0.25), .wait(forDuration: 0.25), .playSound(data: sound),
      ]))
    for index in 0..<count {
      let node = Node()
      node.position = Point(x: Double(index % 100), y: Double(index / 100))
      scene.addChild(node)
      node.run(action)
    }
    for _ in 0..<30 { scene.update(deltaTime: 1.0 / 60.0) }  // warm up
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<frames { scene.update(deltaTime: 1.0 / 60.0) }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    precondition(engine.statistics.suppressed > 0, "the gate must be exercised")
    return Double(elapsed) / Double(frames) / Double(count)
  }

  struct PlainNode {
    var x: Double
    var y: Double
    var phase: Double
    var plays: Int
  }

  /// The same arithmetic on a plain array: move for 0.25 s, wait 0.25 s, "play" (a gate check).
  static func measureBaselineLoop(nodes count: Int, frames: Int) -> Double {
    var nodes = (0..<count).map { PlainNode(x: Double($0 % 100), y: Double($0 / 100), phase: 0, plays: 0) }
    let active = Atomic<Bool>(false)
    let step = 1.0 / 60.0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<frames {
      for index in nodes.indices {
        var node = nodes[index]
        let before = node.phase
        node.phase += step
        if before < 0.25 {
          let moving = min(node.phase, 0.25) - before
          node.x += 3 * moving / 0.25
          node.y += 1 * moving / 0.25
        }
        if node.phase >= 0.5 {
          node.phase -= 0.5
          if active.load(ordering: .acquiring) { node.plays += 1 }
        }
        nodes[index] = node
      }
    }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    precondition(nodes.reduce(0) { $0 + $1.x } > 0)
    return Double(elapsed) / Double(frames) / Double(count)
  }

  /// Process CPU seconds spent while 64 looping voices mix for `seconds`.
  static func measureMixing(_ sound: Data, voices: Int, seconds: Double, logger: Logger) throws -> Double {
    let engine = try AudioEngine(
      configuration: configuration(channels: voices), session: AudioSession(), logger: logger)
    defer { engine.close() }
    let decoded = try engine.sound(data: sound)
    for index in 0..<voices {
      engine.play(decoded, volume: 0.5, pan: Double(index % 9) / 4 - 1, loops: -1)
    }
    engine.waitUntilIdle()
    let before = cpuSeconds()
    usleep(UInt32(seconds * 1_000_000))
    return cpuSeconds() - before
  }

  /// From the play request to the first mixer callback that mixes its samples: p99 in ms, and the
  /// device buffer's duration.
  static func measureLatency(_ sound: Data, count: Int, logger: Logger) throws -> (Double, Double) {
    let engine = try AudioEngine(
      configuration: configuration(channels: 256), session: AudioSession(), logger: logger)
    defer { engine.close() }
    let decoded = try engine.sound(data: sound)
    var latencies: [Double] = []
    for index in 0..<count {
      // Spread the requests across the buffer period so every phase is sampled.
      usleep(UInt32(1_000 + (index * 3_700) % 11_000))
      let requested = DispatchTime.now().uptimeNanoseconds
      let voice = engine.play(decoded)
      var mixed: UInt64?
      while mixed == nil {
        usleep(200)
        mixed = engine.firstMixTime(of: voice)
        if voice.isFinished && mixed == nil { break }
      }
      if let mixed { latencies.append(Double(mixed - requested) / 1e6) }
      voice.stop()
    }
    latencies.sort()
    let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
    return (p99, engine.deviceFormat.bufferDuration * 1_000)
  }

  /// Decodes when the same bytes play 1,000 times, and the memory 1,000 concurrent plays of a 1 s
  /// sound add beyond the decoded sound.
  static func measureDecodesAndMemory(short: Data, long: Data, logger: Logger) throws -> (Int, Double) {
    let engine = try AudioEngine(
      configuration: configuration(channels: 1_024), session: AudioSession(), logger: logger)
    defer { engine.close() }
    for _ in 0..<1_000 { engine.play(data: short) }
    engine.waitUntilIdle()
    let decodes = engine.statistics.decodes
    let sound = try engine.sound(data: long)
    // Warm up: let the pool grow once and the queues reach their working size.
    for _ in 0..<1_000 { engine.play(sound) }
    engine.waitUntilIdle()
    usleep(1_200_000)
    let before = residentKiB()
    var voices: [Voice] = []
    voices.reserveCapacity(1_000)
    for _ in 0..<1_000 { voices.append(engine.play(sound)) }
    engine.waitUntilIdle()
    let after = residentKiB()
    precondition(voices.allSatisfy { !$0.isFinished } || engine.statistics.activeVoices > 0)
    return (decodes, after - before)
  }

  static func toneWAV(seconds: Double) -> Data {
    let frames = Int(seconds * 48_000)
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
    data.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(36 + frames * 4))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    append(UInt32(16)); append(UInt16(1)); append(UInt16(2)); append(UInt32(48_000)); append(UInt32(192_000))
    append(UInt16(4)); append(UInt16(16))
    data.append(contentsOf: Array("data".utf8))
    append(UInt32(frames * 4))
    for frame in 0..<frames {
      let value = Int16(0.3 * 32767 * sin(2 * Double.pi * 440 * Double(frame) / 48_000))
      append(value)
      append(value)
    }
    return data
  }

  static func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
      + Double(usage.ru_stime.tv_sec)
      + Double(usage.ru_stime.tv_usec) / 1e6
  }

  static func residentKiB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_024
  }
}

/// Combines Foley's figures with the baselines (from `Scripts/bench.sh`'s environment), prints the
/// table with each target and writes the results file.
enum BenchReport {
  static func write() throws {
    let environment = ProcessInfo.processInfo.environment
    let foley =
      (try JSONSerialization.jsonObject(with: Data((environment["FOLEY"] ?? "{}").utf8)) as? [String: Double])
      ?? [:]
    let rawTrigger = Double(environment["RAW_TRIGGER"] ?? "")
    let rawMix = Double(environment["RAW_MIX"] ?? "")
    let pygame = Double(environment["PYGAME"] ?? "")
    var results: [String: Any] = [:]
    for key in [
      "trigger_us", "trigger_end_to_end_us", "actions_ns_per_node", "baseline_loop_ns_per_node",
      "latency_ms_p99",
      "buffer_ms", "decodes_for_1000_plays", "rss_growth_kib_1000_voices",
    ] {
      results[key] = foley[key] ?? NSNull()
    }
    results["raw_c_trigger_us"] = rawTrigger ?? NSNull()
    results["pygame_trigger_us"] = pygame ?? NSNull()
    let ratio = foley["mix_cpu_seconds"].flatMap { cpu in rawMix.map { cpu / max($0, 1e-6) } }
    results["mix_cpu_ratio"] = ratio ?? NSNull()
    let output = environment["OUT"] ?? "bench-results.json"
    try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
      .write(to: URL(fileURLWithPath: output))

    func number(_ key: String) -> Double? { results[key] as? Double }
    func row(_ key: String, _ target: String, _ met: Bool?) -> String {
      let value = number(key).map { String(format: "%.3f", $0) } ?? "null"
      let verdict = met.map { $0 ? "met" : "MISSED" } ?? "n/a"
      return "| `\(key)` | \(value) | \(target) | \(verdict) |"
    }
    let endToEnd = number("trigger_end_to_end_us")
    let actions = number("actions_ns_per_node")
    let baseline = number("baseline_loop_ns_per_node")
    let latency = number("latency_ms_p99")
    let buffer = number("buffer_ms")
    let rows = [
      "| figure | value | target | |", "| --- | ---: | --- | --- |",
      row("trigger_us", "≤ 0.5", number("trigger_us").map { $0 <= 0.5 }),
      row(
        "trigger_end_to_end_us", "≤ 1.5 × raw_c_trigger_us",
        endToEnd.flatMap { value in rawTrigger.map { value <= 1.5 * $0 } }),
      row("raw_c_trigger_us", "baseline", nil),
      row("pygame_trigger_us", "baseline (null without pygame)", nil),
      row(
        "actions_ns_per_node", "≤ 2 × baseline_loop_ns_per_node",
        actions.flatMap { value in baseline.map { value <= 2 * $0 } }),
      row("baseline_loop_ns_per_node", "baseline", nil),
      row("mix_cpu_ratio", "≤ 1.2", ratio.map { $0 <= 1.2 }),
      row("latency_ms_p99", "≤ buffer_ms + 1", latency.flatMap { value in buffer.map { value <= $0 + 1 } }),
      row("buffer_ms", "device buffer", nil),
      row("decodes_for_1000_plays", "= 1", number("decodes_for_1000_plays").map { $0 == 1 }),
      row("rss_growth_kib_1000_voices", "≤ 256", number("rss_growth_kib_1000_voices").map { $0 <= 256 }),
    ]
    print(
      "Foley benchmarks\((environment["QUICK"] ?? "").isEmpty ? "" : " (--quick)") on \(environment["MACHINE"] ?? "?")"
    )
    print(rows.joined(separator: "\n"))
    print("wrote \(output)")
  }
}
