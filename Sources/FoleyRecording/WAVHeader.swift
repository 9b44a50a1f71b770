/// The header of a PCM (16-bit) or IEEE-float (32-bit) WAV file: the one encoder behind the
/// recorder's files, ``WAVFile/data(format:samples:)``, the tests' generated sounds and the
/// benchmark's.
///
/// 16-bit PCM gets the canonical 44-byte header; 32-bit float gets a WAVE_FORMAT_IEEE_FLOAT
/// `fmt ` chunk with `cbSize` and the `fact` chunk that format requires (58 bytes).
///
/// ```swift
/// let header = WAVHeader(format: RecordingFormat(sampleRate: 48_000, channels: 2), frames: 48_000)
/// var file = Data(header.bytes)
/// file.append(samples)
/// ```
public struct WAVHeader: Sendable, Hashable {
  public var format: RecordingFormat
  public var frames: Int

  public init(format: RecordingFormat, frames: Int) {
    self.format = format
    self.frames = frames
  }

  /// Where the samples start: the header's length.
  public var dataOffset: Int { format.sampleFormat == .float32 ? 58 : 44 }

  /// The header's bytes; sizes saturate at the format's 4 GiB limit.
  public var bytes: [UInt8] {
    let isFloat = format.sampleFormat == .float32
    let dataBytes = UInt32(clamping: frames * format.bytesPerFrame)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(dataOffset)
    func tag(_ text: String) { bytes.append(contentsOf: Array(text.utf8)) }
    func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    tag("RIFF")
    u32(UInt32(clamping: UInt64(dataOffset - 8) + UInt64(dataBytes)))
    tag("WAVE")
    tag("fmt ")
    u32(isFloat ? 18 : 16)
    u16(isFloat ? 3 : 1)
    u16(UInt16(format.channels))
    u32(UInt32(format.sampleRate))
    u32(UInt32(format.sampleRate * format.bytesPerFrame))
    u16(UInt16(format.bytesPerFrame))
    u16(UInt16(format.bytesPerSample * 8))
    if isFloat {
      u16(0)  // cbSize
      tag("fact")
      u32(4)
      u32(UInt32(clamping: frames))
    }
    tag("data")
    u32(dataBytes)
    return bytes
  }
}
