public import Foundation

/// A float WAV's samples, interleaved (what the offline renderer writes); empty without a data chunk.
public func floatSamples(ofWAV url: URL) throws -> [Float] {
  let bytes = try Data(contentsOf: url)
  var offset = 12
  while offset + 8 <= bytes.count {
    let size = bytes[(offset + 4)..<(offset + 8)].enumerated().reduce(0) {
      $0 | Int($1.element) << (8 * $1.offset)
    }
    if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) {
      return bytes[(offset + 8)..<min(bytes.count, offset + 8 + size)].withUnsafeBytes {
        Array($0.bindMemory(to: Float.self))
      }
    }
    offset += 8 + size + (size & 1)
  }
  return []
}
