/// The sample encodings Foley mixes, records and converts: 16-bit integers or 32-bit floats, in
/// the machine's byte order.
///
/// ```swift
/// let format: SampleFormat = .float32
/// print(format.bytesPerSample)   // 4
/// ```
public enum SampleFormat: String, Sendable, Hashable, Codable, CustomStringConvertible {
  case signed16 = "s16"
  case float32 = "f32"

  public var bytesPerSample: Int { self == .float32 ? 4 : 2 }

  public var description: String { rawValue }
}
