package import Foundation

/// Where a JSON syntax error is: Foundation's parser names a byte offset ("around character
/// 1205"); a person editing the file wants its line and column.
package enum JSONSyntax {
  /// `error` (from `JSONSerialization` reading `data`) with its place: "12:5 (line 12, column 5):
  /// Invalid value around character 1205." The column counts characters, from 1; without an
  /// offset in the error, its text alone.
  package static func describe(_ error: any Error, in data: Data) -> String {
    let text =
      (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
    guard let offset = offset(in: text), let (line, column) = place(ofByte: offset, in: data) else {
      return text
    }
    return "\(line):\(column) (line \(line), column \(column)): \(text)"
  }

  /// The number after "character " in Foundation's message.
  static func offset(in text: String) -> Int? {
    guard let range = text.range(of: "character ") else { return nil }
    let digits = text[range.upperBound...].prefix { $0.isNumber }
    return Int(digits)
  }

  /// The line and column (both from 1) of byte `offset` of `data`, a byte past the end being the
  /// end's place; nil when the offset is beyond that.
  package static func place(ofByte offset: Int, in data: Data) -> (line: Int, column: Int)? {
    guard offset >= 0, offset <= data.count else { return nil }
    let before = data.prefix(offset)
    let newline = UInt8(ascii: "\n")
    let line = before.reduce(1) { $1 == newline ? $0 + 1 : $0 }
    let lineStart = before.lastIndex(of: newline).map { $0 + 1 } ?? before.startIndex
    let prefix = before[lineStart...]
    // Characters, not bytes (an accented letter is one column); bytes if it is not UTF-8.
    let column = (String(bytes: prefix, encoding: .utf8)?.count ?? prefix.count) + 1
    return (line, column)
  }
}
