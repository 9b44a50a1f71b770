import FoleyCore
public import Logging

/// A logger whose lines are kept, for tests of what the engine says.
///
/// ```swift
/// let log = CapturedLog()
/// let engine = try AudioEngine(embedded: mixer, logger: log.logger)
/// #expect(log.lines.contains { $0.level == .error && $0.message.contains("missing.ogg") })
/// ```
public final class CapturedLog: Sendable {
  public struct Line: Sendable {
    public var level: Logger.Level
    public var message: String
  }

  private let kept = Locked<[Line]>([])

  public init() {}

  /// Every line logged so far, in order.
  public var lines: [Line] { kept.withLock { $0 } }

  /// A logger that keeps its lines here (all levels).
  public var logger: Logger {
    var logger = Logger(label: "foley.test") { _ in Handler(log: self) }
    logger.logLevel = .trace
    return logger
  }

  fileprivate func append(_ line: Line) {
    kept.withLock { $0.append(line) }
  }

  private struct Handler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      log.append(Line(level: event.level, message: event.message.description))
    }
  }
}
