internal import CFoleyCodecs

extension String {
  /// The text in a C buffer up to its first NUL.
  package init(nulTerminated buffer: [CChar]) {
    self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// A decoder's tag ("TITLE", "ARTIST", "ALBUM"), if the file has it.
package func sourceTag(_ key: String, of source: OpaquePointer) -> String? {
  var value = [CChar](repeating: 0, count: 1_025)
  guard foley_source_tag(source, key, &value, value.count) >= 0 else { return nil }
  return String(nulTerminated: value)
}
