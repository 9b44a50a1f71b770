import FoleyScene
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
  /// What a post of each event reads: its name, and the parameters its switches read, each with
  /// the values their cases name (the music's two events: the states, and the intensity
  /// parameters, which take any number).
  var auditionFacts: AuditionFacts {
    var facts = AuditionFacts()
    for (name, entry) in events {
      var reads: [String: Set<String>] = [:]
      if case .play(let item) = entry.effect {
        item.forEachItem {
          if case .switchOn(let parameter, let cases, _) = $0.kind {
            reads[parameter, default: []].formUnion(cases.keys)
          }
        }
      }
      facts.events[name] = reads
    }
    if let music {
      facts.events["music.state"] = ["state": Set(music.states.keys)]
      facts.events["music.intensity"] = Dictionary(
        music.tracks.values.compactMap(\.intensity).map { ($0, AuditionFacts.anyNumber) },
        uniquingKeysWith: { first, _ in first })
    }
    return facts
  }
}

/// What an audition is checked against, kept where any thread may read it: each event the map
/// posts, with the parameters a post of it reads and the values it tells apart.
struct AuditionFacts: Sendable {
  /// The values of a parameter that takes any number (the music's intensity).
  static let anyNumber: Set<String> = []
  /// The events the music answers, whatever the map's events are.
  static let musicEvents: Set<String> = ["music.state", "music.intensity"]
  var events: [String: [String: Set<String>]] = [:]

  /// The game parameters the switches read, each with the values its cases name (sorted).
  var switchParameters: [String: [String]] {
    var found: [String: Set<String>] = [:]
    for (name, reads) in events where !Self.musicEvents.contains(name) {
      for (parameter, values) in reads { found[parameter, default: []].formUnion(values) }
    }
    return found.mapValues { $0.sorted() }
  }

  /// Why posting `name` with `parameters` would not play what was asked, or nil.
  func problem(_ name: String, parameters: [String: EventValue]) -> SoundMapAuditionError? {
    guard let reads = events[name] else {
      return .unknownEvent(name, suggestion: SoundMapParser.nearest(to: name, among: Set(events.keys)))
    }
    for (parameter, value) in parameters.sorted(by: { $0.key < $1.key }) {
      guard let values = reads[parameter] else {
        return .unknownParameter(
          parameter, event: name, reads: reads.keys.sorted(),
          suggestion: SoundMapParser.nearest(to: parameter, among: Set(reads.keys)))
      }
      let text = value.description
      if values == Self.anyNumber {
        guard let number = value.number, number.isFinite else {
          return .unknownValue(text, parameter: parameter, event: name, cases: [], suggestion: nil)
        }
        continue
      }
      if !values.contains(text) {
        return .unknownValue(
          text, parameter: parameter, event: name, cases: values.sorted(),
          suggestion: SoundMapParser.nearest(to: text, among: values))
      }
    }
    return nil
  }
}
