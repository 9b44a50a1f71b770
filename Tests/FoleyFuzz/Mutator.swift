import Foundation

/// SplitMix64: small, fast, and the same sequence for the same seed on every machine.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

/// Makes blob number `index` of a run from the seed corpus: the same run seed and index always
/// give the same bytes, so a worker can restart anywhere and a finding can be made again.
struct Mutator {
  let seeds: [Data]
  let runSeed: UInt64

  /// Values that break parsers: sizes of zero and of everything, sign bits, off-by-ones.
  private static let interesting32: [UInt32] = [
    0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE,
    0xFFFF_FFFF,
  ]

  func blob(_ index: Int) -> (seed: Int, bytes: Data) {
    var random = SplitMix64(seed: runSeed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
    let seedIndex = Int.random(in: 0..<seeds.count, using: &random)
    var bytes = [UInt8](seeds[seedIndex])
    for _ in 0..<Int.random(in: 1...8, using: &random) {
      mutate(&bytes, using: &random)
    }
    // Mostly keep Ogg pages' checksums right, so the mutations reach the codecs behind libogg.
    if Int.random(in: 0..<4, using: &random) > 0 { OggPages.fixChecksums(&bytes) }
    return (seedIndex, Data(bytes))
  }

  private func offset(in bytes: [UInt8], using random: inout SplitMix64) -> Int {
    guard !bytes.isEmpty else { return 0 }
    // Headers are where the parsing is: most mutations land in the first 512 bytes.
    let limit = Bool.random(using: &random) || bytes.count <= 512 ? bytes.count : 512
    return Int.random(in: 0..<limit, using: &random)
  }

  private func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
    switch Int.random(in: 0..<8, using: &random) {
    case 0 where !bytes.isEmpty:
      bytes[offset(in: bytes, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
    case 1 where !bytes.isEmpty:
      bytes[offset(in: bytes, using: &random)] = [
        0, 0xFF, 0x7F, 0x80, UInt8.random(in: 0...255, using: &random),
      ]
      .randomElement(using: &random)!
    case 2 where bytes.count >= 4:
      let at = min(offset(in: bytes, using: &random), bytes.count - 4)
      var value = Self.interesting32.randomElement(using: &random)!
      if Bool.random(using: &random) { value = value.byteSwapped }
      withUnsafeBytes(of: value) { for (index, byte) in $0.enumerated() { bytes[at + index] = byte } }
    case 3 where bytes.count >= 2:
      bytes.removeSubrange(Int.random(in: 1..<bytes.count, using: &random)...)
    case 4 where bytes.count >= 2:
      let start = offset(in: bytes, using: &random)
      let end = min(bytes.count, start + Int.random(in: 1...256, using: &random))
      bytes.removeSubrange(start..<end)
    case 5 where !bytes.isEmpty:
      let start = offset(in: bytes, using: &random)
      let end = min(bytes.count, start + Int.random(in: 1...256, using: &random))
      bytes.insert(contentsOf: bytes[start..<end], at: offset(in: bytes, using: &random))
    case 6:
      let other = [UInt8](seeds.randomElement(using: &random)!)
      guard !other.isEmpty, !bytes.isEmpty else { return }
      let from = Int.random(in: 0..<other.count, using: &random)
      let length = min(other.count - from, Int.random(in: 1...1_024, using: &random))
      let at = offset(in: bytes, using: &random)
      bytes.replaceSubrange(at..<min(bytes.count, at + length), with: other[from..<(from + length)])
    default:
      if !bytes.isEmpty {
        bytes[offset(in: bytes, using: &random)] &+= UInt8.random(in: 1...3, using: &random)
      }
    }
  }
}

/// Ogg page checksums (CRC-32, polynomial 0x04C11DB7, unreflected, computed with the field zeroed).
enum OggPages {
  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index) << 24
    for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
    return value
  }

  static func fixChecksums(_ bytes: inout [UInt8]) {
    var position = 0
    while position + 27 <= bytes.count, bytes[position..<(position + 4)].elementsEqual("OggS".utf8) {
      let segments = Int(bytes[position + 26])
      guard position + 27 + segments <= bytes.count else { return }
      let body = bytes[(position + 27)..<(position + 27 + segments)].reduce(0) { $0 + Int($1) }
      let end = position + 27 + segments + body
      guard end <= bytes.count else { return }
      for index in 22..<26 { bytes[position + index] = 0 }
      var crc: UInt32 = 0
      for byte in bytes[position..<end] { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
      withUnsafeBytes(of: crc.littleEndian) {
        for (index, byte) in $0.enumerated() { bytes[position + 22 + index] = byte }
      }
      position = end
    }
  }
}
