import Foundation

/// The map's switch containers: one case of items per value of a game parameter the post names.
extension SoundMapParser {
  mutating func switchOn(_ value: Any?, at path: String) -> SoundItem.Kind? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"parameter\" and \"cases\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["parameter", "default", "cases"], at: path)
    guard let parameter = object["parameter"] as? String, !parameter.isEmpty else {
      errors.append("\(path).parameter: must be a parameter name")
      return nil
    }
    guard let cases = object["cases"] as? [String: Any], !cases.isEmpty else {
      errors.append("\(path).cases: must be a non-empty object of values")
      return nil
    }
    var items: [String: SoundItem] = [:]
    for value in cases.keys.sorted() {
      if let made = item(cases[value]!, at: "\(path).cases.\(value)") { items[value] = made }
    }
    let fallback = object["default"].flatMap { $0 as? String }
    if object["default"] != nil, fallback == nil {
      errors.append("\(path).default: must be one of the cases")
    }
    if let fallback, cases[fallback] == nil {
      errors.append("\(path).default: \"\(fallback)\" is not one of the cases")
    }
    return items.count == cases.count
      ? .switchOn(parameter: parameter, cases: items, fallback: fallback) : nil
  }
}

extension SoundMapDefinition {
  /// The game parameters the switches read, each with the values its cases name (sorted).
  var switchParameters: [String: [String]] {
    var found: [String: Set<String>] = [:]
    for entry in events.values {
      guard case .play(let item) = entry.effect else { continue }
      item.forEachItem {
        if case .switchOn(let parameter, let cases, _) = $0.kind {
          found[parameter, default: []].formUnion(cases.keys)
        }
      }
    }
    return found.mapValues { $0.sorted() }
  }
}
