import FoleyAudio

/// An event's `caption`, checked as strictly as the rest of the map.
extension SoundMapParser {
  /// A caption: its text, or an object with `text` and `category` (effect, speech, music, critical).
  mutating func caption(_ value: Any, at path: String) -> Caption? {
    if let text = value as? String {
      guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, text.count <= 200 else {
        errors.append("\(path): must be the caption's words (1 to 200 characters)")
        return nil
      }
      return Caption(text)
    }
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be the caption's words, or an object with \"text\" and \"category\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["text", "category"], at: path)
    var category = Caption.Category.effect
    if let name = object["category"] {
      guard let named = (name as? String).flatMap(Caption.Category.init(rawValue:)) else {
        errors.append(
          "\(path).category: must be one of \(Caption.Category.allCases.map(\.rawValue).joined(separator: ", "))"
        )
        return nil
      }
      category = named
    }
    guard let text = object["text"] else {
      errors.append("\(path).text: missing")
      return nil
    }
    return self.caption(text, at: "\(path).text").map { Caption($0.text, category: category) }
  }
}
