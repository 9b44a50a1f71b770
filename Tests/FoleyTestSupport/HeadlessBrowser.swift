import Foundation

/// Debian's chromium, headless: loads a page, lets its scripts run, and returns the DOM they
/// left. `Scripts/test.sh` installs it (through `Scripts/setup.sh`).
public enum HeadlessBrowser {
  /// The browser's path, if installed.
  public static var path: String? {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  public static var isInstalled: Bool { path != nil }

  /// The page at `url` after `budget` milliseconds of its virtual time (its timers and
  /// WebSocket messages run; the dump waits for the network to settle). Chromium is killed after
  /// `timeout` seconds of wall time, generous: on a loaded two-core machine its start alone took
  /// more than a minute once, and the kill left an empty page. An empty page is asked for again,
  /// `attempts` times in all: with both cores busy, one dump in a few runs did not finish within
  /// three minutes, and the next one did.
  public static func dumpDOM(
    _ url: String, budget: Int = 3_000, timeout: Double = 180, attempts: Int = 3
  ) throws -> String {
    var dom = ""
    for _ in 0..<max(1, attempts) where dom.isEmpty {
      dom = try dumpOnce(url, budget: budget, timeout: timeout)
    }
    return dom
  }

  private static func dumpOnce(_ url: String, budget: Int, timeout: Double) throws -> String {
    guard let path else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "chromium"]) }
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-chromium-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: profile) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    // --no-sandbox: tests run as root here, where chromium's sandbox refuses to start.
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
      "--virtual-time-budget=\(budget)", "--dump-dom", url,
    ]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    killer.cancel()
    return String(decoding: data, as: UTF8.self)
  }

  /// How many times `needle` occurs in `text`.
  public static func count(_ needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
  }
}
