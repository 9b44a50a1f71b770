import FoleyCore
public import Foundation

/// Reading, checking and repairing the WAV files Foley records (and any other PCM or IEEE-float
/// WAV).
///
/// A recording keeps its header's sizes up to date at least once a second, so a process killed
/// mid-take leaves a file that players read up to the last patch. ``repair(at:)`` goes further
/// and sets the sizes from the file's real length, recovering the last second as well.
///
/// ```swift
/// let info = try WAVFile.info(at: url)
/// print(info.duration, info.format)       // 12.5 s, 48000 Hz s16 2 ch
/// if !info.isConsistent { try WAVFile.repair(at: url) }
/// ```
public enum WAVFile {
  /// What a WAV file holds.
  public struct Info: Sendable, Hashable, CustomStringConvertible {
    public var format: RecordingFormat
    /// Sample frames the header's data size covers.
    public var frames: Int
    /// Where the samples start.
    public var dataOffset: Int
    /// Bytes of samples actually in the file after `dataOffset` (whole frames).
    public var framesOnDisk: Int
    /// Where a float file's `fact` chunk keeps its frame count, patched with the sizes.
    var factCountOffset: Int?
    /// The frame count the `fact` chunk says (float files), if there is one.
    var factCount: Int?
    /// The data size the header says, in bytes.
    var declaredDataBytes = 0
    /// The RIFF size the header says, and the one the file's length calls for.
    var riffSize = 0
    var expectedRIFFSize = 0
    /// Bytes at the file's end, fewer than a chunk header, that may be a chunk cut short or a
    /// partial frame: a RIFF size may count them or not.
    var unclaimedTail = 0
    public var duration: Double { Double(frames) / Double(format.sampleRate) }
    /// True when the header's sizes match the file: it was finalised (or repaired). Chunks after
    /// the samples (`LIST`, `id3 `, …) are part of a whole file, not samples.
    public var isConsistent: Bool {
      declaredDataBytes == framesOnDisk * format.bytesPerFrame
        // Writers differ on whether the RIFF size counts a last odd chunk's pad byte.
        && (expectedRIFFSize - unclaimedTail - 1...expectedRIFFSize + 1).contains(riffSize)
        && (factCount.map { $0 == framesOnDisk } ?? true)
    }

    public var description: String { String(format: "%.3f s, ", duration) + format.description }
  }

  /// Reads the header of the WAV file at `url`.
  /// - Throws: ``WAVError`` when it cannot be read or is not a PCM/float WAV.
  public static func info(at url: URL) throws(WAVError) -> Info {
    let handle: FileHandle
    do {
      handle = try FileHandle(forReadingFrom: url)
    } catch {
      throw WAVError(.unreadable, file: url, message: error.localizedDescription)
    }
    defer { try? handle.close() }
    let head: Data
    let length: Int
    do {
      head = try handle.read(upToCount: 65_536) ?? Data()
      length = Int(try handle.seekToEnd())
    } catch {
      throw WAVError(.unreadable, file: url, message: error.localizedDescription)
    }
    return try parse(head, fileLength: length, url: url) { offset in
      // The 8-byte header of a chunk after the samples (fewer bytes at the end of the file).
      guard (try? handle.seek(toOffset: UInt64(offset))) != nil, let bytes = try? handle.read(upToCount: 8),
        !bytes.isEmpty
      else { return nil }
      return bytes
    }
  }

  /// Sets the RIFF and data sizes (and the float format's `fact` count) from the file's length,
  /// for a recording that was never finalised. A trailing partial frame is ignored. Only those
  /// fields change, in place at the offsets the file's own chunks put them, so other chunks (a
  /// `LIST`, a `cue `) stay where they are; a file whose layout it does not understand is
  /// refused. A file that is whole (``Info/isConsistent``) is not written at all, and bytes that
  /// form chunks after the samples never become samples.
  /// - Returns: the repaired file's info.
  ///
  /// Repair is idempotent: the sizes are patched until the file, read again, agrees with them (a
  /// data size that was not a whole number of frames moves where the RIFF size must end, so that
  /// takes a second pass), and a repaired file is whole, so repairing it again writes nothing.
  @discardableResult
  public static func repair(at url: URL) throws(WAVError) -> Info {
    var info = try info(at: url)
    var passes = 0
    while !info.isConsistent, passes < 3 {
      try patchSizes(of: info, at: url)
      info = try self.info(at: url)
      passes += 1
    }
    return info
  }

  /// Writes the sizes `info` calls for, in place.
  private static func patchSizes(of info: Info, at url: URL) throws(WAVError) {
    let descriptor = open(url.path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard descriptor >= 0 else {
      throw WAVError(.unwritable, file: url, message: String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    let dataBytes = UInt32(clamping: info.framesOnDisk * info.format.bytesPerFrame)
    var patches: [(offset: Int, value: UInt32)] = []
    if abs(info.riffSize - info.expectedRIFFSize) > 1 {
      patches.append((4, UInt32(clamping: info.expectedRIFFSize)))
    }
    if info.declaredDataBytes != Int(dataBytes) { patches.append((info.dataOffset - 4, dataBytes)) }
    if let factOffset = info.factCountOffset, info.factCount != info.framesOnDisk {
      patches.append((factOffset, UInt32(clamping: info.framesOnDisk)))
    }
    for patch in patches {
      let written = withUnsafeBytes(of: patch.value.littleEndian) {
        pwrite(descriptor, $0.baseAddress, 4, off_t(patch.offset))
      }
      guard written == 4 else {
        throw WAVError(.unwritable, file: url, message: String(cString: strerror(errno)))
      }
    }
  }

  /// A whole WAV file in memory: ``WAVHeader`` and `samples` (interleaved, in `format`'s encoding,
  /// little-endian).
  public static func data(format: RecordingFormat, samples: UnsafeRawBufferPointer) -> Data {
    let frames = samples.count / format.bytesPerFrame
    var data = Data(WAVHeader(format: format, frames: frames).bytes)
    data.append(contentsOf: samples.prefix(frames * format.bytesPerFrame))
    return data
  }

  /// Parses the chunks in `head` (the file's first bytes) up to the samples; `chunkHeader` reads
  /// the 8 bytes at an offset of the file, to walk the chunks after the samples.
  static func parse(
    _ head: Data, fileLength: Int, url: URL, chunkHeader: (Int) -> Data? = { _ in nil }
  ) throws(WAVError) -> Info {
    func u32(_ offset: Int) -> Int {
      Int(head[head.startIndex + offset]) | Int(head[head.startIndex + offset + 1]) << 8
        | Int(head[head.startIndex + offset + 2]) << 16 | Int(head[head.startIndex + offset + 3]) << 24
    }
    func u16(_ offset: Int) -> Int {
      Int(head[head.startIndex + offset]) | Int(head[head.startIndex + offset + 1]) << 8
    }
    func tag(_ offset: Int) -> String {
      String(decoding: head[(head.startIndex + offset)..<(head.startIndex + offset + 4)], as: UTF8.self)
    }
    guard head.count >= 12, tag(8) == "WAVE" else {
      throw WAVError(.notWAV, file: url, message: "no RIFF/WAVE header")
    }
    guard tag(0) == "RIFF" else {
      throw WAVError(.unsupported, file: url, message: "'\(tag(0))' files (only RIFF) are not understood")
    }
    var offset = 12
    var format: RecordingFormat?
    var factCountOffset: Int?
    while offset + 8 <= head.count {
      let id = tag(offset)
      let size = u32(offset + 4)
      if id == "fmt " {
        guard offset + 24 <= head.count, size >= 16 else { break }
        var code = u16(offset + 8)
        if code == 0xFFFE, size >= 40, offset + 34 <= head.count { code = u16(offset + 32) }  // extensible
        let channels = u16(offset + 10)
        let rate = u32(offset + 12)
        let bits = u16(offset + 22)
        let sampleFormat: SampleFormat
        switch (code, bits) {
        case (1, 16): sampleFormat = .signed16
        case (3, 32): sampleFormat = .float32
        default:
          throw WAVError(.unsupported, file: url, message: "format code \(code), \(bits) bits")
        }
        guard channels > 0, rate > 0 else { throw WAVError(.notWAV, file: url, message: "empty format") }
        // A frame must fit the file's own arithmetic: 65,281 channels (a flipped byte) is not a WAV
        // anyone recorded.
        guard channels <= 32, rate <= 1_000_000 else {
          throw WAVError(.unsupported, file: url, message: "\(channels) channels at \(rate) Hz")
        }
        format = RecordingFormat(sampleRate: rate, channels: channels, sampleFormat: sampleFormat)
      } else if id == "fact", size >= 4 {
        factCountOffset = offset + 8
      } else if id == "data" {
        guard let format else { throw WAVError(.notWAV, file: url, message: "data before fmt") }
        let dataOffset = offset + 8
        let frameBytes = format.bytesPerFrame
        let declaredEnd = dataOffset + size
        let samplesEnd: Int
        if declaredEnd <= fileLength,
          chunksFollow(from: declaredEnd + (size & 1), to: fileLength, header: chunkHeader)
            || chunksFollow(from: declaredEnd, to: fileLength, header: chunkHeader)
        {
          // The declared samples end where the file does, or where well-formed chunks run on to
          // its end (a LIST, an id3 tag): the header is right, and those chunks are not samples.
          samplesEnd = declaredEnd
        } else {
          // A header saying 0, or less or more than is there, with no chunks after: a recording
          // never finalised. What is there reads as samples.
          samplesEnd = fileLength
        }
        let onDisk = max(0, samplesEnd - dataOffset) / frameBytes
        let isFloat = format.sampleFormat == .float32
        let trailing = samplesEnd == declaredEnd ? fileLength : dataOffset + onDisk * frameBytes
        // A repaired file that ended in a partial frame keeps those bytes after its samples; if
        // they happen to begin a known chunk's id they read as a chunk cut short. Either way they
        // are not samples, and a RIFF size that ends before them is as right as one that counts them.
        let tail =
          samplesEnd == declaredEnd && fileLength - declaredEnd < 8 ? max(0, fileLength - declaredEnd) : 0
        return Info(
          format: format, frames: min(size / frameBytes, onDisk), dataOffset: dataOffset,
          framesOnDisk: onDisk,
          factCountOffset: isFloat ? factCountOffset : nil,
          factCount: isFloat ? factCountOffset.flatMap { $0 + 4 <= head.count ? u32($0) : nil } : nil,
          declaredDataBytes: size, riffSize: u32(4), expectedRIFFSize: trailing - 8, unclaimedTail: tail)
      }
      offset += 8 + size + (size & 1)
    }
    throw WAVError(.notWAV, file: url, message: "no data chunk in the first \(head.count) bytes")
  }

  /// Whether the bytes from `start` to `end` are a sequence of well-formed chunks (a printable
  /// four-character id, a size that fits) that ends exactly at `end` — or whose last chunk, one
  /// of the kinds WAV files carry after their samples (`LIST`, `id3 `, `cue `, …), was cut short
  /// by a truncation. Nothing (start == end) counts as a sequence.
  static func chunksFollow(from start: Int, to end: Int, header: (Int) -> Data?) -> Bool {
    var offset = start
    var chunks = 0
    while offset < end {
      guard chunks < 4_096, let bytes = header(offset), !bytes.isEmpty else { return false }
      guard bytes.count == 8, end - offset >= 8 else {
        // A last header cut short: a chunk only if what is left begins a known id.
        let rest = Data(bytes.prefix(min(4, end - offset)))
        return knownTrailingChunks.contains { $0.starts(with: rest) }
      }
      let id = Data(bytes.prefix(4))
      guard id.allSatisfy({ (0x20...0x7E).contains($0) }), id.contains(where: { $0 != 0x20 }) else {
        return false
      }
      let base = bytes.startIndex
      let size =
        Int(bytes[base + 4]) | Int(bytes[base + 5]) << 8 | Int(bytes[base + 6]) << 16 | Int(bytes[base + 7])
        << 24
      let next = offset + 8 + size
      // A known chunk cut short by a truncation still ends the samples.
      guard next <= end else { return knownTrailingChunks.contains(id) }
      // The pad byte after an odd-sized last chunk may be missing.
      offset = min(end, next + (size & 1))
      chunks += 1
    }
    return true
  }

  /// The chunks WAV writers put after the samples.
  static let knownTrailingChunks: [Data] = [
    "LIST", "id3 ", "ID3 ", "JUNK", "junk", "PAD ", "cue ", "bext", "smpl", "inst", "acid", "iXML", "_PMX",
    "DISP", "plst", "labl", "note", "ltxt", "umid", "cart", "PEAK", "minf", "elm1", "regn", "ovwf", "fact",
  ].map { Data($0.utf8) }

}

/// Why a WAV file could not be read, written or repaired.
public struct WAVError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: Sendable, Hashable {
    case unreadable, unwritable, notWAV, unsupported
  }

  public let code: Code
  public let file: URL
  public let message: String

  public init(_ code: Code, file: URL, message: String) {
    self.code = code
    self.file = file
    self.message = message
  }

  public var description: String {
    let what: String
    switch code {
    case .unreadable: what = "cannot read"
    case .unwritable: what = "cannot write"
    case .notWAV: what = "not a WAV file:"
    case .unsupported: what = "unsupported WAV encoding in"
    }
    return "\(what) \(file.path): \(message)"
  }
}
