/// A small, fast, seedable random generator (SplitMix64), so that randomised actions such as
/// `Action.wait(forDuration:withRange:)` replay identically for the same seed.
///
/// ```swift
/// let scene = Scene(size: Size(width: 640, height: 480), seed: 42)
/// var generator = SeededRandomGenerator(seed: 7)
/// let roll = Int.random(in: 1...6, using: &generator)
/// ```
public struct SeededRandomGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) {
    state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }
}
