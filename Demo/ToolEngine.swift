import Foley
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

  /// The first line the tools print: the device, and whether it is a silent stand-in.
  var deviceLine: String { "device: \(deviceFormat)\(isSilent ? " (silent: no audio device)" : "")" }
}
