import Foley
import Foundation
import Logging

extension AudioEngine {
  /// The engine a command-line tool plays through: a session of its own, and a logger that
  /// speaks only at `logLevel` and above (the tool prints what matters itself).
  @MainActor
  static func forTool(_ label: String, logLevel: Logger.Level = .warning) throws -> AudioEngine {
    var logger = Logger(label: label)
    logger.logLevel = logLevel
    return try AudioEngine(session: AudioSession(), logger: logger)
  }

  /// Waits until the mix is silent (every voice ended, every effect's tail rung out), at most
  /// `seconds`: a tool that closes then writes its last sound decayed to exact zeros, not cut.
  @MainActor
  func waitUntilSilent(upTo seconds: Double = 30) async {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while isSounding, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
  }

  /// The first line the tools print: the device, and whether it is a silent stand-in.
  var deviceLine: String { "device: \(deviceFormat)\(isSilent ? " (silent: no audio device)" : "")" }
}

/// A line on standard output at once (the tools' progress, read by people and tests alike).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
