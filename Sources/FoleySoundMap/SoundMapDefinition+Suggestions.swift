import FoleyCore

extension SoundMapParser {
  /// Every key an item may have, whatever its content.
  static let itemKeys: Set<String> = contentKeys.union(modifierKeys).union(["weight"])
    .union(optionKeys.values.joined())

  /// The key in `candidates` that `key` most likely misspells (``Suggestions/nearest(to:among:)``).
  static func nearest(to key: String, among candidates: Set<String>) -> String? {
    Suggestions.nearest(to: key, among: candidates)
  }
}
