extension Double {
  /// The value limited to `range`; `fallback` for NaN: how every number a game hands the engine
  /// is taken.
  package func clamped(to range: ClosedRange<Double>, or fallback: Double) -> Double {
    isNaN ? fallback : Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
  }
}
