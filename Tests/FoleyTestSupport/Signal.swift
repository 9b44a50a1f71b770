import Foundation

/// One channel of mixed output, as floats in -1…1, with what tests measure on it.
public struct Signal: Sendable, Equatable {
  public var samples: [Float]

  public init(_ samples: [Float]) {
    self.samples = samples
  }

  /// One channel out of interleaved frames.
  public init(interleaved: [Float], channel: Int, of channels: Int = 2) {
    samples = stride(from: channel, to: interleaved.count, by: channels).map { interleaved[$0] }
  }

  public var count: Int { samples.count }
  public subscript(index: Int) -> Float { samples[index] }
  public subscript(range: Range<Int>) -> ArraySlice<Float> { samples[range] }

  /// The frames between the first and the last sample louder than `threshold`.
  public func audibleRange(threshold: Float = 0.002) -> Range<Int>? {
    guard let first = samples.firstIndex(where: { abs($0) > threshold }),
      let last = samples.lastIndex(where: { abs($0) > threshold })
    else { return nil }
    return first..<(last + 1)
  }

  public var peak: Float { samples.map(abs).max() ?? 0 }

  public func peak(in range: Range<Int>) -> Float { samples[range].map(abs).max() ?? 0 }

  /// The largest jump between neighbouring samples: a click shows up as a jump far above what the
  /// signal itself makes.
  public var largestStep: Float { largestStep(in: samples.indices) }

  /// The largest jump between neighbouring samples within `range`.
  public func largestStep(in range: Range<Int>) -> Float {
    let slice = samples[range]
    return zip(slice, slice.dropFirst()).map { abs($1 - $0) }.max() ?? 0
  }

  /// Frequency from rising zero crossings across `range`.
  public func frequency(in range: Range<Int>, sampleRate: Double = 48_000) -> Double {
    var crossings: [Int] = []
    var previous = samples[range].first ?? 0
    for index in range {
      if previous < 0 && samples[index] >= 0 { crossings.append(index) }
      previous = samples[index]
    }
    guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) * sampleRate / Double(last - first)
  }

  /// Root-mean-square level across `range`.
  public func rms(in range: Range<Int>) -> Double {
    guard !range.isEmpty else { return 0 }
    return (samples[range].reduce(0) { $0 + Double($1) * Double($1) } / Double(range.count)).squareRoot()
  }

  /// The runs of consecutive non-zero samples, ignoring gaps shorter than `minimumGap`.
  public func segments(minimumGap: Int = 480, threshold: Float = 0) -> [Range<Int>] {
    var segments: [Range<Int>] = []
    var start: Int?
    var lastAudible = -1
    for (index, sample) in samples.enumerated() where abs(sample) > threshold {
      if let begun = start, index - lastAudible > minimumGap {
        segments.append(begun..<(lastAudible + 1))
        start = index
      } else if start == nil {
        start = index
      }
      lastAudible = index
    }
    if let start { segments.append(start..<(lastAudible + 1)) }
    return segments
  }

  /// The power of the `frequency` Hz component across `range` (Goertzel), as the mean square of
  /// a sine of that frequency: a sine of amplitude `a` measures `a² / 2`.
  public func power(
    atFrequency frequency: Double, in range: Range<Int>, sampleRate: Double = 48_000
  ) -> Double {
    guard !range.isEmpty else { return 0 }
    let coefficient = 2 * cos(2 * .pi * frequency / sampleRate)
    var (previous, beforePrevious) = (0.0, 0.0)
    for index in range {
      let current = Double(samples[index]) + coefficient * previous - beforePrevious
      beforePrevious = previous
      previous = current
    }
    let magnitude =
      previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    return 2 * magnitude / Double(range.count * range.count)
  }

  /// The offset within `-window...window` at which `reference` best matches this signal starting
  /// at `start` (least squared difference), and that difference's largest sample.
  public func alignment(
    of reference: ArraySlice<Float>, at start: Int, within window: Int
  ) -> (lag: Int, error: Float) {
    var best = (lag: 0, sum: Double.infinity, error: Float.infinity)
    for lag in -window...window {
      let begin = start + lag
      guard begin >= 0, begin + reference.count <= samples.count else { continue }
      var sum = 0.0
      var worst: Float = 0
      for (offset, expected) in reference.enumerated() {
        let difference = samples[begin + offset] - expected
        sum += Double(difference * difference)
        worst = max(worst, abs(difference))
      }
      if sum < best.sum { best = (lag, sum, worst) }
    }
    return (best.lag, best.error)
  }
}
