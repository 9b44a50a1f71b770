/// A value per category, worked out once and then answered from a short list: the applied
/// buses' gain per category (forgotten whenever the applied buses change), and each category's
/// bus index (given out once, never changed).
///
/// Every placement of a moving positional voice, and every audibility check of the virtual-voice
/// pass, asks for its bus's gain: worked out each time, that walked the bus chain through three
/// dictionaries keyed by the category's name (hashing it at each level), and copied the bus
/// settings to do it. Every voice that starts asks for its bus's index, which hashed the name in a
/// dictionary under a lock, at every trigger. A game has a handful of
/// categories, so a short list compared by name answers at once. Audio queue only.
final class CategoryMemo<Value> {
  @exclusivity(unchecked) private var entries: [(category: SoundCategory, value: Value)] = []

  package init() {}

  /// The value for `category`: remembered, or worked out by `resolve` and remembered (the first
  /// 16 categories; any more are worked out each time).
  @inline(__always)
  package func value(for category: SoundCategory, resolve: (SoundCategory) -> Value) -> Value {
    for entry in entries where entry.category == category { return entry.value }
    let value = resolve(category)
    if entries.count < 16 { entries.append((category, value)) }
    return value
  }

  /// Every value is worked out again when next asked.
  func forget() { entries.removeAll(keepingCapacity: true) }
}
