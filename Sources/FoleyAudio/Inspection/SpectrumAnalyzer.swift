internal import CFoleyKissFFT
import Foundation

/// A Hann-windowed real FFT (kissfft, float) of a bus's latest frames, reduced to log-spaced
/// bands. Runs on the thread that asks for a snapshot, never on the mixing thread.
final class SpectrumAnalyzer {
  let size: Int
  let sampleRate: Int
  private let configuration: kiss_fftr_cfg
  private var window: [Float]
  private var input: [Float]
  private var output: [kiss_fft_cpx]
  /// Bands: their centre frequencies and the FFT bins each covers.
  let frequencies: [Double]
  private let bins: [ClosedRange<Int>]
  static let bandCount = 64

  init?(size: Int, sampleRate: Int) {
    guard size >= 64, size % 2 == 0, sampleRate > 0,
      let configuration = kiss_fftr_alloc(Int32(size), 0, nil, nil)
    else { return nil }
    self.size = size
    self.sampleRate = sampleRate
    self.configuration = configuration
    window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
    input = [Float](repeating: 0, count: size)
    output = [kiss_fft_cpx](repeating: kiss_fft_cpx(), count: size / 2 + 1)
    let nyquist = Double(sampleRate) / 2
    let low = 20.0
    let high = min(20_000, nyquist)
    let binHertz = Double(sampleRate) / Double(size)
    var frequencies: [Double] = []
    var bins: [ClosedRange<Int>] = []
    let ratio = pow(high / low, 1 / Double(Self.bandCount))
    for band in 0..<Self.bandCount {
      let from = low * pow(ratio, Double(band))
      let to = from * ratio
      frequencies.append((from * to).squareRoot())
      let first = max(1, Int((from / binHertz).rounded(.up)))
      let last = min(size / 2, Int((to / binHertz).rounded(.down)))
      // A band narrower than a bin reads the bin nearest its centre.
      let nearest = min(size / 2, max(1, Int(((from * to).squareRoot() / binHertz).rounded())))
      bins.append(first <= last ? first...last : nearest...nearest)
    }
    self.frequencies = frequencies
    self.bins = bins
  }

  deinit { free(UnsafeMutableRawPointer(configuration)) }

  /// The band levels of `samples` (``size`` of them), in dB where a full-scale sine reads 0.
  func levels(of samples: [Float]) -> [Double] {
    for index in 0..<size { input[index] = samples[index] * window[index] }
    input.withUnsafeBufferPointer { time in
      output.withUnsafeMutableBufferPointer { frequency in
        kiss_fftr(configuration, time.baseAddress, frequency.baseAddress)
      }
    }
    // A sine of amplitude A gives |X| = A * sum(window) / 2 at its bin; sum(Hann) = size / 2.
    let scale = 4 / Double(size)
    return bins.map { range in
      var largest: Float = 0
      for bin in range {
        let value = output[bin]
        largest = max(largest, value.r * value.r + value.i * value.i)
      }
      return AudioSnapshot.decibels(Double(largest).squareRoot() * scale)
    }
  }
}
