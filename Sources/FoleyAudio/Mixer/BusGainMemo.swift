/// The applied buses' gain per category, worked out once per change of the buses.
///
/// Every placement of a moving positional voice, and every audibility check of the virtual-voice
/// pass, asks for its bus's gain: worked out each time, that walked the bus chain through three
/// dictionaries keyed by the category's name (hashing it at each level), and copied the bus
/// settings to do it. A game has a handful of categories, so a short list compared by name
/// answers at once. The core forgets it whenever the applied buses change. Audio queue only.
package final class BusGainMemo {
  private var entries: [(category: SoundCategory, gain: Double)] = []

  package init() {}

  /// The gain for `category`: remembered, or worked out by `resolve` and remembered.
  @inline(__always)
  package func gain(for category: SoundCategory, resolve: (SoundCategory) -> Double) -> Double {
    for entry in entries where entry.category == category { return entry.gain }
    let gain = resolve(category)
    if entries.count < 16 { entries.append((category, gain)) }
    return gain
  }

  /// The buses changed: every gain is worked out again when next asked.
  package func forget() { entries.removeAll(keepingCapacity: true) }
}
