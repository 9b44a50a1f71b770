import FoleyTestSupport
import Foundation
import Testing

/// The demo's capture tools: `--capture` on the game, `capture summary`, `render --replay`, and a
/// capture cut by `kill -9`.
@Suite("Capturing the demo", .serialized)
struct CaptureCommandTests {
  @Test("a capture cut by kill -9 mid-round is summarised and replays up to the kill")
  func killedMidRound() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-capture-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let capture = folder.appendingPathComponent("round.foleycapture")
    let script = folder.appendingPathComponent("script.json")
    // A long round: the kill comes long before it ends.
    try Data(#"{"duration": 60, "events": [{"at": 0.5, "event": "key", "key": "right"}]}"#.utf8)
      .write(to: script)
    let process = try demoProcess(["--headless", "--script", script.path, "--capture", capture.path])
    var environment = ProcessInfo.processInfo.environment
    environment["SDL_AUDIODRIVER"] = "disk"
    environment["SDL_DISKAUDIOFILE"] = folder.appendingPathComponent("out.raw").path
    environment["SDL_VIDEODRIVER"] = "dummy"
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Three marks: three seconds of the round are in the file.
    let marked = waitUntil(timeout: 120) {
      let text = (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
      return text.components(separatedBy: #""mark":true"#).count > 3
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(marked)
    #expect(process.terminationReason == .uncaughtSignal)

    let summary = try runDemoCommand(["capture", "summary", capture.path])
    #expect(summary.status == 0, "\(summary.errors)")
    let lines = summary.output.split(separator: "\n")
    let first = try #require(lines.first)
    let whole = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
    #expect(whole["complete"] as? Bool == false)
    let seconds = try #require((whole["seconds"] as? NSNumber)?.doubleValue)
    #expect(seconds >= 3)
    #expect((whole["sounds"] as? [String])?.contains("ambience.wav") == true)
    #expect(lines.count >= 4)  // the whole, then a line per second
    #expect(summary.output.contains(#""play":"#))

    let wav = folder.appendingPathComponent("replay.wav")
    // Every sound is found: the assets by name, the map's pitched copies made again from them,
    // and the embers, which the game makes in code, made again by the replay.
    let replay = try runDemoCommand(["render", "--replay", capture.path, wav.path])
    #expect(replay.status == 0, "\(replay.errors)")
    #expect(!replay.output.contains("has changed") && !replay.output.contains("not in the asset roots"))
    #expect(replay.output.contains("the capture was cut short"))
    // What the demo does that a capture does not record yet is named (its effects, its parameters).
    #expect(replay.output.contains("warning: the capture holds parameters and snapshots it cannot replay"))
    let size = try #require(try FileManager.default.attributesOfItem(atPath: wav.path)[.size] as? Int)
    #expect(abs(Double(size - 44) / 8 / 48_000 - seconds) < 0.01)
  }

  @Test("a capture file that is not one is refused with exit status 2 and the reason")
  func notACapture() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "not-\(UUID().uuidString).foleycapture")
    try Data("{\"hello\": 1}\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let summary = try runDemoCommand(["capture", "summary", file.path])
    #expect(summary.status == 2)
    #expect(summary.errors.contains("line 1: not a Foley capture header"))
    let replay = try runDemoCommand(["render", "--replay", file.path, "/tmp/never-\(UUID().uuidString).wav"])
    #expect(replay.status == 2)
    #expect(replay.errors.contains("not a Foley capture header"))
  }
}
