public import Logging

extension Logger {
  /// The logger a Foley type uses when the game passes none: `label`, at the level the
  /// `FOLEY_LOG_LEVEL` environment variable names (`trace`, `debug`, `info`, `notice`, `warning`,
  /// `error`, `critical`), or swift-log's default (info) without it. A game that wants its own
  /// passes `logger:`; a test run or a tool quiets the engine's "audio open" lines with
  /// `FOLEY_LOG_LEVEL=warning` (as `Scripts/test.sh` does).
  ///
  /// ```swift
  /// let engine = try AudioEngine(logger: .foley("mygame.audio"))
  /// ```
  public static func foley(_ label: String) -> Logger {
    var logger = Logger(label: label)
    if let name = getenv("FOLEY_LOG_LEVEL").map({ String(cString: $0).lowercased() }),
      let level = Logger.Level(rawValue: name)
    {
      logger.logLevel = level
    }
    return logger
  }
}
