internal import CFoleyDSP

/// A de-click ramp of a stereo gain pair in closed form, so a block is scaled four frames at a time.
///
/// Each side moves by `step` a frame from where it starts towards its goal and stops there: the
/// gain applied at frame `k` of the block (counting from 0) is
/// `goal − sign × max(0, distance − step × (k + 1))`. That is the same walk as adding `step` a
/// frame and clamping at the goal, written so no frame depends on the one before: a vector of
/// eight samples (four frames) is scaled with a few multiply-adds (and a max only where a side may
/// have landed), where the frame-by-frame loop needed a compare and a branch per sample. Frames
/// past the landing take the goal exactly.
package struct StereoRamp {
  let goalLeft: Float
  let goalRight: Float
  let distanceLeft: Float
  let distanceRight: Float
  /// +1 up, −1 down, 0 when that side holds.
  let signLeft: Float
  let signRight: Float
  let step: Float

  /// Nil when `step` is not a positive finite number: the caller keeps its frame-by-frame walk.
  package init?(fromLeft: Float, fromRight: Float, toLeft: Float, toRight: Float, step: Float) {
    guard step > 0, step.isFinite else { return nil }
    distanceLeft = abs(toLeft - fromLeft)
    distanceRight = abs(toRight - fromRight)
    guard distanceLeft.isFinite, distanceRight.isFinite else { return nil }
    signLeft = toLeft > fromLeft ? 1 : (toLeft < fromLeft ? -1 : 0)
    signRight = toRight > fromRight ? 1 : (toRight < fromRight ? -1 : 0)
    goalLeft = toLeft
    goalRight = toRight
    self.step = step
  }

  /// The ramp laid out as the samples are (left, right, left, right…), four frames a vector. Made
  /// once per block, in registers: the ramp itself stays small to pass around.
  struct Lanes {
    let goal: SIMD8<Float>
    let distance: SIMD8<Float>
    let sign: SIMD8<Float>
    let step: SIMD8<Float>
    /// Frame numbers (1-based) of a block's first four frames, one per sample.
    let firstFour = SIMD8<Float>(1, 1, 2, 2, 3, 3, 4, 4)

    @inline(__always)
    init(_ ramp: StereoRamp) {
      goal = Self.pairs(ramp.goalLeft, ramp.goalRight)
      distance = Self.pairs(ramp.distanceLeft, ramp.distanceRight)
      sign = Self.pairs(ramp.signLeft, ramp.signRight)
      step = SIMD8(repeating: ramp.step)
    }

    @inline(__always)
    static func pairs(_ left: Float, _ right: Float) -> SIMD8<Float> {
      SIMD8(left, right, left, right, left, right, left, right)
    }
  }

  /// The gains of frame `frame` alone.
  @inline(__always)
  package func gains(atFrame frame: Int) -> (left: Float, right: Float) {
    let steps = Float(frame + 1)
    return (
      goalLeft - signLeft * max(0, distanceLeft - step * steps),
      goalRight - signRight * max(0, distanceRight - step * steps)
    )
  }

  /// Where the gains stand after `frames` frames: the start of the next block.
  func reached(after frames: Int) -> (left: Float, right: Float) {
    frames == 0
      ? (goalLeft - signLeft * distanceLeft, goalRight - signRight * distanceRight)
      : gains(atFrame: frames - 1)
  }

  /// How many of `frames` frames the ramp moved in (both sides at their goal after that many).
  func framesMoving(within frames: Int) -> Int {
    min(
      frames,
      max(Self.landing(distanceLeft, step), Self.landing(distanceRight, step)))
  }

  /// The first frame count after which `distance − step × count` is not positive, as the gains
  /// compute it (so the count and the samples agree to the frame).
  static func landing(_ distance: Float, _ step: Float) -> Int {
    guard distance > 0 else { return 0 }
    let estimate = (distance / step).rounded(.up)
    guard estimate < 1e9 else { return Int.max / 2 }
    var count = max(1, Int(estimate))
    while count > 1, distance - step * Float(count - 1) <= 0 { count -= 1 }
    while distance - step * Float(count) > 0 { count += 1 }
    return count
  }

  /// Scales `frames` interleaved stereo frames in place.
  package func scale(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    walk(frames: frames, firstFrame: 0, Scaling(samples: samples))
  }

  /// Adds `frames` interleaved stereo frames of `source` × the ramp into `target`; the first of
  /// them is frame `firstFrame` of the ramp's block. `wide`: its vectors in AVX (the C kernel;
  /// only where ``VoiceMixer/hasWideVectors``), the same samples bit for bit.
  package func addScaled(
    _ source: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, frames: Int, firstFrame: Int,
    wide: Bool = false
  ) {
    walk(frames: frames, firstFrame: firstFrame, Adding(source: source, target: target, wide: wide))
  }

  /// Hands `kernel` the gains of every four frames and those of the frames left over one by one
  /// (frame numbers counted from `firstFrame`, the gains the closed form's), in three stretches:
  /// while neither moving side has landed the clamp cannot bite and is left out; while one has,
  /// the closed form clamps; once both have, the gains are the goals. The frame numbers are
  /// carried as floats, four added a vector (exact below 2²⁴), so no vector converts an integer.
  /// Each stretch computes the closed form's own expression, so the samples are the same bit for
  /// bit whichever stretch a frame falls in.
  @inline(__always)
  private func walk<Kernel: RampKernel>(frames: Int, firstFrame: Int, _ kernel: Kernel) {
    let lanes = Lanes(self)
    let (unclamped, held) = stretches
    // Frame numbers here count from this call's first frame.
    let linearEnd = min(max(unclamped - firstFrame, 0), frames)
    let heldStart = min(max(held - firstFrame, linearEnd), frames)
    var frame = 0
    ramp(kernel, lanes, &frame, until: linearEnd, firstFrame: firstFrame, clamped: false)
    ramp(kernel, lanes, &frame, until: heldStart, firstFrame: firstFrame, clamped: true)
    let heldVectors = (frames &- frame) / 4
    if heldVectors > 0, kernel.wide(frame, vectors: heldVectors, held: lanes.goal) {
      frame &+= heldVectors &* 4
    }
    while frame &+ 4 <= frames {
      kernel.vector(frame, lanes.goal)
      frame &+= 4
    }
    while frame < frames {
      kernel.single(frame, goalLeft, goalRight)
      frame &+= 1
    }
  }

  /// One ramping stretch of ``walk(frames:firstFrame:_:)``, from `frame` to `end`: the closed
  /// form with its clamp or (where no moving side can have landed) without.
  @inline(__always)
  private func ramp<Kernel: RampKernel>(
    _ kernel: Kernel, _ lanes: Lanes, _ frame: inout Int, until end: Int, firstFrame: Int, clamped: Bool
  ) {
    let four = SIMD8<Float>(repeating: 4)
    var steps = lanes.firstFour + SIMD8(repeating: Float(firstFrame &+ frame))
    let vectors = (end &- frame) / 4
    if vectors > 0, kernel.wide(frame, vectors: vectors, steps: steps, lanes, clamped: clamped) {
      frame &+= vectors &* 4
    }
    while frame &+ 4 <= end {
      let left = lanes.distance - lanes.step * steps
      kernel.vector(frame, lanes.goal - lanes.sign * (clamped ? left.lanewiseMax(SIMD8(repeating: 0)) : left))
      steps += four
      frame &+= 4
    }
    while frame < end {
      let (left, right) = gains(atFrame: firstFrame &+ frame)
      kernel.single(frame, left, right)
      frame &+= 1
    }
  }

  /// Where the block's stretches change (frame numbers from the block's start): before
  /// `unclamped` no moving side has landed, from `held` on both sides are at their goals. A side
  /// that holds (sign 0) takes its goal whatever the frame, so it bounds neither.
  private var stretches: (unclamped: Int, held: Int) {
    let left = signLeft == 0 ? nil : Self.landing(distanceLeft, step) - 1
    let right = signRight == 0 ? nil : Self.landing(distanceRight, step) - 1
    switch (left, right) {
    case (let left?, let right?): return (min(left, right), max(left, right))
    case (let left?, nil): return (left, left)
    case (nil, let right?): return (right, right)
    case (nil, nil): return (0, 0)
    }
  }
}

/// What a ramp does with its gains, one vector of four frames or one frame at a time; each
/// kernel's methods are inlined into the ramp's walk, specialized.
private protocol RampKernel {
  func vector(_ frame: Int, _ gains: SIMD8<Float>)
  func single(_ frame: Int, _ left: Float, _ right: Float)
  /// `vectors` vectors from `frame` of a ramping stretch, `steps` the first one's frame numbers,
  /// in one wide call; false (nothing done) when the kernel has none.
  func wide(_ frame: Int, vectors: Int, steps: SIMD8<Float>, _ lanes: StereoRamp.Lanes, clamped: Bool) -> Bool
  /// The same for a held stretch, at `gains`.
  func wide(_ frame: Int, vectors: Int, held gains: SIMD8<Float>) -> Bool
}

extension RampKernel {
  @inline(__always)
  func wide(_ frame: Int, vectors: Int, steps: SIMD8<Float>, _ lanes: StereoRamp.Lanes, clamped: Bool) -> Bool
  {
    false
  }

  @inline(__always)
  func wide(_ frame: Int, vectors: Int, held gains: SIMD8<Float>) -> Bool { false }
}

/// Scales samples in place.
private struct Scaling: RampKernel {
  let samples: UnsafeMutablePointer<Float>

  @inline(__always)
  func vector(_ frame: Int, _ gains: SIMD8<Float>) {
    let raw = UnsafeMutableRawPointer(samples)
    let scaled = raw.loadUnaligned(fromByteOffset: frame &* 8, as: SIMD8<Float>.self) * gains
    raw.storeBytes(of: scaled, toByteOffset: frame &* 8, as: SIMD8<Float>.self)
  }

  @inline(__always)
  func single(_ frame: Int, _ left: Float, _ right: Float) {
    samples[2 &* frame] *= left
    samples[2 &* frame &+ 1] *= right
  }
}

/// Adds source samples × the gains into a target.
private struct Adding: RampKernel {
  let source: UnsafeRawPointer
  let target: UnsafeMutablePointer<Float>
  /// Stretches go to the AVX kernels.
  let wide: Bool

  @inline(__always)
  func wide(_ frame: Int, vectors: Int, steps: SIMD8<Float>, _ lanes: StereoRamp.Lanes, clamped: Bool) -> Bool
  {
    guard wide else { return false }
    // One stretch's operands side by side on the stack (a tuple of vectors is laid out in order).
    var operands = (steps, lanes.distance, lanes.step, lanes.sign, lanes.goal)
    withUnsafeBytes(of: &operands) { raw in
      let lanes = raw.baseAddress!.assumingMemoryBound(to: Float.self)
      foley_ramp_add_avx(
        (source + frame &* 8).assumingMemoryBound(to: Float.self), target + frame &* 2, vectors, lanes,
        lanes + 8, lanes + 16, lanes + 24, lanes + 32, clamped)
    }
    return true
  }

  @inline(__always)
  func wide(_ frame: Int, vectors: Int, held gains: SIMD8<Float>) -> Bool {
    guard wide else { return false }
    VoiceMixer.addScaledAVX(source + frame &* 8, into: target + frame &* 2, count: vectors &* 8, by: gains)
    return true
  }

  @inline(__always)
  func vector(_ frame: Int, _ gains: SIMD8<Float>) {
    let to = UnsafeMutableRawPointer(target)
    let sum =
      to.loadUnaligned(fromByteOffset: frame &* 8, as: SIMD8<Float>.self)
      + source.loadUnaligned(fromByteOffset: frame &* 8, as: SIMD8<Float>.self) * gains
    to.storeBytes(of: sum, toByteOffset: frame &* 8, as: SIMD8<Float>.self)
  }

  @inline(__always)
  func single(_ frame: Int, _ left: Float, _ right: Float) {
    let from = source.assumingMemoryBound(to: Float.self)
    target[2 &* frame] += from[2 &* frame] * left
    target[2 &* frame &+ 1] += from[2 &* frame &+ 1] * right
  }
}
