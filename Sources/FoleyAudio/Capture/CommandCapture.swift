import Dispatch
import FoleyCore
public import Foundation

/// A capture being written: the audio queue hands it each command as it applies it, stamped with
/// the frame it took effect on; a writer queue of its own encodes the lines and writes them, so
/// neither the game thread nor the audio queue waits for the disk. Each line reaches the file with
/// one `write`, so what was written survives a crash of the process.
final class CommandCapture: Sendable {
  let url: URL
  private let descriptor: Int32
  private let limit: Int
  private let sampleRate: Int
  /// The engine frame the capture's frame 0 is.
  let startFrame: UInt64
  private let writer = DispatchQueue(label: "foley.capture")
  private let state = Locked(State())
  private let frameNow: @Sendable () -> UInt64

  private struct State {
    var entries: [Entry] = []
    var flushScheduled = false
    /// Sounds named so far, by their samples (weakly: samples freed and others made at their
    /// address get a number of their own), with the settings each number was written with: a
    /// sound made anew for each play of the same samples (a sound map's variants) is named once.
    var sounds: [ObjectIdentifier: [(buffer: WeakBuffer, identity: CapturedSound)]] = [:]
    var nextSoundID = 1
    /// Kinds of unrecorded command noted since the last mark.
    var unsupportedSinceMark: Set<String> = []
    var lastMark: UInt64 = 0
    var lastFrame: UInt64 = 0
    var bytes = 0
    var records = 0
    var ended: String?
    var writeError: String?
  }

  private enum Entry: Sendable {
    case record(CaptureRecord)
    /// A sound's identity, hashed on the writer queue (the samples are immutable).
    case sound(CapturedSound, SoundBuffer, frame: UInt64)
  }

  private struct WeakBuffer: @unchecked Sendable {
    weak var buffer: SoundBuffer?
  }

  /// Opens `url` for a capture (a new file, or replacing one when `replacing`) and writes its
  /// header.
  init(
    url: URL, replacing: Bool, limit: Int, header: CaptureHeader, frameNow: @escaping @Sendable () -> UInt64
  ) throws(CaptureError) {
    self.url = url
    self.limit = limit
    sampleRate = header.sampleRate
    startFrame = header.startFrame
    self.frameNow = frameNow
    let flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (replacing ? O_TRUNC : O_EXCL)
    let descriptor = open(url.path, flags, 0o644)
    guard descriptor >= 0 else {
      let reason = String(cString: strerror(errno))
      throw errno == EEXIST ? .exists(url) : .cannotWrite(url, reason)
    }
    self.descriptor = descriptor
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard var line = try? encoder.encode(header) else {
      close(descriptor)
      throw .cannotWrite(url, "the header could not be encoded")
    }
    line.append(0x0A)
    guard Self.write(line, to: descriptor) == nil else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw .cannotWrite(url, reason)
    }
    state.withLock { $0.bytes = line.count }
    scheduleMark()
  }

  deinit {
    close(descriptor)
  }

  /// Looks for a due mark four times a second, on the writer queue, until the capture ends.
  private func scheduleMark() {
    writer.asyncAfter(deadline: .now() + 0.25) { [weak self] in
      guard let self, state.withLock({ $0.ended == nil }) else { return }
      markIfDue()
      scheduleMark()
    }
  }

  // MARK: - Recording (on the audio queue)

  /// Records `command`, which took effect on engine frame `frame`.
  func record(_ command: CaptureCommand, at frame: UInt64) {
    enqueue(.record(CaptureRecord(frame: relative(frame), command: command)))
  }

  /// The number plays of `sound` name it by; a new sound's identity is written first.
  func soundID(for sound: Sound, at frame: UInt64) -> Int {
    let key = ObjectIdentifier(sound.buffer)
    let settings = sound.settings
    var identity = CapturedSound(
      id: 0, name: sound.name, semitones: sound.buffer.semitones, frames: sound.buffer.frames,
      contentHash: "",
      volume: settings.volume,
      pan: settings.pan, priority: settings.priority, category: settings.category.name,
      maximumInstances: settings.maximumInstances, policy: settings.policy.captureName,
      isCritical: settings.isCritical)
    let (id, isNew) = state.withLock { state -> (Int, Bool) in
      var known = state.sounds[key, default: []].filter { $0.buffer.buffer === sound.buffer }
      if let same = known.first(where: { entry in
        var given = identity
        given.id = entry.identity.id
        return entry.identity == given
      }) {
        return (same.identity.id, false)
      }
      identity.id = state.nextSoundID
      state.nextSoundID += 1
      known.append((WeakBuffer(buffer: sound.buffer), identity))
      state.sounds[key] = known
      return (identity.id, true)
    }
    if isNew { enqueue(.sound(identity, sound.buffer, frame: relative(frame))) }
    return id
  }

  /// Notes a command of a kind the format does not record, once per kind between marks.
  func noteUnsupported(_ kind: String, at frame: UInt64) {
    let isNew = state.withLock { $0.unsupportedSinceMark.insert(kind).inserted }
    if isNew { record(.unsupported(kind), at: frame) }
  }

  /// A frame of the engine's, counted from the capture's start.
  func relative(_ frame: UInt64) -> UInt64 { frame >= startFrame ? frame - startFrame : 0 }

  /// A frame a command names (a scheduled start, a tween's start; `UInt64.max`: none), counted from
  /// the capture's start.
  func relativeStart(_ frame: UInt64) -> UInt64? { frame == .max ? nil : relative(frame) }

  private func enqueue(_ entry: Entry) {
    let schedule = state.withLock { state -> Bool in
      guard state.ended == nil else { return false }
      state.entries.append(entry)
      guard !state.flushScheduled else { return false }
      state.flushScheduled = true
      return true
    }
    if schedule { writer.async { [self] in flush() } }
  }

  private func markIfDue() {
    let frame = relative(frameNow())
    let due = state.withLock { state -> Bool in
      guard state.ended == nil, frame >= state.lastMark + UInt64(sampleRate) else { return false }
      state.lastMark = frame
      state.unsupportedSinceMark.removeAll()
      return true
    }
    if due { record(.mark, at: frame + startFrame) }
  }

  // MARK: - Writing (on the writer queue)

  private func flush() {
    let entries = state.withLock { state -> [Entry] in
      state.flushScheduled = false
      defer { state.entries.removeAll(keepingCapacity: true) }
      return state.entries
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = Data()
    var count = 0
    var last: UInt64 = 0
    for entry in entries {
      let record: CaptureRecord
      switch entry {
      case .record(let given): record = given
      case .sound(var identity, let buffer, let frame):
        identity.contentHash = Self.contentHash(of: buffer)
        record = CaptureRecord(frame: frame, command: .sound(identity))
      }
      guard var line = record.line(using: encoder) else { continue }
      line.append(0x0A)
      let room = state.withLock { state -> Bool in
        // The end line's room is kept: a full capture still says why it ended.
        state.ended == nil && state.bytes + data.count + line.count + 96 <= limit
      }
      guard room else {
        end("size limit", at: last, pending: &data)
        return
      }
      data.append(line)
      count += 1
      last = max(last, record.frame)
    }
    write(data, records: count, lastFrame: last)
  }

  private func write(_ data: Data, records: Int, lastFrame: UInt64) {
    guard !data.isEmpty else { return }
    let failure = Self.write(data, to: descriptor)
    state.withLock { state in
      state.bytes += data.count
      state.records += records
      state.lastFrame = max(state.lastFrame, lastFrame)
      if let failure, state.writeError == nil { state.writeError = failure }
    }
  }

  private func end(_ reason: String, at frame: UInt64, pending data: inout Data) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    if var line = try? encoder.encode(CaptureRecord(frame: frame, command: .end(reason))) {
      line.append(0x0A)
      data.append(line)
    }
    write(data, records: 1, lastFrame: frame)
    state.withLock { state in
      if state.ended == nil { state.ended = reason }
      state.entries.removeAll()
    }
  }

  /// Writes what is waiting and an end line, then closes the capture.
  func finish(reason: String, at frame: UInt64) -> CaptureSummary {
    writer.sync {
      flush()
      var data = Data()
      let ended = state.withLock { $0.ended }
      if ended == nil {
        end(reason, at: max(relative(frame), state.withLock { $0.lastFrame }), pending: &data)
      }
      fsync(descriptor)
    }
    return state.withLock { state in
      CaptureSummary(
        url: url, records: state.records, bytes: state.bytes, frames: state.lastFrame,
        sampleRate: sampleRate, endedBy: state.ended ?? reason, writeError: state.writeError)
    }
  }

  private static func write(_ data: Data, to descriptor: Int32) -> String? {
    data.withUnsafeBytes { bytes -> String? in
      var offset = 0
      while offset < bytes.count {
        let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return String(cString: strerror(errno))
        }
        offset += written
      }
      return nil
    }
  }

  /// The 64-bit FNV-1a hash of a sound's decoded samples, in hexadecimal.
  static func contentHash(of buffer: SoundBuffer) -> String {
    let bytes = UnsafeRawBufferPointer(start: buffer.chunk.samples, count: buffer.chunk.byteCount)
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return String(hash, radix: 16)
  }
}

extension ChannelPolicy {
  var captureName: String {
    switch self {
    case .stealOldest: "stealOldest"
    case .stealLowestPriority: "stealLowestPriority"
    case .reject: "reject"
    }
  }

  init?(captureName: String) {
    switch captureName {
    case "stealOldest": self = .stealOldest
    case "stealLowestPriority": self = .stealLowestPriority
    case "reject": self = .reject
    default: return nil
    }
  }
}

/// What a finished capture holds.
public struct CaptureSummary: Sendable, Hashable {
  /// The capture file.
  public var url: URL
  /// Lines after the header.
  public var records: Int
  /// The file's size.
  public var bytes: Int
  /// The last frame it records, counted from its start.
  public var frames: UInt64
  public var sampleRate: Int
  /// Why it ended: "stopped", "size limit" or "engine closed".
  public var endedBy: String
  /// The first write that failed (a full disk), if one did: the lines before it are whole.
  public var writeError: String?

  /// Seconds of mixed audio it covers.
  public var seconds: Double { Double(frames) / Double(max(1, sampleRate)) }
}

/// Why a capture could not start, or a capture file could not be read or replayed.
public enum CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A capture file is there already (``AudioEngine/startCapture(to:replacing:limit:)`` replaces one
  /// only when asked).
  case exists(URL)
  /// The file cannot be created or written; the text says why.
  case cannotWrite(URL, String)
  /// A capture is running already.
  case alreadyCapturing
  /// The engine is closed.
  case engineClosed
  /// The file cannot be read, or is not a capture; the text says why and where.
  case invalid(String)
  /// A capture names a sound the replay cannot find (by its name).
  case missingSound(String)
  /// A capture names a sound whose samples are not those captured (its file changed, or another
  /// decoder made them).
  case changedSound(String)

  public var description: String {
    switch self {
    case .exists(let url): "a file is at \(url.path) already (pass replacing: true to replace it)"
    case .cannotWrite(let url, let why): "cannot write the capture \(url.path): \(why)"
    case .alreadyCapturing: "a capture is running already"
    case .engineClosed: "the engine is closed"
    case .invalid(let why): "not a capture Foley can read: \(why)"
    case .missingSound(let name): "the capture plays \"\(name)\", which is not in the asset roots"
    case .changedSound(let name):
      "the capture plays \"\(name)\", whose samples have changed since it was captured"
    }
  }
}
