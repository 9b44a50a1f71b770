import FoleyAudio
import Testing

/// The mixing thread's kernels against their definitions, bit for bit: the limiter's pass-through
/// (blocks that need no limiting are only delayed) against its frame-by-frame walk, and the
/// stereo ramp's vector loops against its closed form frame by frame. Pure logic on the kernels
/// themselves; their output through SDL's disk driver is in `PlaybackOutputTests` (the limiter)
/// and `PositionalOutputTests` (moving voices, which ramp every block).
@Suite("Mixing-thread kernels")
struct RealTimeKernelTests {
  /// A signal that goes quiet, loud (above the ceiling), silent and quiet again, in blocks of
  /// random sizes, the same for both limiters.
  struct Material {
    var state: UInt64

    mutating func next() -> UInt64 {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return state
    }

    mutating func unit() -> Float { Float(next() % 2_000_001) / 1_000_000 - 1 }

    /// One block: `frames` frames of `channels` samples at `amplitude`, or silence when it is 0.
    mutating func block(frames: Int, channels: Int = 2, amplitude: Float) -> [Float] {
      (0..<frames * channels).map { _ in amplitude * unit() }
    }
  }

  @Test(
    "quiet, loud, silent and quiet again in random blocks: pass-through, walk and the first-written walk agree bit for bit",
    arguments: [(96, 2), (7, 2), (1, 2), (32, 1), (16, 6)])
  func passThroughEqualsTheWalk(window: Int, channels: Int) {
    let ceiling: Float = 0.89
    func limiter(passThrough: Bool) -> LookAheadLimiter {
      let limiter = LookAheadLimiter(
        channels: channels, window: window, ceiling: ceiling, releaseCoefficient: 0.002)
      limiter.allowsPassThrough = passThrough
      return limiter
    }
    let fast = limiter(passThrough: true)
    let walk = limiter(passThrough: false)
    var reference = ReferenceLimiter(
      channels: channels, window: window, ceiling: ceiling, releaseCoefficient: 0.002)
    var material = Material(state: 0x9E37_79B9_7F4A_7C15)
    var differing = 0
    var limitedFrames = 0
    // Amplitudes by phase: quiet, loud (limited), silent, quiet; each phase several blocks long.
    let phases: [Float] = [0.5, 1.6, 0, 0.5, 0.88, 2.5, 0.3, 0, 0, 0.7]
    for amplitude in phases {
      for _ in 0..<12 {
        let frames = Int(material.next() % 700) + 1
        var input = material.block(frames: frames, channels: channels, amplitude: amplitude)
        var copy = input
        var expected = input
        input.withUnsafeMutableBufferPointer { fast.process($0.baseAddress!, frames: frames) }
        copy.withUnsafeMutableBufferPointer { walk.process($0.baseAddress!, frames: frames) }
        reference.process(&expected)
        differing += zip(input, copy).filter { $0.bitPattern != $1.bitPattern }.count
        differing += zip(input, expected).filter { $0.bitPattern != $1.bitPattern }.count
        if fast.takeSmallestGain() < 1 { limitedFrames += frames }
        _ = walk.takeSmallestGain()
      }
    }
    #expect(differing == 0)
    // Both paths really ran: blocks were limited, and blocks went through the fast path.
    #expect(limitedFrames > 0)
    #expect(fast.framesPassedThrough > 10_000)
    #expect(walk.framesPassedThrough == 0)
  }

  @Test(
    "the AVX sum gives the portable sum's samples bit for bit, at every length and alignment",
    .enabled(if: VoiceMixer.hasWideVectors, "this CPU has no AVX: the portable sum is the only one"))
  func wideSumEqualsThePortableOne() {
    var material = Material(state: 0xD1B5_4A32_D192_ED03)
    // Magnitudes from subnormal to huge, both signs, so a different rounding or a fused
    // multiply-add would show.
    func sample() -> Float {
      let scales: [Float] = [.leastNormalMagnitude / 100, 1e-20, 1e-3, 0.5, 1, 3, 1e20]
      return material.unit() * scales[Int(material.next() % UInt64(scales.count))]
    }
    var differing = 0
    var checked = 0
    for count in [0, 1, 2, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 63, 100, 2_048, 2_053] {
      for offset in 0..<4 {  // the buffers' alignment, in floats
        let pattern = SIMD8<Float>((0..<8).map { _ in sample() })
        let source = (0..<count + offset).map { _ in sample() }
        let start = (0..<count + offset).map { _ in sample() }
        var wide = start
        var portable = start
        source.withUnsafeBytes { from in
          let from = from.baseAddress! + offset * 4
          wide.withUnsafeMutableBufferPointer {
            #expect(VoiceMixer.addScaledWide(from, into: $0.baseAddress! + offset, count: count, by: pattern))
          }
          portable.withUnsafeMutableBufferPointer {
            VoiceMixer.addScaledPortably(from, into: $0.baseAddress! + offset, count: count, by: pattern)
          }
        }
        for index in 0..<count + offset {
          // The definition: before `offset` untouched; after, one multiply and one add.
          let expected =
            index < offset ? start[index] : start[index] + source[index] * pattern[(index - offset) & 7]
          if wide[index].bitPattern != expected.bitPattern
            || portable[index].bitPattern != expected.bitPattern
          {
            differing += 1
          }
          checked += 1
        }
      }
    }
    #expect(checked > 17_000)
    #expect(differing == 0)
  }

  @Test("a block with one sample above the ceiling is limited, not passed through")
  func oneLoudSampleIsLimited() {
    let limiter = LookAheadLimiter(channels: 2, window: 32, ceiling: 0.5, releaseCoefficient: 0.01)
    // The first block walks (the sliding minimum starts empty); the second passes through.
    for _ in 0..<2 {
      var quiet = [Float](repeating: 0.25, count: 2 * 256)
      quiet.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, frames: 256) }
    }
    let passed = limiter.framesPassedThrough
    #expect(passed > 0)
    var block = [Float](repeating: 0.25, count: 2 * 256)
    block[301] = 0.9
    block.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, frames: 256) }
    #expect(limiter.framesPassedThrough == passed)
    #expect(limiter.takeSmallestGain() < 0.56)
    var flush = [Float](repeating: 0, count: 2 * 64)
    flush.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, frames: 64) }
    #expect(max(block.map(abs).max() ?? 0, flush.map(abs).max() ?? 0) <= 0.5)
  }

  @Test(
    "the ramp's vector loops (and their AVX kernels) give the closed form's gains, before, across and after each side lands"
  )
  func rampMatchesItsClosedForm() throws {
    var material = Material(state: 0x2545_F491_4F6C_DD1D)
    var differing = 0
    var stretchesSeen = (linear: 0, clamped: 0, held: 0)
    var wideRounds = 0
    for round in 0..<400 {
      // Gains from 0 to 1.2, one side sometimes holding; steps that land within, across or past
      // the block; a block of 1…600 frames entered at any frame (a loop's seam splits a block).
      let fromLeft = abs(material.unit()) * 1.2
      let fromRight = round % 5 == 0 ? fromLeft : abs(material.unit()) * 1.2
      let toLeft = abs(material.unit()) * 1.2
      let toRight = round % 7 == 0 ? fromRight : abs(material.unit()) * 1.2
      let step = Float(material.next() % 1_000 + 1) / 200_000
      let ramp = try #require(
        StereoRamp(fromLeft: fromLeft, fromRight: fromRight, toLeft: toLeft, toRight: toRight, step: step))
      let frames = Int(material.next() % 600) + 1
      let firstFrame = Int(material.next() % 300)
      let source = material.block(frames: frames, amplitude: 1)
      var summed = material.block(frames: frames, amplitude: 0.5)
      var expectedSum = summed
      var scaled = source
      var expectedScaled = source
      for frame in 0..<frames {
        let (left, right) = ramp.gains(atFrame: firstFrame + frame)
        expectedSum[2 * frame] += source[2 * frame] * left
        expectedSum[2 * frame + 1] += source[2 * frame + 1] * right
        let (blockLeft, blockRight) = ramp.gains(atFrame: frame)
        expectedScaled[2 * frame] *= blockLeft
        expectedScaled[2 * frame + 1] *= blockRight
        let landed = (left == toLeft, right == toRight)
        switch landed {
        case (false, false): stretchesSeen.linear += 1
        case (true, true): stretchesSeen.held += 1
        default: stretchesSeen.clamped += 1
        }
      }
      var summedWide = summed
      source.withUnsafeBytes { from in
        summed.withUnsafeMutableBufferPointer { into in
          ramp.addScaled(from.baseAddress!, into: into.baseAddress!, frames: frames, firstFrame: firstFrame)
        }
        // The AVX kernels, where this CPU has them: the same samples.
        if VoiceMixer.hasWideVectors {
          summedWide.withUnsafeMutableBufferPointer { into in
            ramp.addScaled(
              from.baseAddress!, into: into.baseAddress!, frames: frames, firstFrame: firstFrame, wide: true)
          }
          differing += zip(summedWide, expectedSum).filter { $0.bitPattern != $1.bitPattern }.count
          wideRounds += 1
        }
      }
      scaled.withUnsafeMutableBufferPointer { ramp.scale($0.baseAddress!, frames: frames) }
      differing += zip(summed, expectedSum).filter { $0.bitPattern != $1.bitPattern }.count
      differing += zip(scaled, expectedScaled).filter { $0.bitPattern != $1.bitPattern }.count
    }
    #expect(differing == 0)
    #expect(wideRounds == (VoiceMixer.hasWideVectors ? 400 : 0))
    // Every stretch was exercised, many times over.
    #expect(stretchesSeen.linear > 1_000)
    #expect(stretchesSeen.clamped > 1_000)
    #expect(stretchesSeen.held > 1_000)
  }

  @Test(
    "the stereo filter's two-frame steps give the per-sample SVF's output, for every response, in blocks of any length, its cutoff moving between them"
  )
  func stereoFilterMatchesThePerSampleFilter() {
    // The mono path runs the SVF's equations a sample at a time: two of them, one per side,
    // are the definition the stereo path's state-space steps must reproduce.
    var material = Material(state: 0x9E37_79B9_7F4A_7C15)
    let responses: [StateVariableFilter.Response] = [
      .lowPass, .highPass, .bandPass, .lowShelf, .highShelf, .peaking, .notch,
    ]
    var worst: Float = 0
    var compared = 0
    for response in responses {
      for (frequency, q, gain) in [(40.0, 0.707, 6.0), (1_000, 0.5, -12), (9_000, 4, 9), (23_000, 0.707, 0)] {
        let stereo = StateVariableFilter(channels: 2, sampleRate: 48_000)
        let sides = [
          StateVariableFilter(channels: 1, sampleRate: 48_000),
          StateVariableFilter(channels: 1, sampleRate: 48_000),
        ]
        let first = material.block(frames: 1, amplitude: 0.8)
        stereo.prime(with: first)
        sides[0].prime(with: [first[0]])
        sides[1].prime(with: [first[1]])
        for block in 0..<60 {
          // The cutoff moves every few blocks (an octave either way), as a swept voice's does.
          let moved = frequency * (block % 4 == 0 ? Double(1 + material.unit()) + 0.5 : 1)
          for filter in [stereo] + sides { filter.configure(response, frequency: moved, q: q, gainDB: gain) }
          let frames = Int(material.next() % 37) + 1
          var samples = material.block(frames: frames, amplitude: 0.9)
          var left = (0..<frames).map { samples[2 * $0] }
          var right = (0..<frames).map { samples[2 * $0 + 1] }
          stereo.process(&samples, frames: frames)
          sides[0].process(&left, frames: frames)
          sides[1].process(&right, frames: frames)
          for frame in 0..<frames {
            for (got, expected) in [
              (samples[2 * frame], left[frame]), (samples[2 * frame + 1], right[frame]),
            ] {
              worst = max(worst, abs(got - expected) / max(1, abs(expected)))
              compared += 1
            }
          }
        }
      }
    }
    #expect(compared > 10_000)
    // Float rounding in another order, nothing more (a wrong coefficient is off by 1e-2 or more).
    #expect(worst < 2e-5, "largest difference \(worst)")
  }
}

/// The limiter's walk as first written (ring positions by division, no pass-through, the state
/// in the object, any number of channels): the definition the limiter's faster loops must keep
/// to, bit for bit.
struct ReferenceLimiter {
  let channels: Int
  let window: Int
  let ceiling: Float
  let releaseCoefficient: Double
  var delay: [Float]
  var released: [Float]
  var dequeIndices: [Int]
  var dequeValues: [Float]
  var dequeStart = 0
  var dequeCount = 0
  var position = 0
  var releasedSum: Double
  var releasedBelowOne = 0
  var lastReleased: Double = 1

  init(channels: Int, window: Int, ceiling: Float, releaseCoefficient: Double) {
    self.channels = channels
    self.window = window
    self.ceiling = ceiling
    self.releaseCoefficient = releaseCoefficient
    delay = Array(repeating: 0, count: window * channels)
    released = Array(repeating: 1, count: window)
    dequeIndices = Array(repeating: 0, count: window + 1)
    dequeValues = Array(repeating: 0, count: window + 1)
    releasedSum = Double(window)
    framesSinceSound = window
  }

  var framesSinceSound: Int

  mutating func process(_ samples: inout [Float]) {
    // At rest, a silent block is left as it is (and the walk does not move on).
    if framesSinceSound >= window, releasedBelowOne == 0, lastReleased == 1,
      samples.allSatisfy({ $0 == 0 || $0.isNaN })
    {
      return
    }
    let capacity = window + 1
    for frame in 0..<samples.count / channels {
      var peak: Float = 0
      for channel in 0..<channels { peak = max(peak, abs(samples[frame * channels + channel])) }
      framesSinceSound = peak == 0 ? min(framesSinceSound + 1, window) : 0
      let request: Float = peak > ceiling ? ceiling / peak * (1 - 1.0 / 1_048_576) : 1
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
      let slot = position % window
      let leaving = released[slot]
      released[slot] = release
      releasedSum += Double(release) - Double(leaving)
      releasedBelowOne += (release < 1 ? 1 : 0) - (leaving < 1 ? 1 : 0)
      if position % 4_096 == 0 { releasedSum = released.reduce(0) { $0 + Double($1) } }
      let gain: Float = releasedBelowOne == 0 ? 1 : Float(releasedSum / Double(window))
      let outgoing = ((position + 1) % window) * channels
      for channel in 0..<channels {
        let sample = samples[frame * channels + channel]
        delay[slot * channels + channel] = sample
        samples[frame * channels + channel] = delay[outgoing + channel] * gain
      }
      position += 1
    }
  }
}
