/// A look-ahead peak limiter for interleaved float frames: no sample leaves above the ceiling,
/// gain changes are smooth, and below the ceiling it is exactly transparent.
///
/// How it guarantees the ceiling: each input frame asks for the gain that would bring its peak to
/// the ceiling (1 when it is already below). A sliding minimum holds the smallest request of the
/// last `window` frames, a release stage lets the gain recover slowly (never above the hold), and
/// a moving average over `window` frames smooths the attack. The output is the input delayed by
/// `window - 1` frames, so every frame's own request lies inside the window each averaged value
/// came from: the averaged gain is at most that request. When no request in the window is below 1
/// the gain is exactly 1 and the output samples equal the input samples.
///
/// Runs on the mixing thread: everything is allocated up front, nothing locks.
///
/// Invariant behind `@unchecked Sendable`: used by one thread at a time (SDL's audio thread, or
/// the embedded mixer under its lock); the owner frees it only after mixing has stopped.
package final class LookAheadLimiter: @unchecked Sendable {
  package let channels: Int
  /// Frames of look-ahead; the output is late by `window - 1` frames.
  package let window: Int
  package let ceiling: Float
  /// Per frame, the gain recovers this fraction of its distance to 1 (in double precision: near 1
  /// the step is far below a float's resolution, and a float release would stall short of 1).
  package let releaseCoefficient: Double

  private let delay: UnsafeMutablePointer<Float>
  private let released: UnsafeMutablePointer<Float>
  private let dequeIndices: UnsafeMutablePointer<Int>
  private let dequeValues: UnsafeMutablePointer<Float>
  private var dequeStart = 0
  private var dequeCount = 0
  private var position = 0
  private var releasedSum: Double
  private var releasedBelowOne = 0
  private var lastReleased: Double = 1
  private var framesSinceSound: Int
  /// The smallest gain applied since the owner last took it.
  private(set) var smallestGain: Float = 1

  package init(channels: Int, window: Int, ceiling: Float, releaseCoefficient: Double) {
    self.channels = channels
    self.window = max(1, window)
    self.ceiling = ceiling
    self.releaseCoefficient = releaseCoefficient
    delay = .allocate(capacity: self.window * channels)
    delay.initialize(repeating: 0, count: self.window * channels)
    released = .allocate(capacity: self.window)
    released.initialize(repeating: 1, count: self.window)
    dequeIndices = .allocate(capacity: self.window + 1)
    dequeValues = .allocate(capacity: self.window + 1)
    releasedSum = Double(self.window)
    framesSinceSound = self.window
  }

  deinit {
    delay.deallocate()
    released.deallocate()
    dequeIndices.deallocate()
    dequeValues.deallocate()
  }

  /// Hands back the smallest gain applied since the last call, and starts over.
  package func takeSmallestGain() -> Float {
    defer { smallestGain = 1 }
    return smallestGain
  }

  /// Limits `frames` interleaved frames in place.
  package func process(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    // At rest (silence in, silence in the delay line, no gain reduction anywhere) the output is
    // the silence that came in; skipping the work keeps an idle engine as cheap as raw SDL_mixer.
    if isAtRest, isSilent(samples, count: frames * channels) { return }
    let capacity = window + 1
    for frame in 0..<frames {
      let input = samples + frame * channels
      var peak: Float = 0
      for channel in 0..<channels { peak = max(peak, abs(input[channel])) }
      framesSinceSound = peak == 0 ? min(framesSinceSound + 1, window) : 0
      // The gain this frame asks for, a hair under the exact ratio so rounding cannot overshoot.
      let request: Float = peak > ceiling ? ceiling / peak * (1 - 1.0 / 1_048_576) : 1
      // Sliding minimum of the last `window` requests (a monotonic deque).
      while dequeCount > 0, dequeValues[(dequeStart + dequeCount - 1) % capacity] >= request {
        dequeCount -= 1
      }
      dequeIndices[(dequeStart + dequeCount) % capacity] = position
      dequeValues[(dequeStart + dequeCount) % capacity] = request
      dequeCount += 1
      while dequeIndices[dequeStart] <= position - window {
        dequeStart = (dequeStart + 1) % capacity
        dequeCount -= 1
      }
      let hold = dequeValues[dequeStart]
      lastReleased = min(Double(hold), lastReleased + (1 - lastReleased) * releaseCoefficient)
      if hold == 1 && lastReleased > 1 - 1e-6 { lastReleased = 1 }
      let release = Float(lastReleased)
      // Moving average of the released gain over the window.
      let slot = position % window
      let leaving = released[slot]
      released[slot] = release
      releasedSum += Double(release) - Double(leaving)
      releasedBelowOne += (release < 1 ? 1 : 0) - (leaving < 1 ? 1 : 0)
      if position % 4_096 == 0 {
        // A plain loop: a `reduce` with a closure allocated its context here in debug builds.
        var sum = 0.0
        for index in 0..<window { sum += Double(released[index]) }
        releasedSum = sum
      }
      let gain: Float = releasedBelowOne == 0 ? 1 : Float(releasedSum / Double(window))
      smallestGain = min(smallestGain, gain)
      // Delay line: store this frame, put out the one `window - 1` frames older.
      let stored = delay + slot * channels
      let outgoing = delay + ((position + 1) % window) * channels
      for channel in 0..<channels {
        let sample = input[channel]
        stored[channel] = sample
        input[channel] = outgoing[channel] * gain
      }
      position += 1
    }
  }

  private var isAtRest: Bool {
    framesSinceSound >= window && releasedBelowOne == 0 && lastReleased == 1
  }

  private func isSilent(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Bool {
    var any: Float = 0
    for index in 0..<count { any = max(any, abs(samples[index])) }
    return any == 0
  }
}
