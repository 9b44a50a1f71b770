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
