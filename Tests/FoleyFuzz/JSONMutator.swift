import Foundation

/// Structure-aware mutations of JSON seeds (sound maps): most byte-level mutations only break the
/// syntax, which the parser refuses at once; these keep it valid and attack the values instead —
/// huge, negative, tiny and fractional numbers, booleans and strings where numbers go, empty and
/// deep containers, control characters, unknown keys, removed keys.
struct JSONMutator {
  let seeds: [Data]
  let runSeed: UInt64

  func blob(_ index: Int) -> Data {
    var random = SplitMix64(seed: runSeed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
    let seed = seeds[Int.random(in: 0..<seeds.count, using: &random)]
    guard var root = try? JSONSerialization.jsonObject(with: seed) else { return seed }
    for _ in 0..<Int.random(in: 1...6, using: &random) { root = mutate(root, depth: 0, using: &random) }
    // A mutated top level may be a bare value: written as a fragment (JSONSerialization traps on
    // one otherwise).
    return (try? JSONSerialization.data(withJSONObject: root, options: [.fragmentsAllowed])) ?? seed
  }

  /// Values that break JSON readers. (A computed list: `[Any]` is not `Sendable`.)
  private static var values: [Any] {
    [
      1e308, -1e308, 1e-308, -1, 0, 0.5, 1e19, -1e19, 4_294_967_296, true, false, "", "\u{0}", "a\u{1}b",
      "../../etc/passwd", "/dev/zero", String(repeating: "x", count: 4_096), [Any](), [String: Any](),
      NSNull(),
      [1, 2, 3], [[[[[[["deep"]]]]]]],
    ]
  }

  private func mutate(_ value: Any, depth: Int, using random: inout SplitMix64) -> Any {
    if var object = value as? [String: Any], !object.isEmpty, depth < 12 {
      let key = object.keys.sorted()[Int.random(in: 0..<object.count, using: &random)]
      switch Int.random(in: 0..<6, using: &random) {
      case 0: object[key] = nil
      case 1:
        object["plya\(Int.random(in: 0..<9, using: &random))"] = Self.values.randomElement(using: &random)!
      case 2: object[key] = Self.values.randomElement(using: &random)!
      default: object[key] = mutate(object[key]!, depth: depth + 1, using: &random)
      }
      return object
    }
    if var array = value as? [Any], !array.isEmpty, depth < 12 {
      let at = Int.random(in: 0..<array.count, using: &random)
      switch Int.random(in: 0..<4, using: &random) {
      case 0: array.remove(at: at)
      case 1: array.append(array[at])
      default: array[at] = mutate(array[at], depth: depth + 1, using: &random)
      }
      return array
    }
    return Self.values.randomElement(using: &random)!
  }
}
