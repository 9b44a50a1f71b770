import Foundation

/// The parser's checks of single values: numbers within limits, ranges, flags and unknown keys,
/// each problem recorded with its JSON path.
extension SoundMapParser {
  mutating func number(_ value: Any?, at path: String, in limits: ClosedRange<Double>) -> Double? {
    guard let value else { return nil }
    guard let number = Self.number(value), number.isFinite else {
      errors.append("\(path): must be a number")
      return nil
    }
    guard limits.contains(number) else {
      errors.append(
        "\(path): \(Self.format(number)) is outside \(Self.format(limits.lowerBound))...\(Self.format(limits.upperBound))"
      )
      return nil
    }
    return number
  }

  /// A number, or `[min, max]`.
  mutating func range(
    _ value: Any?, at path: String, in limits: ClosedRange<Double>
  ) -> ClosedRange<Double>? {
    guard let value else { return nil }
    if let pair = value as? [Any] {
      guard pair.count == 2, let low = number(pair[0], at: "\(path)[0]", in: limits),
        let high = number(pair[1], at: "\(path)[1]", in: limits)
      else {
        if pair.count != 2 { errors.append("\(path): a range is [min, max]") }
        return nil
      }
      guard low <= high else {
        errors.append("\(path): [\(Self.format(low)), \(Self.format(high))] runs backwards")
        return nil
      }
      return low...high
    }
    return number(value, at: path, in: limits).map { $0...$0 }
  }

  mutating func flag(_ value: Any?, at path: String) -> Bool? {
    guard let value else { return nil }
    guard Self.isBoolean(value), let flag = value as? Bool else {
      errors.append("\(path): must be true or false")
      return nil
    }
    return flag
  }

  mutating func unknownKeys(in object: [String: Any], allowed: Set<String>, at path: String) {
    for key in object.keys.sorted() where !allowed.contains(key) {
      let hint = Self.nearest(to: key, among: allowed).map { " (did you mean \($0)?)" } ?? ""
      errors.append("\(path.isEmpty ? "" : "\(path).")\(key): unknown key\(hint)")
    }
  }

  /// A JSON number (not a boolean, which Foundation also hands over as an `NSNumber`).
  package static func number(_ value: Any) -> Double? {
    guard !isBoolean(value), let number = value as? NSNumber else { return nil }
    return number.doubleValue
  }

  /// Whether JSONSerialization made `value` from `true` or `false` (its boolean class; `is Bool`
  /// is also true of the numbers 0 and 1).
  package static func isBoolean(_ value: Any) -> Bool {
    type(of: value) == Bool.self || String(describing: type(of: value)).contains("Boolean")
  }

  static func format(_ number: Double) -> String {
    number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
  }

  static func describe(_ error: any Error) -> String {
    let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
    return text ?? error.localizedDescription
  }
}
