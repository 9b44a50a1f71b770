package import Foundation

/// The length a sound file's header declares, read without decoding: for an action's duration
/// (`playSound(data:waitForCompletion:)` sits in sequences and groups before any engine has seen
/// the bytes). Pure Swift with every read bounds-checked, so it is safe on any bytes; no codec
/// runs. WAV, AIFF, FLAC, OGG Vorbis and Opus say their length exactly; MP3 from its Xing/Info
/// header, otherwise estimated from the bit rate. Nil when the bytes do not say.
package enum SoundProbe {
  package static func duration(of data: Data) -> Double? {
    let bytes = [UInt8](data.prefix(1 << 20))
    let reader = ByteReader(bytes: bytes, tail: data.count > bytes.count ? [UInt8](data.suffix(65_536)) : nil)
    let seconds: Double?
    if reader.tag(0) == "RIFF" && reader.tag(8) == "WAVE" {
      seconds = wav(reader)
    } else if reader.tag(0) == "FORM" && (reader.tag(8) == "AIFF" || reader.tag(8) == "AIFC") {
      seconds = aiff(reader)
    } else if reader.tag(0) == "fLaC" {
      seconds = flac(reader)
    } else if reader.tag(0) == "OggS" {
      seconds = ogg(reader, totalLength: data.count)
    } else {
      seconds = mp3(reader, totalLength: data.count)
    }
    guard let seconds, seconds.isFinite, seconds >= 0, seconds < 86_400 else { return nil }
    return seconds
  }

  private static func wav(_ reader: ByteReader) -> Double? {
    var offset = 12
    var byteRate = 0
    var blockAlign = 0
    var rate = 0
    var factFrames: Int?
    while let id = reader.tag(offset), let size = reader.u32(offset + 4) {
      switch id {
      case "fmt ":
        rate = reader.u32(offset + 12) ?? 0
        byteRate = reader.u32(offset + 16) ?? 0
        blockAlign = reader.u16(offset + 20) ?? 0
      case "fact": factFrames = reader.u32(offset + 8)
      case "data":
        guard rate > 0 else { return nil }
        if let factFrames { return Double(factFrames) / Double(rate) }
        let available = max(0, reader.count - offset - 8)
        let length = size == 0 || size > available ? available : size
        if blockAlign > 0, byteRate == rate * blockAlign { return Double(length / blockAlign) / Double(rate) }
        return byteRate > 0 ? Double(length) / Double(byteRate) : nil
      default: break
      }
      offset += 8 + size + (size & 1)
    }
    return nil
  }

  private static func aiff(_ reader: ByteReader) -> Double? {
    var offset = 12
    while let id = reader.tag(offset), let size = reader.u32(offset + 4, bigEndian: true) {
      if id == "COMM", let frames = reader.u32(offset + 10, bigEndian: true),
        let rate = reader.extended(offset + 16),
        rate >= 1
      {
        return Double(frames) / rate
      }
      offset += 8 + size + (size & 1)
    }
    return nil
  }

  private static func flac(_ reader: ByteReader) -> Double? {
    // STREAMINFO is the first metadata block: rate (20 bits) and total samples (36 bits) at 18.
    guard let high = reader.u32(18, bigEndian: true), let low = reader.u32(22, bigEndian: true) else {
      return nil
    }
    let rate = Int(high >> 12)
    let total = (Int(high & 0xF) << 32) | low
    return rate > 0 && total > 0 ? Double(total) / Double(rate) : nil
  }

  private static func ogg(_ reader: ByteReader, totalLength: Int) -> Double? {
    let packet = 27 + Int(reader.byte(26) ?? 0)
    let rate: Double
    var preSkip = 0
    if reader.tag(packet + 1) == "vorb" {
      guard let vorbisRate = reader.u32(packet + 12), vorbisRate > 0 else { return nil }
      rate = Double(vorbisRate)
    } else if reader.tag(packet) == "Opus" {
      rate = 48_000
      preSkip = reader.u16(packet + 10) ?? 0
    } else {
      return nil
    }
    // The last page's granule position is the stream's length in samples.
    guard let granule = reader.lastOggGranule(), granule > preSkip else { return nil }
    return Double(granule - preSkip) / rate
  }

  private static func mp3(_ reader: ByteReader, totalLength: Int) -> Double? {
    var offset = 0
    if reader.tag(0)?.hasPrefix("ID3") == true, let sizes = reader.synchsafe(6) { offset = 10 + sizes }
    // The first frame sync.
    while let byte = reader.byte(offset), offset < reader.count - 4 {
      if byte == 0xFF, let next = reader.byte(offset + 1), next & 0xE0 == 0xE0 { break }
      offset += 1
    }
    guard let b1 = reader.byte(offset + 1), let b2 = reader.byte(offset + 2), let b3 = reader.byte(offset + 3)
    else {
      return nil
    }
    let version = (b1 >> 3) & 3  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    let layer = (b1 >> 1) & 3  // 1: layer III
    let rates: [Double] =
      version == 3
      ? [44_100, 48_000, 32_000] : version == 2 ? [22_050, 24_000, 16_000] : [11_025, 12_000, 8_000]
    let rateIndex = Int((b2 >> 2) & 3)
    guard rateIndex < 3, layer == 1 else { return nil }
    let rate = rates[rateIndex]
    let samplesPerFrame: Double = version == 3 ? 1_152 : 576
    // A Xing or Info header in the first frame gives the frame count.
    let mono = (b3 >> 6) == 3
    let sideInfo = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
    let xing = offset + 4 + sideInfo
    if let tag = reader.tag(xing), tag == "Xing" || tag == "Info",
      let flags = reader.u32(xing + 4, bigEndian: true),
      flags & 1 != 0, let frames = reader.u32(xing + 8, bigEndian: true)
    {
      // The LAME extension after the Xing fields gives the encoder's delay and padding, which a
      // gapless decoder removes.
      var lame = xing + 12
      if flags & 2 != 0 { lame += 4 }
      if flags & 4 != 0 { lame += 100 }
      if flags & 8 != 0 { lame += 4 }
      var trimmed = 0
      if reader.tag(lame) == "LAME" || reader.tag(lame) == "Lavc" || reader.tag(lame) == "Lavf",
        let first = reader.byte(lame + 21), let middle = reader.byte(lame + 22),
        let last = reader.byte(lame + 23)
      {
        trimmed = (Int(first) << 4 | Int(middle) >> 4) + (Int(middle & 0xF) << 8 | Int(last))
      }
      return max(0, Double(frames) * samplesPerFrame - Double(trimmed)) / rate
    }
    let bitrates: [Double] =
      version == 3
      ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
      : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
    let bitrateIndex = Int(b2 >> 4)
    guard bitrateIndex > 0, bitrateIndex < bitrates.count else { return nil }
    return Double(totalLength - offset) * 8 / (bitrates[bitrateIndex] * 1_000)
  }
}

/// Bounds-checked reads from the start of a file (and, for Ogg, its last 64 KiB).
private struct ByteReader {
  package let bytes: [UInt8]
  package let tail: [UInt8]?

  package var count: Int { bytes.count }

  package func byte(_ offset: Int) -> UInt8? { offset >= 0 && offset < bytes.count ? bytes[offset] : nil }

  package func tag(_ offset: Int) -> String? {
    guard offset >= 0, offset + 4 <= bytes.count else { return nil }
    return String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
  }

  package func u16(_ offset: Int) -> Int? {
    guard let low = byte(offset), let high = byte(offset + 1) else { return nil }
    return Int(low) | Int(high) << 8
  }

  package func u32(_ offset: Int, bigEndian: Bool = false) -> Int? {
    guard offset >= 0, offset + 4 <= bytes.count else { return nil }
    let values = bytes[offset..<(offset + 4)].map(Int.init)
    return bigEndian
      ? values[0] << 24 | values[1] << 16 | values[2] << 8 | values[3]
      : values[3] << 24 | values[2] << 16 | values[1] << 8 | values[0]
  }

  func synchsafe(_ offset: Int) -> Int? {
    guard offset >= 0, offset + 4 <= bytes.count else { return nil }
    return bytes[offset..<(offset + 4)].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
  }

  /// An IEEE 754 80-bit extended float (AIFF's sample rate).
  func extended(_ offset: Int) -> Double? {
    guard offset >= 0, offset + 10 <= bytes.count else { return nil }
    let exponent = (Int(bytes[offset] & 0x7F) << 8 | Int(bytes[offset + 1])) - 16_383 - 63
    let mantissa = bytes[(offset + 2)..<(offset + 10)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    guard (-1_100...1_100).contains(exponent) else { return nil }
    return Double(mantissa) * pow(2, Double(exponent))
  }

  /// The granule position of the last Ogg page.
  func lastOggGranule() -> Int? {
    let end = tail ?? bytes
    var index = end.count - 27
    while index >= 0 {
      if end[index] == 0x4F, end[index + 1] == 0x67, end[index + 2] == 0x67, end[index + 3] == 0x53 {
        let granule = end[(index + 6)..<(index + 14)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return granule == UInt64.max || granule > UInt64(Int.max) ? nil : Int(granule)
      }
      index -= 1
    }
    return nil
  }
}
