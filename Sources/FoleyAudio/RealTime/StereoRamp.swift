/// A de-click ramp of a stereo gain pair in closed form, so a block is scaled four frames at a time.
///
/// Each side moves by `step` a frame from where it starts towards its goal and stops there: the
/// gain applied at frame `k` of the block (counting from 0) is
/// `goal − sign × max(0, distance − step × (k + 1))`. That is the same walk as adding `step` a
/// frame and clamping at the goal, written so no frame depends on the one before: a vector of
/// eight samples (four frames) is scaled with one multiply-add and a max, where the frame-by-frame
/// loop needed a compare and a branch per sample. Frames past the landing take the goal exactly.
struct StereoRamp {
  let goalLeft: Float
  let goalRight: Float
  let distanceLeft: Float
  let distanceRight: Float
  /// +1 up, −1 down, 0 when that side holds.
  let signLeft: Float
  let signRight: Float
  let step: Float

  /// Nil when `step` is not a positive finite number: the caller keeps its frame-by-frame walk.
  init?(fromLeft: Float, fromRight: Float, toLeft: Float, toRight: Float, step: Float) {
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

    /// The gains of frames `frame` … `frame + 3` of the block.
    @inline(__always)
    func gains(fromFrame frame: Int) -> SIMD8<Float> {
      let left = distance - step * (firstFour + SIMD8(repeating: Float(frame)))
      return goal - sign * left.lanewiseMax(SIMD8(repeating: 0))
    }
  }

  /// The gains of frame `frame` alone.
  @inline(__always)
  func gains(atFrame frame: Int) -> (left: Float, right: Float) {
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
  func scale(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    let raw = UnsafeMutableRawPointer(samples)
    let lanes = Lanes(self)
    var frame = 0
    while frame + 4 <= frames {
      let scaled =
        raw.loadUnaligned(fromByteOffset: frame * 8, as: SIMD8<Float>.self) * lanes.gains(fromFrame: frame)
      raw.storeBytes(of: scaled, toByteOffset: frame * 8, as: SIMD8<Float>.self)
      frame += 4
    }
    while frame < frames {
      let (left, right) = gains(atFrame: frame)
      samples[2 * frame] *= left
      samples[2 * frame + 1] *= right
      frame += 1
    }
  }

  /// Adds `frames` interleaved stereo frames of `source` × the ramp into `target`; the first of
  /// them is frame `firstFrame` of the ramp's block.
  func addScaled(
    _ source: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, frames: Int, firstFrame: Int
  ) {
    let to = UnsafeMutableRawPointer(target)
    let lanes = Lanes(self)
    var frame = 0
    while frame + 4 <= frames {
      let sum =
        to.loadUnaligned(fromByteOffset: frame * 8, as: SIMD8<Float>.self)
        + source.loadUnaligned(fromByteOffset: frame * 8, as: SIMD8<Float>.self)
        * lanes.gains(fromFrame: firstFrame + frame)
      to.storeBytes(of: sum, toByteOffset: frame * 8, as: SIMD8<Float>.self)
      frame += 4
    }
    let single = source.assumingMemoryBound(to: Float.self)
    while frame < frames {
      let (left, right) = gains(atFrame: firstFrame + frame)
      target[2 * frame] += single[2 * frame] * left
      target[2 * frame + 1] += single[2 * frame + 1] * right
      frame += 1
    }
  }
}
