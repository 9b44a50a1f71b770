import Foundation

/// A sound map's JSON text as the designer wrote it, edited one value at a time (an event's entry,
/// a bus's level): the value's bytes are replaced and every other byte of the file is kept, so a
/// save changes only what was edited (their layout, key order and spacing stay the designer's).
struct SoundMapDocument {
  private(set) var text: [UInt8]

  init(_ data: Data) { text = Array(data) }

  var data: Data { Data(text) }

  /// Where a member's value is: its bytes, and the indentation of the line its key is on.
  struct EntrySpan {
    var value: Range<Int>
    var indentation: Int
  }

  /// The members of the object at `path` (keys from the top), by name, and where the object
  /// ends; nil when the text is not an object or a step along the path is missing or not an
  /// object (the parser reports that).
  func members(at path: [String]) -> (members: [String: EntrySpan], start: Int, end: Int)? {
    var scanner = Scanner(text)
    var start = scanner.skipSpace(from: 0)
    for key in path {
      guard let object = scanner.members(ofObjectAt: start),
        let member = object.members.first(where: { $0.key == key })
      else { return nil }
      start = member.value.lowerBound
    }
    guard let object = scanner.members(ofObjectAt: start) else { return nil }
    var spans: [String: EntrySpan] = [:]
    let indentations = indentations(of: object.members.map(\.keyStart))
    for (member, indentation) in zip(object.members, indentations) {
      spans[member.key] = EntrySpan(value: member.value, indentation: indentation)
    }
    return (spans, start, object.end)
  }

  /// The text with the value at `path` set to `value`: replaced where it is, or added at the end
  /// of its object, with the objects leading to it made where they are missing. Objects are
  /// written in ``SoundMapDocument/format(_:indentation:)``'s layout. Nil if a step along the
  /// path is there but not an object.
  func setting(_ path: [String], to value: Any) -> SoundMapDocument? {
    guard !path.isEmpty else { return nil }
    // The deepest object along the path that exists, and what is missing below it.
    var depth = path.count - 1
    while depth > 0, members(at: Array(path[..<depth])) == nil { depth -= 1 }
    guard let (spans, start, end) = members(at: Array(path[..<depth])) else { return nil }
    var copy = self
    let key = path[depth]
    if depth == path.count - 1, let span = spans[key] {
      copy.text.replaceSubrange(
        span.value, with: Array(Self.written(value, indentation: span.indentation).utf8))
      return copy
    }
    guard spans[key] == nil else { return nil }  // there, but not an object to go into
    var nested = value
    for inner in path[(depth + 1)...].reversed() { nested = [inner: nested] }
    var head = end - 1  // the closing brace; back over the space before it
    while head > start + 1, Self.isSpace(text[head - 1]) { head -= 1 }
    if !text[start..<end].contains(UInt8(ascii: "\n")) {
      // An object written on one line stays on one: `{ "a": 1, "new": 2 }`.
      let member = "\(spans.isEmpty ? " " : ", ")\(Self.quoted(key)): \(Self.inline(nested)) "
      copy.text.replaceSubrange(head..<(end - 1), with: Array(member.utf8))
      return copy
    }
    // A new member goes last, after a comma if the object has members, on a line of its own.
    let indentation = spans.values.map(\.indentation).min() ?? (indentation(of: start) + 2)
    let pad = String(repeating: " ", count: indentation)
    let separator = spans.isEmpty ? "" : ","
    let closing = "\n" + String(repeating: " ", count: max(0, indentation - 2))
    let member =
      "\(separator)\n\(pad)\(Self.quoted(key)): \(Self.written(nested, indentation: indentation))\(closing)"
    copy.text.replaceSubrange(head..<(end - 1), with: Array(member.utf8))
    return copy
  }

  /// The text with `name`'s entry replaced by `entry`, or added at the end of `events`.
  func replacing(event name: String, with entry: [String: Any]) -> SoundMapDocument? {
    guard members(at: ["events"]) != nil else { return nil }
    return setting(["events", name], to: entry)
  }

  private static func written(_ value: Any, indentation: Int) -> String {
    (value as? [String: Any]).map { format($0, indentation: indentation) } ?? inline(value)
  }

  private func indentation(of index: Int) -> Int { indentations(of: [index])[0] }

  /// The indentation of the lines `indices` (ascending) are on, in one pass back over the text: a
  /// minified map's keys all on one line are not each searched back to its start.
  private func indentations(of indices: [Int]) -> [Int] {
    var lineStart = 0
    var scanned = 0
    return indices.map { index in
      var at = index
      while at > scanned {
        if text[at - 1] == UInt8(ascii: "\n") {
          lineStart = at
          break
        }
        at -= 1
      }
      scanned = index
      var count = 0
      while lineStart + count < index, text[lineStart + count] == UInt8(ascii: " ") { count += 1 }
      return count
    }
  }

  // MARK: - Writing an entry

  /// The order an entry's keys are written in: what it plays, then how, then its limits and
  /// routing; keys not listed follow in alphabetical order.
  static let keyOrder = [
    "play", "file", "random", "sequence", "switch", "layer", "blend", "stop", "parameter", "default", "cases",
    "weight", "mode", "resetAfter", "avoidRepeat", "shuffle", "fadeOut", "volumeDb", "pitchSemitones",
    "delay",
    "loop", "cooldown", "maxInstances", "steal", "priority", "category", "positional", "normalize",
    "critical",
    "caption", "rumble", "modulators", "quantize",
  ]

  static func orderedKeys(_ object: [String: Any]) -> [String] {
    object.keys.sorted { a, b in
      let (i, j) = (keyOrder.firstIndex(of: a) ?? Int.max, keyOrder.firstIndex(of: b) ?? Int.max)
      return i != j ? i < j : a < b
    }
  }

  /// An entry as the repository's maps are written: on one line if it is short, otherwise one key
  /// a line at `indentation + 2` with each value on one line.
  static func format(_ entry: [String: Any], indentation: Int) -> String {
    let line = inline(entry)
    if line.count + indentation <= 100 { return line }
    let pad = String(repeating: " ", count: indentation + 2)
    let members = orderedKeys(entry).map { "\(pad)\(quoted($0)): \(inline(entry[$0]!))" }
    return "{\n" + members.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indentation) + "}"
  }

  /// A value on one line: `{ "key": value, … }`, `[a, b]`, numbers as short as they read.
  static func inline(_ value: Any) -> String {
    switch value {
    case let object as [String: Any]:
      if object.isEmpty { return "{}" }
      return "{ "
        + orderedKeys(object).map { "\(quoted($0)): \(inline(object[$0]!))" }.joined(separator: ", ") + " }"
    case let array as [Any]:
      return "[" + array.map(inline).joined(separator: ", ") + "]"
    case let string as String:
      return quoted(string)
    case let number as NSNumber:
      // JSONSerialization's booleans are NSNumbers of C type `char`; its numbers are never that.
      if String(cString: number.objCType) == "c" { return number.boolValue ? "true" : "false" }
      let double = number.doubleValue
      if double.rounded() == double, abs(double) < 1e15 { return String(Int64(double)) }
      return "\(double)"
    case is NSNull:
      return "null"
    default:
      return "null"
    }
  }

  static func quoted(_ string: String) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: string, options: [.fragmentsAllowed])) ?? Data()
    return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
  }

  static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  /// Every key that stands twice in one object, anywhere in the text, as the parser's errors
  /// (`events["hit"]: the key "play" appears twice`). The text must be valid JSON; one pass, each
  /// object's members compared by a set.
  func duplicateKeys() -> [String] {
    var scanner = Scanner(text)
    var found: [String] = []
    func visit(_ start: Int, path: String, depth: Int) {
      guard depth < 512, start < text.count else { return }
      switch text[start] {
      case UInt8(ascii: "{"):
        guard let object = scanner.members(ofObjectAt: start) else { return }
        var seen = Set<String>()
        var reported = Set<String>()
        for member in object.members {
          let here = path.isEmpty ? member.key : "\(path)[\(Self.quoted(member.key))]"
          if !seen.insert(member.key).inserted {
            if reported.insert(member.key).inserted {
              found.append(
                "\(path.isEmpty ? "the map" : path): the key \(Self.quoted(member.key)) appears more than once"
              )
            }
            continue
          }
          visit(member.value.lowerBound, path: here, depth: depth + 1)
        }
      case UInt8(ascii: "["):
        var at = scanner.skipSpace(from: start + 1)
        var index = 0
        while at < text.count, text[at] != UInt8(ascii: "]") {
          visit(at, path: "\(path)[\(index)]", depth: depth + 1)
          guard let end = scanner.valueEnd(from: at) else { return }
          at = scanner.skipSpace(from: end)
          if at < text.count, text[at] == UInt8(ascii: ",") { at = scanner.skipSpace(from: at + 1) }
          index += 1
        }
      default: return
      }
    }
    visit(scanner.skipSpace(from: 0), path: "", depth: 0)
    return found
  }

  /// Finds the members of JSON objects in UTF-8 text, without building values.
  private struct Scanner {
    let text: [UInt8]
    init(_ text: [UInt8]) { self.text = text }

    func skipSpace(from index: Int) -> Int {
      var index = index
      while index < text.count, SoundMapDocument.isSpace(text[index]) { index += 1 }
      return index
    }

    /// The end of the string that starts at `index` (its opening quote), past its closing quote.
    func stringEnd(from index: Int) -> Int? {
      var index = index + 1
      while index < text.count {
        switch text[index] {
        case UInt8(ascii: "\\"): index += 2
        case UInt8(ascii: "\""): return index + 1
        default: index += 1
        }
      }
      return nil
    }

    /// The end of the value that starts at `index`.
    func valueEnd(from index: Int) -> Int? {
      guard index < text.count else { return nil }
      switch text[index] {
      case UInt8(ascii: "\""): return stringEnd(from: index)
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        var depth = 0
        var at = index
        while at < text.count {
          switch text[at] {
          case UInt8(ascii: "\""):
            guard let end = stringEnd(from: at) else { return nil }
            at = end
            continue
          case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
          case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            if depth == 0 { return at + 1 }
          default: break
          }
          at += 1
        }
        return nil
      default:
        var at = index
        while at < text.count, !SoundMapDocument.isSpace(text[at]),
          ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(text[at])
        {
          at += 1
        }
        return at
      }
    }

    struct Member {
      var key: String
      var keyStart: Int
      var value: Range<Int>
    }

    /// The members of the object whose `{` is at `index`, and the index past its `}`.
    mutating func members(ofObjectAt index: Int) -> (members: [Member], end: Int)? {
      guard index < text.count, text[index] == UInt8(ascii: "{") else { return nil }
      var members: [Member] = []
      var at = skipSpace(from: index + 1)
      if at < text.count, text[at] == UInt8(ascii: "}") { return (members, at + 1) }
      while at < text.count {
        guard text[at] == UInt8(ascii: "\""), let keyEnd = stringEnd(from: at),
          let key = try? JSONSerialization.jsonObject(
            with: Data(text[at..<keyEnd]), options: [.fragmentsAllowed]) as? String
        else { return nil }
        var colon = skipSpace(from: keyEnd)
        guard colon < text.count, text[colon] == UInt8(ascii: ":") else { return nil }
        colon = skipSpace(from: colon + 1)
        guard let valueEnd = valueEnd(from: colon) else { return nil }
        members.append(Member(key: key, keyStart: at, value: colon..<valueEnd))
        at = skipSpace(from: valueEnd)
        guard at < text.count else { return nil }
        if text[at] == UInt8(ascii: "}") { return (members, at + 1) }
        guard text[at] == UInt8(ascii: ",") else { return nil }
        at = skipSpace(from: at + 1)
      }
      return nil
    }
  }
}
