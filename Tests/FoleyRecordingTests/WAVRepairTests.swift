import FoleyRecording
import FoleySession
import Foundation
import PropertyBased
import Testing

/// `WAVFile.repair` may only fix what it can prove wrong: a whole file (chunks before or after the
/// samples included) is left byte for byte, and bytes that were chunks never become samples.
@Suite("WAV repair")
struct WAVRepairTests {
  /// A chunk as a WAV writer lays it out: id, little-endian size, body, a pad byte if odd.
  static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
    var bytes = Array(id.utf8)
    let size = UInt32(body.count)
    bytes += withUnsafeBytes(of: size.littleEndian) { Array($0) }
    bytes += body
    if body.count % 2 == 1 { bytes.append(0) }
    return bytes
  }

  /// A whole WAV file: `before` chunks, fmt, (fact for float), data, `after` chunks.
  static func wav(
    format: RecordingFormat, samples: [UInt8], before: [[UInt8]] = [], after: [[UInt8]] = []
  ) -> (file: [UInt8], dataOffset: Int) {
    let isFloat = format.sampleFormat == .float32
    var fmt: [UInt8] = []
    func put16(_ value: Int) { fmt += withUnsafeBytes(of: UInt16(value).littleEndian) { Array($0) } }
    func put32(_ value: Int) { fmt += withUnsafeBytes(of: UInt32(value).littleEndian) { Array($0) } }
    put16(isFloat ? 3 : 1)
    put16(format.channels)
    put32(format.sampleRate)
    put32(format.sampleRate * format.bytesPerFrame)
    put16(format.bytesPerFrame)
    put16(isFloat ? 32 : 16)
    var body: [UInt8] = Array("WAVE".utf8)
    for extra in before { body += extra }
    body += chunk("fmt ", fmt)
    if isFloat {
      body += chunk(
        "fact", withUnsafeBytes(of: UInt32(samples.count / format.bytesPerFrame).littleEndian) { Array($0) })
    }
    let dataOffset = 8 + body.count + 8
    body += chunk("data", samples)
    for extra in after { body += extra }
    return (
      Array("RIFF".utf8) + withUnsafeBytes(of: UInt32(body.count).littleEndian) { Array($0) } + body,
      dataOffset
    )
  }

  static func write(_ bytes: [UInt8]) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-wav-\(UUID().uuidString).wav")
    try Data(bytes).write(to: url)
    return url
  }

  static let mono16 = RecordingFormat(sampleRate: 48_000, channels: 1, sampleFormat: .signed16)

  @Test(
    "a whole 4-frame file with LIST and id3 chunks after its samples is whole, and repair leaves it byte for byte"
  )
  func trailingChunksStayChunks() throws {
    let samples: [UInt8] = [1, 0, 2, 0, 3, 0, 4, 0]
    let list = Self.chunk("LIST", Array("INFOINAM".utf8) + Self.chunk("INAM", Array("Title".utf8)))
    let id3 = Self.chunk("id3 ", [0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 1, 0x20])  // odd size, padded
    let (file, _) = Self.wav(format: Self.mono16, samples: samples, after: [list, id3])
    let url = try Self.write(file)
    defer { try? FileManager.default.removeItem(at: url) }
    let info = try WAVFile.info(at: url)
    #expect(info.isConsistent)
    #expect(info.frames == 4 && info.framesOnDisk == 4)
    let repaired = try WAVFile.repair(at: url)
    #expect(repaired.frames == 4)
    #expect(try Data(contentsOf: url) == Data(file))
  }

  @Test("a recording never finalised (data size 0) gets every whole frame on disk, and nothing else changes")
  func unfinalisedRecordingIsRecovered() throws {
    let samples: [UInt8] = (0..<100).flatMap { [UInt8($0), 1] as [UInt8] }
    var (file, dataOffset) = Self.wav(format: Self.mono16, samples: samples)
    for index in 4..<8 { file[index] = 0 }  // RIFF size
    for index in (dataOffset - 4)..<dataOffset { file[index] = 0 }  // data size
    file.append(7)  // half a frame
    let url = try Self.write(file)
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(try !WAVFile.info(at: url).isConsistent)
    let repaired = try WAVFile.repair(at: url)
    #expect(repaired.frames == 100 && repaired.isConsistent)
    let after = try [UInt8](Data(contentsOf: url))
    #expect(after.count == file.count)
    #expect(Array(after[dataOffset...]) == Array(file[dataOffset...]))  // the samples are untouched
    #expect(try WAVFile.info(at: url).isConsistent)
  }

  static func build(
    _ float: Bool, _ channels: Int, _ frames: Int, _ seed: Int, _ beforeSizes: [Int], _ afterSizes: [Int]
  ) -> (file: [UInt8], dataOffset: Int, format: RecordingFormat) {
    let format = RecordingFormat(
      sampleRate: 44_100, channels: channels, sampleFormat: float ? .float32 : .signed16)
    var state = UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15
    func byte() -> UInt8 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
    let samples = (0..<(frames * format.bytesPerFrame)).map { _ in byte() }
    let ids = ["LIST", "JUNK", "cue ", "bext", "id3 ", "smpl"]
    func chunks(_ sizes: [Int], firstID: Int) -> [[UInt8]] {
      var made: [[UInt8]] = []
      for (index, size) in sizes.enumerated() {
        let body: [UInt8] = (0..<size).map { _ in byte() }
        made.append(Self.chunk(ids[(index + firstID) % ids.count], body))
      }
      return made
    }
    let before = chunks(beforeSizes, firstID: 0)
    let after = chunks(afterSizes, firstID: 3)
    let (file, dataOffset) = Self.wav(format: format, samples: samples, before: before, after: after)
    return (file, dataOffset, format)
  }

  @Test("any whole file: info calls it whole and repair changes no byte")
  func wholeFilesAreLeftAlone() async {
    // A random whole file: s16 or float, 1 or 2 channels, random samples, random chunks on either
    // side of the samples (odd sizes included).
    await propertyCheck(
      count: 300, input: Gen.bool, Gen.int(in: 1...2), Gen.int(in: 0...120), Gen.int(in: 0...1_000_000),
      Gen.int(in: 0...41).array(of: 0...3), Gen.int(in: 0...41).array(of: 0...3)
    ) { float, channels, frames, seed, beforeSizes, afterSizes in
      let (file, _, _) = Self.build(float, channels, frames, seed, beforeSizes, afterSizes)
      let url = try Self.write(file)
      defer { try? FileManager.default.removeItem(at: url) }
      #expect(try WAVFile.info(at: url).isConsistent)
      #expect(try WAVFile.repair(at: url).frames == frames)
      #expect(try Data(contentsOf: url) == Data(file))
    }
  }

  @Test("any whole file cut anywhere after its header: repair keeps a prefix of the samples and never more")
  func truncatedFilesNeverGainSamples() async {
    await propertyCheck(
      count: 300, input: Gen.bool, Gen.int(in: 1...2), Gen.int(in: 0...120), Gen.int(in: 0...1_000_000),
      Gen.int(in: 0...41).array(of: 0...3), Gen.int(in: 0...41).array(of: 0...3), Gen.double(in: 0...1)
    ) { float, channels, frames, seed, beforeSizes, afterSizes, cut in
      let (file, dataOffset, format) = Self.build(float, channels, frames, seed, beforeSizes, afterSizes)
      let length = dataOffset + Int(cut * Double(file.count - dataOffset))
      let url = try Self.write(Array(file[..<length]))
      defer { try? FileManager.default.removeItem(at: url) }
      let repaired = try WAVFile.repair(at: url)
      #expect(repaired.frames <= frames)
      // What now reads as samples is the original samples' beginning, frame for frame.
      let bytes = repaired.frames * format.bytesPerFrame
      let after = try [UInt8](Data(contentsOf: url))
      #expect(
        Array(after[dataOffset..<(dataOffset + bytes)]) == Array(file[dataOffset..<(dataOffset + bytes)]))
      // Cut inside the samples: every whole frame that is left is kept.
      if length <= dataOffset + frames * format.bytesPerFrame {
        #expect(repaired.frames == (length - dataOffset) / format.bytesPerFrame)
      } else {
        #expect(repaired.frames == frames)
      }
      #expect(try WAVFile.info(at: url).isConsistent)
    }
  }

  @Test(
    "a float file cut two bytes into a frame: once repaired it reads whole, even when those bytes look like a chunk's id"
  )
  func repairedPartialFrameStaysWhole() throws {
    // The case the property check above found (seed rQ8nzuX/…): float mono, 73 frames, cut at
    // 47.26% of the samples. The two bytes of the cut frame that stay after the repaired data
    // begin a known chunk id, so a re-read took them for a chunk cut short and called the RIFF size
    // wrong by two.
    let (file, dataOffset, format) = Self.build(true, 1, 73, 53_256, [], [])
    let length = dataOffset + Int(0.4726027397260274 * Double(file.count - dataOffset))
    let url = try Self.write(Array(file[..<length]))
    defer { try? FileManager.default.removeItem(at: url) }
    let repaired = try WAVFile.repair(at: url)
    #expect(repaired.frames == (length - dataOffset) / format.bytesPerFrame)
    #expect(try WAVFile.info(at: url).isConsistent)
    // And repairing it again writes nothing.
    let before = try Data(contentsOf: url)
    _ = try WAVFile.repair(at: url)
    #expect(try Data(contentsOf: url) == before)
  }

  @Test(
    "a data size that is no whole number of frames (9 channels, block align 2): repaired once, whole after")
  func bogusFormatRepairIsIdempotent() throws {
    // fmt says 9 channels of 16 bits with a block align of 2; the data chunk's 24,000 bytes are
    // 1,333 frames of 18 and 6 bytes more. Repair once moved the data size and left the RIFF
    // size for a second repair to move.
    let format = RecordingFormat(sampleRate: 48_000, channels: 9, sampleFormat: .signed16)
    var (file, _) = Self.wav(format: format, samples: (0..<24_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    file[32] = 2  // block align
    file[33] = 0
    let url = try Self.write(file)
    defer { try? FileManager.default.removeItem(at: url) }
    let repaired = try WAVFile.repair(at: url)
    #expect(repaired.frames == 1_333 && repaired.isConsistent)
    #expect(try WAVFile.info(at: url).isConsistent)
    let once = try Data(contentsOf: url)
    _ = try WAVFile.repair(at: url)
    #expect(try Data(contentsOf: url) == once, "a second repair changed the file")
    #expect(once.count == file.count)
  }
}
