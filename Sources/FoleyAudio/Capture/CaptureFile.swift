public import Foundation

/// A capture file read back: its header and its commands in frame order.
///
/// A capture cut short (the game crashed, or was killed) ends in a partial line or without its
/// end line; it is read up to its last whole line, and ``isComplete`` is false. Any other line
/// that is not a capture's is refused with its line number.
///
/// ```swift
/// let capture = try CaptureFile(contentsOf: URL(fileURLWithPath: "round.foleycapture"))
/// print(capture.header.sampleRate, capture.records.count, capture.seconds)
/// ```
public struct CaptureFile: Sendable {
  public let header: CaptureHeader
  /// The commands, in the order of their frames (the audio queue's order within a frame).
  public let records: [CaptureRecord]
  /// Whether the capture ended by itself (its end line is there).
  public let isComplete: Bool
  /// Why it ended ("stopped", "size limit", "engine closed"), when it says.
  public let endedBy: String?

  /// The largest capture file read: 256 MiB.
  public static let maximumBytes = 256 << 20

  /// The most audio a capture covers: a day, as an offline render.
  public static let maximumSeconds = 86_400

  /// Reads the capture at `url`.
  /// - Throws: ``CaptureError/invalid(_:)`` for a file that is missing, too large, not a
  ///   capture, of another version, or with a line that is not a capture's (with its number).
  public init(contentsOf url: URL) throws(CaptureError) {
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
    guard let size else { throw .invalid("\(url.path): no such file") }
    guard size <= Self.maximumBytes else {
      throw .invalid("\(url.path) is \(size) bytes; a capture is read up to \(Self.maximumBytes)")
    }
    guard let data = try? Data(contentsOf: url) else { throw .invalid("\(url.path) cannot be read") }
    try self.init(data: data, name: url.lastPathComponent)
  }

  /// Reads a capture from its bytes; `name` is used in errors.
  public init(data: Data, name: String = "capture") throws(CaptureError) {
    var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
    // The last piece is empty after a whole last line, or the line being written when the
    // capture was cut short: either way it is not a record.
    if !lines.isEmpty { lines.removeLast() }
    guard let first = lines.first else { throw .invalid("\(name) is empty") }
    let decoder = JSONDecoder()
    guard let header = try? decoder.decode(CaptureHeader.self, from: Data(first)),
      header.format == "foley-capture"
    else { throw .invalid("\(name), line 1: not a Foley capture header") }
    guard header.version == CaptureHeader.currentVersion else {
      throw .invalid(
        "\(name) is version \(header.version) of the capture format; this build reads version \(CaptureHeader.currentVersion)"
      )
    }
    guard (8_000...192_000).contains(header.sampleRate), (64...16_384).contains(header.bufferFrames),
      header.channels == 2
    else {
      throw .invalid(
        "\(name), line 1: \(header.sampleRate) Hz, \(header.channels) channels, \(header.bufferFrames)-frame buffers is not a mix Foley makes"
      )
    }
    var records: [CaptureRecord] = []
    records.reserveCapacity(lines.count)
    var endedBy: String?
    // A capture covers at most a day of audio, as a render does: a frame past it is not one a
    // capture can hold, and replaying up to it would not end.
    let lastFrame = UInt64(Self.maximumSeconds) * UInt64(header.sampleRate)
    for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
      let record: CaptureRecord
      do {
        record = try decoder.decode(CaptureRecord.self, from: Data(line))
      } catch {
        throw .invalid("\(name), line \(index + 1): \(Self.reason(error))")
      }
      if let frame = record.frames.first(where: { $0 > lastFrame }) {
        throw .invalid(
          "\(name), line \(index + 1): frame \(frame) is past \(Self.maximumSeconds) s of audio, the most a capture covers"
        )
      }
      if case .end(let reason) = record.command { endedBy = reason }
      records.append(record)
    }
    self.header = header
    // Stable: within a frame, the order the queue applied the commands in.
    self.records = records.enumerated().sorted {
      ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset)
    }
    .map(\.element)
    isComplete = endedBy != nil
    self.endedBy = endedBy
  }

  /// The last frame the capture knows of: its end, its last mark or its last command.
  public var frames: UInt64 { records.last?.frame ?? 0 }

  /// Seconds of mixed audio it covers.
  public var seconds: Double { Double(frames) / Double(header.sampleRate) }

  /// The sounds it names, by their number.
  public var sounds: [Int: CapturedSound] {
    var sounds: [Int: CapturedSound] = [:]
    for record in records { if case .sound(let sound) = record.command { sounds[sound.id] = sound } }
    return sounds
  }

  /// The kinds of command it could not record, with how many times each was noted (at most once
  /// a second each).
  public var unsupported: [String: Int] {
    var kinds: [String: Int] = [:]
    for record in records { if case .unsupported(let kind) = record.command { kinds[kind, default: 0] += 1 } }
    return kinds
  }

  private static func reason(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, _): "no \"\(key.stringValue)\""
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\": \(context.debugDescription)"
    case DecodingError.dataCorrupted(let context): context.debugDescription
    default: "\(error)"
    }
  }
}
