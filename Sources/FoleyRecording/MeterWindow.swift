import Foundation

/// Power levels of one channel, in dBFS.
struct ChannelMeter: Sendable {
  var average = -160.0
  var peak = -160.0
}

/// Sums for the meter's current window (50 ms).
struct MeterWindow {
  let frames: Int
  var framesSeen = 0
  private var sumOfSquares: [Double]
  private var peaks: [Double]

  init(channels: Int, frames: Int) {
    self.frames = max(1, frames)
    sumOfSquares = Array(repeating: 0, count: channels)
    peaks = Array(repeating: 0, count: channels)
  }

  mutating func add(_ sample: Double, channel: Int) {
    sumOfSquares[channel] += sample * sample
    peaks[channel] = max(peaks[channel], abs(sample))
  }

  mutating func takeLevels() -> [ChannelMeter] {
    defer {
      framesSeen = 0
      for index in sumOfSquares.indices {
        sumOfSquares[index] = 0
        peaks[index] = 0
      }
    }
    return sumOfSquares.indices.map { index in
      ChannelMeter(
        average: decibels((sumOfSquares[index] / Double(framesSeen)).squareRoot()),
        peak: decibels(peaks[index]))
    }
  }

  private func decibels(_ level: Double) -> Double {
    level > 0 ? min(0, max(-160, 20 * log10(level))) : -160
  }
}
