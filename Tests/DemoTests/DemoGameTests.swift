import FoleyTestSupport
import Foundation
import Testing

/// The demo as a game: five chimes hidden in the field, found by walking to them before the
/// round's 90 seconds run out, with points, announcements, music that follows the hunt and a
/// clock that waits while the game has no sound.
@Suite("The demo's game", .serialized)
struct DemoGameTests {
  /// Key presses that walk the player (280 px/s, from 400,180) along `legs`, from `start`.
  static func walk(
    _ legs: [(key: String, pixels: Double)], from start: Double
  ) -> (events: [[String: Any]], end: Double) {
    var at = start
    var events: [[String: Any]] = []
    for leg in legs {
      events.append(["at": at, "event": "key", "key": leg.key])
      at += leg.pixels / 280
      events.append(["at": at, "event": "key", "key": leg.key, "up": true])
      at += 0.05
    }
    return (events, at)
  }

  /// Round 1's chimes lie at (585,180), (690,460), (470,480), (280,300) and (110,430).
  static let toEveryChime: [(key: String, pixels: Double)] = [
    ("right", 185), ("right", 105), ("up", 280), ("left", 220), ("up", 20), ("left", 190), ("down", 180),
    ("left", 170), ("up", 130),
  ]

  @Test(
    "walking to the five chimes wins the round: points, a fanfare, an announcement per find; Return starts round 2"
  )
  func winARound() throws {
    let (walk, end) = Self.walk(Self.toEveryChime, from: 0.2)
    let events =
      walk + [
        ["at": end + 0.5, "event": "key", "key": "return"],
        ["at": end + 0.55, "event": "key", "key": "return", "up": true],
      ]
    // Rendered offline: the music changes on bar lines and the announcements are spoken on the
    // mix's clock, whatever the machine's load (a paced run once missed the tense piece on a
    // fresh clone, its first check slower than two bars).
    let script = temporaryFile("win.json")
    let wav = temporaryFile("win.wav")
    let reportFile = temporaryFile("win-report.json")
    defer {
      for file in [script, wav, reportFile] { try? FileManager.default.removeItem(at: file) }
    }
    try JSONSerialization.data(withJSONObject: ["duration": end + 3, "events": events]).write(to: script)
    let run = try runDemoCommand(
      ["render", script.path, wav.path, "--report", reportFile.path], in: ScriptedRunTests.packageRoot,
      report: reportFile)
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.reportErrors.isEmpty, "\(run.reportErrors)")
    let rounds = run.report?["rounds"] as? [[String: Any]] ?? []
    try #require(rounds.count == 1, "\(rounds)")
    #expect(rounds[0]["outcome"] as? String == "won")
    #expect(rounds[0]["found"] as? Int == 5)
    // 100 a chime and 2 a second left, less 25 a hit.
    let score = rounds[0]["score"] as? Int ?? 0
    let hits = rounds[0]["hits"] as? Int ?? 0
    let left = Int(rounds[0]["timeLeft"] as? Double ?? 0)
    #expect(score >= 500 + left * 2 - hits * 25 && score <= 500 + left * 2, "\(rounds[0])")
    #expect(left > 80)
    // The sound map played each find (two layers), the fanfare (four notes) and the rings.
    let played = (run.report?["soundMap"] as? [String: Any])?["playedByEvent"] as? [String: Int] ?? [:]
    #expect(played["chime.found"] == 10 && played["round.won"] == 4, "\(played)")
    #expect((played["chime.call"] ?? 0) >= 10, "\(played)")
    // Each find announced; the last one says the round is won.
    let words = (run.report?["speech"] as? [String: Any])?["words"] as? [String] ?? []
    #expect(words.filter { $0 == "Chime" }.count >= 1 && words.contains("All"), "\(words)")
    // Three found: the tense piece; the round won: the calm one again, on the next bar.
    let tracks = (run.report?["music"] as? [String: Any])?["tracks"] as? [String] ?? []
    #expect(tracks.contains("Tension") && tracks.last == "Calm Waters", "\(tracks)")
    // Return: round 2, with its chimes to find and its clock full.
    let round = run.report?["round"] as? [String: Any]
    #expect(round?["number"] as? Int == 2 && round?["found"] as? Int == 0)
    #expect(run.output.contains("foley-demo: round 2: 0/5 chimes, score 0,"), "\(run.output)")
  }

  @Test("focus loss pauses the round: its clock waits while the game has no sound, and says PAUSED")
  func focusLossPausesTheClock() throws {
    let shot = temporaryFile("paused.bmp")
    defer { try? FileManager.default.removeItem(at: shot) }
    let run = try runDemo(
      script: [
        "duration": 2, "events": [["at": 0.5, "event": "focusLost"], ["at": 1.5, "event": "focusGained"]],
      ],
      arguments: ["--fast"])
    #expect(run.status == 0, "\(run.errors)")
    let round = run.report?["round"] as? [String: Any]
    let left = round?["timeLeft"] as? Double ?? 0
    // Two seconds of run, one of them without focus: one second off the clock.
    #expect(abs(left - 89) < 0.05, "\(String(describing: round))")
    // Still paused at the end: the banner is drawn over the field.
    let paused = try runDemo(
      script: ["duration": 1, "events": [["at": 0.5, "event": "focusLost"]]],
      arguments: ["--fast", "--screenshot", shot.path])
    #expect(paused.status == 0, "\(paused.errors)")
    let pixels = try screenshotPixels(shot)
    try #require(pixels.count == 800 * 600)
    // The banner's title is gold (1, 0.85, 0.3) in the middle of the window; nothing else there is.
    var gold = 0
    for row in 200..<330 {
      for column in 0..<800 {
        let pixel = pixels[(599 - row) * 800 + column]
        let (red, green, blue) = (pixel >> 16 & 0xFF, pixel >> 8 & 0xFF, pixel & 0xFF)
        if red > 245, (205...230).contains(green), blue < 100 { gold += 1 }
      }
    }
    #expect(gold > 100, "\(gold) gold pixels in the banner's band")
  }
}
