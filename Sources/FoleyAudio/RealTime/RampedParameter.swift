import Synchronization

/// A parameter the game sets and the mixing thread follows, ramped: the target (a `Float`) and
/// the frames to reach it over travel together in one 64-bit atomic, so the mixing thread never
/// sees a target with another request's duration. Lock-free in both directions; the game thread
/// never waits for the mix.
struct RampRequest: Equatable, Sendable {
  package var target: Float
  /// Frames over which to arrive; 0 arrives at once.
  package var frames: UInt32

  package init(target: Float, frames: UInt32) {
    self.target = target
    self.frames = frames
  }

  package init(packed: UInt64) {
    target = Float(bitPattern: UInt32(truncatingIfNeeded: packed >> 32))
    frames = UInt32(truncatingIfNeeded: packed)
  }

  var packed: UInt64 { UInt64(target.bitPattern) << 32 | UInt64(frames) }
}

/// The mixing thread's side of one ramped parameter: where it is and how fast it moves.
struct RampFollower {
  package private(set) var value: Float
  private var step: Float = 0
  private var remaining = 0
  private var goal: Float
  private var seen: UInt64

  package init(value: Float, request: UInt64) {
    self.value = value
    goal = value
    seen = request
  }

  /// Starts over at `value` (a new voice on the lane), already following `request`.
  package mutating func reset(to value: Float, request: UInt64) {
    self = RampFollower(value: value, request: request)
  }

  /// Takes up a new request if there is one.
  @inline(__always)
  package mutating func follow(_ request: UInt64) {
    follow(request, converted: RampRequest(packed: request))
  }

  /// Takes up `request`, if new, as `wanted` (its duration converted to frames).
  @inline(__always)
  package mutating func follow(_ request: UInt64, converted wanted: RampRequest) {
    guard request != seen else { return }
    seen = request
    goal = wanted.target
    if wanted.frames == 0 {
      value = goal
      remaining = 0
    } else {
      remaining = Int(wanted.frames)
      step = (goal - value) / Float(remaining)
    }
  }

  /// Whether the value still moves.
  var isMoving: Bool { remaining > 0 }

  /// The value after `frames` more frames (linear, landing exactly on the goal).
  @inline(__always)
  package mutating func advance(frames: Int) -> Float {
    guard remaining > 0 else { return value }
    if frames >= remaining {
      remaining = 0
      value = goal
    } else {
      remaining -= frames
      value += step * Float(frames)
    }
    return value
  }
}
