import FoleyTestSupport
import Foundation
import Testing

/// `foley-demo calibrate`: taps to clicks and to flashes, headless with its bot, into a settings file.
@Suite("foley-demo calibrate")
struct CalibrateCommandTests {
  @Test(
    "a bot tapping 20 ms after each flash and hearing each click 26 ms late is calibrated to those delays within 2 ms, kept in the settings file with its other settings"
  )
  func botIsCalibrated() throws {
    let settings = temporaryFile("settings.json")
    defer { try? FileManager.default.removeItem(at: settings) }
    try Data(#"{"masterVolume": 0.5, "busVolumes": {"music": 0.25}}"#.utf8).write(to: settings)
    let run = try runDemoCommand([
      "calibrate", "--headless", "--taps", "8", "--bot-input-ms", "20", "--bot-audio-ms", "26",
      "--settings", settings.path,
    ])
    #expect(run.status == 0, "\(run.output)\n\(run.errors)")
    let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("{") })
    let printed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let audioMs = try #require(printed["audioMs"] as? Double)
    let inputMs = try #require(printed["inputMs"] as? Double)
    #expect(abs(audioMs - 26) <= 2 && abs(inputMs - 20) <= 2, "\(line)")
    #expect(printed["taps"] as? Int == 16)
    let kept = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: settings)) as? [String: Any])
    #expect(kept["masterVolume"] as? Double == 0.5)
    #expect((kept["busVolumes"] as? [String: Double])?["music"] == 0.25)
    let offsets = try #require(kept["latencyOffsets"] as? [String: Double])
    #expect(
      abs((offsets["audio"] ?? 0) - audioMs / 1_000) < 1e-3
        && abs((offsets["input"] ?? 0) - inputMs / 1_000) < 1e-3)
  }

  @Test(
    "a settings file that does not decode is refused and left byte for byte; headless with no bot says nobody can tap"
  )
  func refusals() throws {
    let settings = temporaryFile("settings.json")
    defer { try? FileManager.default.removeItem(at: settings) }
    let bad = Data(#"{"masterVolume": 7}"#.utf8)
    try bad.write(to: settings)
    let refused = try runDemoCommand([
      "calibrate", "--headless", "--bot-input-ms", "20", "--settings", settings.path,
    ])
    #expect(refused.status == 2)
    #expect(refused.errors.contains("left as it was"), "\(refused.errors)")
    #expect(try Data(contentsOf: settings) == bad)
    let nobody = try runDemoCommand(["calibrate", "--headless"])
    #expect(nobody.status == 2 && nobody.errors.contains("nobody can tap"), "\(nobody.errors)")
    let outOfRange = try runDemoCommand(["calibrate", "--headless", "--taps", "3"])
    #expect(
      outOfRange.status != 0 && outOfRange.errors.contains("--taps must be 8…64"), "\(outOfRange.errors)")
  }
}
