import Foley
import FoleyInspector
import FoleyTestSupport
import Foundation
import Logging

/// What the inspector's page costs a game with a large sound map: `GET /map.json` (every event's
/// entry, as the page loads on open and after each apply, save or reload) for maps of 1,000,
/// 3,000 and 60,000 events, while the game thread drains its mailbox at 60 Hz; the request's wall
/// time and the longest the game thread spent in one drain meanwhile: its own CPU time, and the
/// wall time (which also counts the server's threads taking the core from it).
@MainActor
enum InspectorMapBenchmarks {
  /// One request for a map of `count` events: its wall time and the longest drain (CPU and wall),
  /// in milliseconds, and the events the reply listed.
  static func request(
    events count: Int, sound: Data, logger: Logger
  ) throws -> (milliseconds: Double, longestDrain: Double, longestDrainWall: Double, listed: Int) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-bench-inspector-map-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try sound.write(to: folder.appendingPathComponent("short.wav"))
    let events = (0..<count).map { #""e\#($0)":{"play":"short.wav","volumeDb":-\#($0 % 40)}"# }
    let file = folder.appendingPathComponent("sounds.json")
    try Data(#"{"version":1,"events":{\#(events.joined(separator: ","))}}"#.utf8).write(to: file)
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: 16), session: AudioSession(), logger: logger)
    defer { engine.close() }
    let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
    map.watchesFile = false
    let server = InspectorServer(engine: engine, soundMap: map)
    defer { server.stop() }
    guard let port = try server.start().port else { throw CocoaError(.fileReadUnknown) }
    let path = "/map.json?token=\(server.token)"
    let answer = Locked<(status: Int, body: String, nanoseconds: UInt64)?>(nil)
    let start = Clocks.wallNanoseconds
    Thread.detachNewThread {
      let reply = RawConnection.request(port: UInt16(port), path: path)
      answer.withLock { $0 = (reply?.status ?? -1, reply?.body ?? "", Clocks.wallNanoseconds - start) }
    }
    var longest: UInt64 = 0
    var longestWall: UInt64 = 0
    while answer.withLock({ $0 == nil }) {
      let frame = Clocks.wallNanoseconds
      let cpu = Clocks.threadCPUNanoseconds
      engine.session.mailbox.drain()
      longest = max(longest, Clocks.threadCPUNanoseconds - cpu)
      let spent = Clocks.wallNanoseconds - frame
      longestWall = max(longestWall, spent)
      if spent < 16_666_667 { Clocks.sleep(seconds: Double(16_666_667 - spent) / 1e9) }
    }
    guard let (status, body, nanoseconds) = answer.withLock({ $0 }), status == 200 else {
      throw CocoaError(.fileReadCorruptFile)
    }
    let state = try JSONDecoder().decode(InspectorMapState.self, from: Data(body.utf8))
    precondition(state.events.count == count, "the reply must list every event")
    return (Double(nanoseconds) / 1e6, Double(longest) / 1e6, Double(longestWall) / 1e6, state.events.count)
  }

  static func figures(_ short: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    var requests: [String: Double] = [:]
    var drains: [String: Double] = [:]
    var drainsWall: [String: Double] = [:]
    _ = try request(events: 100, sound: short, logger: logger)  // warm up: the first engine's first drain
    for count in quick ? [1_000, 3_000] : [1_000, 3_000, 60_000] {
      let rounds = (0..<(quick ? 1 : 3)).map { _ in try? request(events: count, sound: short, logger: logger)
      }
      let done = rounds.compactMap { $0 }
      requests["\(count)"] = BenchReport.median(done.map(\.milliseconds))
      drains["\(count)"] = done.map(\.longestDrain).max()
      drainsWall["\(count)"] = done.map(\.longestDrainWall).max()
    }
    return [
      "inspector_map_json_ms_by_events": requests, "inspector_map_json_longest_drain_ms_by_events": drains,
      "inspector_map_json_longest_drain_wall_ms_by_events": drainsWall,
    ]
  }
}
