public import Foundation

/// A 16-bit stereo WAV of sines summed: `tones` as (hertz, amplitude). Two far-apart tones make
/// a filter's effect on each band readable by ``Signal/power(atFrequency:in:sampleRate:)``.
public func makeTonesWAV(_ tones: [(Double, Double)], duration: Double, sampleRate: Int = 48_000) -> Data {
  let frames = Int(duration * Double(sampleRate))
  var samples = [Int16](repeating: 0, count: frames * 2)
  for frame in 0..<frames {
    var value = 0.0
    for (frequency, amplitude) in tones {
      value += amplitude * sin(2 * .pi * frequency * Double(frame) / Double(sampleRate))
    }
    let sample = Int16(max(-32_767, min(32_767, value * 32_767)))
    samples[frame * 2] = sample
    samples[frame * 2 + 1] = sample
  }
  return makeWAV(samples: samples, sampleRate: sampleRate, channels: 2)
}

extension Signal {
  /// The level, in dB, of the `frequency` Hz component in each window of `window` frames from
  /// `start` to `end` (a window holding a whole number of its cycles reads it exactly).
  public func bandLevels(atFrequency frequency: Double, from start: Int, to end: Int, window: Int) -> [Double]
  {
    stride(from: start, to: end - window + 1, by: window).map {
      10 * log10(max(power(atFrequency: frequency, in: $0..<($0 + window)), 1e-20))
    }
  }

  /// The level, in dB, of each window of `window` frames from `start` to `end` (RMS).
  public func levels(from start: Int, to end: Int, window: Int) -> [Double] {
    stride(from: start, to: end - window + 1, by: window).map {
      20 * log10(max(rms(in: $0..<($0 + window)), 1e-10))
    }
  }
}

/// What a snapshot did to a two-tone bus (`makeTonesWAV([(200, …), (5_000, …)])`), applied at
/// frame `at` of `signal` with a 0.5 s tween and released at `back` with another.
public struct SnapshotMove {
  /// How far the low band (the bus's level) went down, in dB, with the snapshot fully in.
  public var lowDrop: Double
  /// How much further the high band went down than the low one, in dB.
  public var highBeyondLow: Double
  /// The low band's largest change between two 10 ms windows while the snapshot came in.
  public var largestStep: Double
  /// How long the low band took to move (more than 0.1 dB from either end), in seconds.
  public var seconds: Double
  /// Each band's distance, in dB, from where it was before, after the release.
  public var lowBack: Double
  public var highBack: Double

  public init(_ signal: Signal, at: Int, back: Int, drop expected: Double = 12) {
    func band(_ hertz: Double, _ range: Range<Int>) -> Double {
      10 * log10(signal.power(atFrequency: hertz, in: range))
    }
    let before = (at - 9_600)..<at
    let during = (at + 28_800)..<(at + 38_400)
    let after = (back + 33_600)..<(back + 43_200)
    lowDrop = band(200, before) - band(200, during)
    highBeyondLow = band(5_000, before) - band(5_000, during) - lowDrop
    let levels = signal.bandLevels(atFrequency: 200, from: at - 9_600, to: at + 38_400, window: 480)
    largestStep = zip(levels, levels.dropFirst()).map { abs($1 - $0) }.max() ?? .infinity
    let first = levels.first ?? 0
    let moving = levels.indices.filter {
      abs(levels[$0] - first) > 0.1 && abs(levels[$0] - (first - expected)) > 0.1
    }
    seconds = Double((moving.last ?? 0) - (moving.first ?? 0) + 1) * 0.01
    lowBack = band(200, after) - band(200, before)
    highBack = band(5_000, after) - band(5_000, before)
  }
}
