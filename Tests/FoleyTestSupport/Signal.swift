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
}
