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
    if isAtRest, peak(samples, count: frames * channels) == 0 { return }
    if passesThrough(samples, frames: frames) { return }
    // Stereo (nearly every device) with the channel count a constant: its loops unrolled.
    if channels == 2 {
      walk(samples, frames: frames, channels: 2)
    } else {
      walk(samples, frames: frames, channels: channels)
    }
  }

  /// The walk, frame by frame: the sliding minimum, the release, the moving average and the
  /// delay line.
  @inline(__always)
  private func walk(_ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int) {
    // Ring positions wrap by a compare, not a division (six of them a frame cost more than the
    // rest of the walk), and the state is walked in locals, stored back once: kept in the
    // object, every change went back to memory before the next sample was read (a write
    // through `samples` might have changed it, as far as the compiler knows).
    let capacity = window &+ 1
    func wrapped(_ index: Int) -> Int { index >= capacity ? index &- capacity : index }
    var slot = position % window
    var position = position
    var dequeStart = dequeStart
    var dequeCount = dequeCount
    var lastReleased = lastReleased
    var releasedSum = releasedSum
    var releasedBelowOne = releasedBelowOne
    var framesSinceSound = framesSinceSound
    var smallestGain = smallestGain
    defer {
      self.position = position
      self.dequeStart = dequeStart
      self.dequeCount = dequeCount
      self.lastReleased = lastReleased
      self.releasedSum = releasedSum
      self.releasedBelowOne = releasedBelowOne
      self.framesSinceSound = framesSinceSound
      self.smallestGain = smallestGain
    }
    for frame in 0..<frames {
      let input = samples + frame &* channels
      var peak: Float = 0
      for channel in 0..<channels { peak = max(peak, abs(input[channel])) }
      framesSinceSound = peak == 0 ? min(framesSinceSound &+ 1, window) : 0
      // The gain this frame asks for, a hair under the exact ratio so rounding cannot overshoot.
      let request: Float = peak > ceiling ? ceiling / peak * (1 - 1.0 / 1_048_576) : 1
      // Sliding minimum of the last `window` requests (a monotonic deque).
      while dequeCount > 0, dequeValues[wrapped(dequeStart &+ dequeCount &- 1)] >= request {
        dequeCount &-= 1
      }
      let back = wrapped(dequeStart &+ dequeCount)
      dequeIndices[back] = position
      dequeValues[back] = request
      dequeCount &+= 1
      while dequeIndices[dequeStart] <= position &- window {
        dequeStart = wrapped(dequeStart &+ 1)
        dequeCount &-= 1
      }
      let hold = dequeValues[dequeStart]
      lastReleased = min(Double(hold), lastReleased + (1 - lastReleased) * releaseCoefficient)
      if hold == 1 && lastReleased > 1 - 1e-6 { lastReleased = 1 }
      let release = Float(lastReleased)
      // Moving average of the released gain over the window.
      let leaving = released[slot]
      released[slot] = release
      releasedSum += Double(release) - Double(leaving)
      releasedBelowOne &+= (release < 1 ? 1 : 0) &- (leaving < 1 ? 1 : 0)
      if position & 4_095 == 0 {
        // A plain loop: a `reduce` with a closure allocated its context here in debug builds.
        var sum = 0.0
        for index in 0..<window { sum += Double(released[index]) }
        releasedSum = sum
      }
      let gain: Float = releasedBelowOne == 0 ? 1 : Float(releasedSum / Double(window))
      smallestGain = min(smallestGain, gain)
      // Delay line: store this frame, put out the one `window - 1` frames older.
      let stored = delay + slot &* channels
      let next = slot &+ 1 == window ? 0 : slot &+ 1
      let outgoing = delay + next &* channels
      for channel in 0..<channels {
        let sample = input[channel]
        stored[channel] = sample
        input[channel] = outgoing[channel] * gain
      }
      slot = next
      position &+= 1
    }
  }

  /// Whether ``passesThrough(_:frames:)`` may take blocks that need no limiting (on unless a
  /// test compares it with the frame-by-frame walk).
  package var allowsPassThrough = true
  /// Frames the pass-through delayed (for tests: proof the fast path ran).
  package private(set) var framesPassedThrough = 0

  /// The common case of a playing game, in one cheap pass: nothing in the window asks for less
  /// than unity gain, the release has settled at 1, and no sample of the block is above the
  /// ceiling. Then every frame's gain is exactly 1 and the walk would only delay the samples, so
  /// this delays them (the same samples, bit for bit) and leaves the state as the walk would: the
  /// sliding minimum holds the newest frame's request of 1, the released gains are all 1.
  private func passesThrough(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
    guard allowsPassThrough, frames > 0, releasedBelowOne == 0, lastReleased == 1, dequeCount > 0,
      dequeValues[dequeStart] == 1
    else { return false }
    // The block's peak, then its last frame with sound.
    guard peak(samples, count: frames &* channels) <= ceiling else { return false }
    var lastSounding = frames - 1
    while lastSounding >= 0, peak(samples + lastSounding &* channels, count: channels) == 0 {
      lastSounding -= 1
    }
    // The delay line: each frame goes into its slot and the frame one slot on comes out, so a run
    // of frames up to the ring's end is one pass that reads each sample before it is overwritten.
    var slot = position % window
    var frame = 0
    while frame < frames {
      let input = samples + frame &* channels
      let stored = delay + slot &* channels
      let run = min(frames - frame, window - 1 - slot)
      if run > 0 {
        for index in 0..<run &* channels {
          let sample = input[index]
          input[index] = stored[index &+ channels]
          stored[index] = sample
        }
        frame += run
        slot += run
      } else {
        // The last slot: the frame out is the ring's first.
        for channel in 0..<channels {
          stored[channel] = input[channel]
          input[channel] = delay[channel]
        }
        frame += 1
        slot = 0
      }
    }
    framesSinceSound =
      lastSounding < 0 ? min(framesSinceSound + frames, window) : min(frames - 1 - lastSounding, window)
    // The walk re-adds the released gains (all 1 here) at every 4,096th frame.
    let last = position + frames - 1
    if position % 4_096 == 0 || last / 4_096 > position / 4_096 { releasedSum = Double(window) }
    position += frames
    dequeStart = 0
    dequeCount = 1
    dequeIndices[0] = last
    dequeValues[0] = 1
    framesPassedThrough += frames
    return true
  }

  private var isAtRest: Bool {
    framesSinceSound >= window && releasedBelowOne == 0 && lastReleased == 1
  }

  /// The largest magnitude of `count` samples; a NaN counts as silence, as in the walk.
  private func peak(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Float {
    var peak: Float = 0
    for index in 0..<count { peak = max(peak, abs(samples[index])) }
    return peak
  }
}
