import FoleyTestSupport
import Foundation
import Testing

/// `foley-demo rhythm`: the ear bot taps from the output it hears, and is judged on the heard clock.
@Suite("foley-demo rhythm")
struct RhythmCommandTests {
  @Test(
    "the ear bot, tapping on the clicks it hears in the output, scores at least 95 % perfect (±25 ms) through a focus-loss pause mid-track, every beat judged"
  )
  func earBotThroughAPause() throws {
    let report = temporaryFile("rhythm.json")
    defer { try? FileManager.default.removeItem(at: report) }
    let run = try runDemoCommand(
      ["rhythm", "--headless", "--bot", "ear", "--beats", "24", "--pause-at", "4", "--report", report.path],
      environment: ["SDL_VIDEODRIVER": "dummy"], report: report)
    #expect(run.status == 0, "\(run.output)\n\(run.errors)")
    #expect(run.output.contains("paused at 4.") && run.output.contains("resumed"), "\(run.output)")
    let judged = try #require(run.report, "\(run.output)\n\(run.errors)")
    let perfect = try #require(judged["perfect"] as? Int)
    let total = try #require(judged["total"] as? Int)
    #expect(total == 24, "\(judged)")
    #expect(Double(perfect) >= 0.95 * Double(total), "\(judged)")
  }

  @Test("headless with no bot says nobody can tap; a settings file that does not decode is refused")
  func refusals() throws {
    let nobody = try runDemoCommand(["rhythm", "--headless"])
    #expect(nobody.status == 2 && nobody.errors.contains("nobody can tap"), "\(nobody.errors)")
    let settings = temporaryFile("settings.json")
    defer { try? FileManager.default.removeItem(at: settings) }
    try Data(#"{"latencyOffsets": {"audio": 3}}"#.utf8).write(to: settings)
    let bad = try runDemoCommand(["rhythm", "--headless", "--bot", "ear", "--settings", settings.path])
    #expect(bad.status == 2 && bad.errors.contains("is not in -0.5…0.5"), "\(bad.errors)")
  }
}
