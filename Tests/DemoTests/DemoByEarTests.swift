import FoleyTestSupport
import Foundation
import Testing

/// The demo is won by ear: a bot that hears only the mixed output wins level 1 (and, muted, finds
/// nothing — it is the sound it follows), a bot that reads only the captions wins it muted, the
/// dark field shows nothing before it is found, and the best scores survive what a disk can do.
@Suite("The demo, won by ear", .serialized)
struct DemoByEarTests {
  /// Renders level 1 played by `bot` and returns its report.
  static func play(bot: String, arguments: [String] = [], seconds: Double? = nil) throws -> DemoRun {
    let wav = temporaryFile("bot.wav")
    let reportFile = temporaryFile("bot-report.json")
    defer {
      try? FileManager.default.removeItem(at: wav)
      try? FileManager.default.removeItem(at: reportFile)
    }
    let run = try runDemoCommand(
      ["render", "--bot", bot, "--level", "1", wav.path, "--report", reportFile.path]
        + (seconds.map { ["--seconds", String($0)] } ?? []) + arguments,
      in: ScriptedRunTests.packageRoot, report: reportFile)
    return run
  }

  @Test(
    "a bot that hears only the stereo output finds level 1's three chimes in time; muted, it finds none",
    .disabled(
      if: isThreadSanitized,
      "minutes of offline rendering under ThreadSanitizer starve the suite's real-time tests; it runs in the plain suite"
    ))
  func earBotWinsLevelOne() throws {
    let run = try Self.play(bot: "ear")
    #expect(run.status == 0, "\(run.errors)")
    let rounds = run.report?["rounds"] as? [[String: Any]] ?? []
    try #require(rounds.count == 1, "\(run.output)")
    #expect(rounds[0]["outcome"] as? String == "won" && rounds[0]["found"] as? Int == 3, "\(rounds[0])")
    #expect((rounds[0]["timeLeft"] as? Double ?? 0) > 10, "\(rounds[0])")
    // The same bot with no sound to hear: the chimes ring, captioned, but it cannot find them.
    let deaf = try Self.play(bot: "ear", arguments: ["--muted"])
    #expect(deaf.status == 0, "\(deaf.errors)")
    let lost = (deaf.report?["rounds"] as? [[String: Any]])?.first
    #expect(lost?["outcome"] as? String == "time up" && lost?["found"] as? Int == 0, "\(deaf.output)")
  }

  @Test(
    "a bot that reads only the captions' direction and distance wins levels 1 and 2 with no sound at all (led through level 2's door)",
    .disabled(
      if: isThreadSanitized,
      "minutes of offline rendering under ThreadSanitizer starve the suite's real-time tests; it runs in the plain suite"
    ), arguments: [(1, 3), (2, 4)])
  func captionBotWinsMuted(level: Int, chimes: Int) throws {
    let wav = temporaryFile("captions-bot.wav")
    let reportFile = temporaryFile("captions-bot-report.json")
    defer {
      try? FileManager.default.removeItem(at: wav)
      try? FileManager.default.removeItem(at: reportFile)
    }
    let run = try runDemoCommand(
      [
        "render", "--bot", "captions", "--muted", "--level", String(level), wav.path, "--report",
        reportFile.path, "--seconds", "30",
      ], in: ScriptedRunTests.packageRoot, report: reportFile)
    #expect(run.status == 0, "\(run.errors)")
    let rounds = run.report?["rounds"] as? [[String: Any]] ?? []
    try #require(rounds.count == 1, "\(run.output)")
    #expect(rounds[0]["outcome"] as? String == "won" && rounds[0]["found"] as? Int == chimes, "\(rounds[0])")
    // Nothing was heard: the rendered output is silent from start to end (under -120 dBFS).
    let samples = try DemoGameTests.monoSamples(ofWAV: wav)
    #expect(samples.count > 48_000 * 20 && Signal(samples).peak < 1e-6, "peak \(Signal(samples).peak)")
  }

  @Test("the game with `--balance 1` and `--mono`: the left ear silent, the right carrying every sound")
  func balanceAndMono() throws {
    let output = temporaryFile("balance.raw")
    defer { try? FileManager.default.removeItem(at: output) }
    let run = try runDemo(
      script: ["duration": 2], arguments: ["--fast", "--balance", "1", "--mono"],
      environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": output.path])
    #expect(run.status == 0, "\(run.errors)")
    let capture = try DiskCapture(contentsOf: output, format: .float32)
    #expect(capture.right.peak > 0.01, "right \(capture.right.peak)")
    #expect(capture.left.peak < 1e-6, "left \(capture.left.peak)")
  }

  /// Walks level 2's player to 45 points below its first chime (inside the glow's reach) and
  /// takes a screenshot; returns its pixels (as the BMP holds them: the bottom row first).
  static func fieldNearTheFirstChime(dark: Bool) throws -> (pixels: [UInt32], run: DemoRun) {
    let shot = temporaryFile(dark ? "dark.bmp" : "lit.bmp")
    defer { try? FileManager.default.removeItem(at: shot) }
    let (walk, end) = DemoGameTests.walk([("right", 460), ("up", 125)], from: 0.1)
    let run = try runDemo(
      script: ["duration": end + 0.3, "events": walk],
      arguments: ["--fast", "--level", "2", "--screenshot", shot.path] + (dark ? ["--dark"] : []))
    return (try screenshotPixels(shot), run)
  }

  @Test(
    "`--dark` draws nothing of the field but the player: no chime, ball, wall or ember before it is found")
  func darkFieldHidesEverything() throws {
    let width = ScriptedRunTests.screenWidth
    let (dark, run) = try Self.fieldNearTheFirstChime(dark: true)
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.output.contains("dark: nothing of the field is drawn"), "\(run.output)")
    try #require(dark.count == width * 600)
    // Under the HUD's bar (84 rows) and left of the side panel: black, or the player's green.
    var other = 0
    for y in 90..<600 {
      for x in 0..<800 {
        let pixel = dark[(599 - y) * width + x] & 0xFF_FFFF
        let (red, green, blue) = (pixel >> 16 & 0xFF, pixel >> 8 & 0xFF, pixel & 0xFF)
        let isPlayer = green > 200 && red < 110 && blue < 130
        if pixel != 0 && !isPlayer { other += 1 }
      }
    }
    #expect(other == 0, "\(other) pixels of the dark field drawn")
    // Lit, the same walk shows the chime glowing 45 points away ((0.55, 0.95, 1) at its glow).
    let (lit, litRun) = try Self.fieldNearTheFirstChime(dark: false)
    #expect(litRun.status == 0, "\(litRun.errors)")
    var chime = 0
    for y in 165..<195 {
      for x in 645..<675 {
        let pixel = lit[(599 - y) * width + x]
        let (red, green, blue) = (pixel >> 16 & 0xFF, pixel >> 8 & 0xFF, pixel & 0xFF)
        if blue > 120, green > 110, red < blue / 2 + 20 { chime += 1 }
      }
    }
    #expect(chime > 20, "\(chime) pixels of the glowing chime")
  }

  /// Plays level 1 to its end with the best scores in `file`.
  static func winLevelOne(scores file: URL) throws -> DemoRun {
    let (walk, end) = DemoGameTests.walk(DemoGameTests.levelOne, from: 0.1)
    return try runDemo(
      script: ["duration": end + 0.5, "events": walk], arguments: ["--fast", "--scores", file.path])
  }

  @Test(
    "best scores: a write cut short leaves the old file; a corrupt one is set aside and said; no folder, no crash"
  )
  func bestScoresLoseNothing() throws {
    let folder = temporaryFile("scores")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("best.json")
    // A good file, and the half-written temporary file a game killed mid-write leaves beside it.
    try Data(#"{"version": 1, "levels": {"1": 50, "2": 700}}"#.utf8).write(to: file)
    let leftover = folder.appendingPathComponent(".best.json.4242.tmp")
    try Data(#"{"version": 1, "lev"#.utf8).write(to: leftover)
    let run = try Self.winLevelOne(scores: file)
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.reportErrors.isEmpty, "\(run.reportErrors)")
    let round = try #require((run.report?["rounds"] as? [[String: Any]])?.first)
    let score = round["score"] as? Int ?? 0
    #expect(round["previousBest"] as? Int == 50 && round["isNewBest"] as? Bool == true, "\(round)")
    let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
    let levels = saved?["levels"] as? [String: Int]
    #expect(levels == ["1": score, "2": 700], "\(String(describing: saved))")
    #expect(!FileManager.default.fileExists(atPath: leftover.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["best.json"])

    // Not scores at all: kept aside byte for byte, said in words, and play goes on afresh.
    let garbage = Data("{ this is not JSON \u{0}\u{1}".utf8)
    try garbage.write(to: file)
    let corrupt = try Self.winLevelOne(scores: file)
    #expect(corrupt.status == 0, "\(corrupt.errors)")
    let said = corrupt.reportErrors.joined(separator: "\n")
    #expect(said.contains("could not be read") && said.contains("best.json.corrupt"), "\(said)")
    #expect(try Data(contentsOf: folder.appendingPathComponent("best.json.corrupt")) == garbage)
    let fresh = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
    #expect((fresh?["levels"] as? [String: Int])?.keys.sorted() == ["1"], "\(String(describing: fresh))")

    // A folder that cannot be made (its parent is a file): the score is not kept, the game says
    // so and plays on.
    let blocker = folder.appendingPathComponent("not-a-folder")
    try Data("x".utf8).write(to: blocker)
    let nowhere = try Self.winLevelOne(scores: blocker.appendingPathComponent("best.json"))
    #expect(nowhere.status == 0, "\(nowhere.errors)")
    #expect(
      nowhere.reportErrors.contains { $0.contains("could not be saved") }, "\(nowhere.reportErrors)")
    #expect((nowhere.report?["rounds"] as? [[String: Any]])?.first?["outcome"] as? String == "won")
  }

  @Test(
    "best scores: an oversized file is refused unread, a folder at NAME.corrupt is left alone, a link stays a link"
  )
  func bestScoresRespectWhatIsThere() throws {
    let folder = temporaryFile("scores-hostile")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("best.json")
    // 1 MiB of scores-looking bytes, and a folder of the player's where the corrupt copy would go.
    try Data(repeating: UInt8(ascii: " "), count: 1 << 20).write(to: file)
    let theirs = folder.appendingPathComponent("best.json.corrupt")
    try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
    try Data("keep me".utf8).write(to: theirs.appendingPathComponent("inside.txt"))
    let run = try Self.winLevelOne(scores: file)
    #expect(run.status == 0, "\(run.errors)")
    let said = run.reportErrors.joined(separator: "\n")
    #expect(said.contains("could not be read") && said.contains("best.json.corrupt.2"), "\(said)")
    #expect(try Data(contentsOf: theirs.appendingPathComponent("inside.txt")) == Data("keep me".utf8))
    #expect(try Data(contentsOf: folder.appendingPathComponent("best.json.corrupt.2")).count == 1 << 20)

    // A scores file that is a link: the score goes to its target, and the link is still a link.
    let real = folder.appendingPathComponent("real-scores.json")
    try Data(#"{"version": 1, "levels": {"2": 700}}"#.utf8).write(to: real)
    let link = folder.appendingPathComponent("linked.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
    let linked = try Self.winLevelOne(scores: link)
    #expect(linked.status == 0, "\(linked.errors)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
    let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: real)) as? [String: Any]
    #expect(
      (saved?["levels"] as? [String: Int])?.keys.sorted() == ["1", "2"], "\(String(describing: saved))")
  }
}
