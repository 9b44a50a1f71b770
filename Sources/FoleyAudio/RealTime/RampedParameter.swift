import FoleyCore
import Synchronization

/// A parameter the game sets and the mixing thread follows, tweened: the target (a `Float`), the
/// frames to reach it over, the easing and the frame of the mix's clock it starts on travel
/// together in one 128-bit atomic, so the mixing thread never sees a target with another
/// request's duration or start. Lock-free in both directions (`cmpxchg16b`); the game thread
/// never waits for the mix.
struct RampRequest: Equatable, Sendable {
  package var target: Float
  /// Frames over which to arrive; 0 arrives at once.
  package var frames: UInt32
  package var easing: Easing
  /// The frame of the mix's clock it starts on; 0 starts at the next block.
  package var start: UInt64

  package init(target: Float, frames: UInt32, easing: Easing = .linear, start: UInt64 = 0) {
    self.target = target
    self.frames = frames
    self.easing = easing
    self.start = min(start, Self.latestStart)
  }

  package init(packed: WordPair) {
    target = Float(bitPattern: UInt32(truncatingIfNeeded: packed.first >> 32))
    frames = UInt32(truncatingIfNeeded: packed.first)
    easing = Easing.decoded(UInt16(truncatingIfNeeded: packed.second))
    start = UInt64(packed.second >> 16)
  }

  /// The latest start a request carries (48 bits of frames: millennia at any rate).
  static let latestStart = UInt64(1) << 48 - 1

  var packed: WordPair {
    WordPair(
      first: UInt(UInt64(target.bitPattern) << 32 | UInt64(frames)),
      second: UInt(start << 16 | UInt64(easing.bits)))
  }

  /// The request a tween makes of a value: to `target` over the tween's duration at `sampleRate`
  /// (at least `minimumFrames`), along its easing, from its start.
  init(target: Float, tween: Tween, sampleRate: Int, minimumFrames: Int = 0) {
    let frames = max(minimumFrames, Int((tween.usableDuration * Double(sampleRate)).rounded()))
    let start: UInt64 =
      switch tween.start {
      case .now: 0
      case .frame(let frame): UInt64(max(0, frame.index))
      }
    self.init(target: target, frames: UInt32(clamping: frames), easing: tween.easing, start: start)
  }
}

/// Where a ``RampRequest`` waits for the mixing thread: the request in one 128-bit atomic, and a
/// generation that changes with every store. The mix reads the generation (one plain load) each
/// block and the pair (a `cmpxchg16b`) only when it changed; a store pairs the two in that order,
/// so the pair read is the newest, whole. A voice never shaped since it was last recycled costs
/// its recycling plain loads only.
struct RampCell: ~Copyable, @unchecked Sendable {
  private let pair: Atomic<WordPair>
  let generation = Atomic<UInt64>(0)
  private let resting = Atomic<Bool>(true)
  /// The request of a value left alone (rate 1, an open filter, no send).
  let rest: WordPair

  init(_ rest: WordPair) {
    pair = Atomic(rest)
    self.rest = rest
  }

  func store(_ value: WordPair) {
    pair.store(value, ordering: .relaxed)
    resting.store(value == rest, ordering: .relaxed)
    generation.add(1, ordering: .releasing)
  }

  /// The request now (game thread, queue; the mix only when the generation moved).
  var value: WordPair { pair.load(ordering: .acquiring) }

  /// Whether the last request stored was the resting one (one plain load).
  var isAtRest: Bool { resting.load(ordering: .relaxed) }

  /// Back to rest, for a voice made new; nothing to do (plain loads) if never stored since.
  func reset() {
    guard generation.load(ordering: .relaxed) != 0 else { return }
    pair.store(rest, ordering: .relaxed)
    resting.store(true, ordering: .relaxed)
    generation.store(0, ordering: .releasing)
  }
}

/// The mixing thread's side of one tweened parameter: the stretch it moves along, the request
/// waiting for its frame, and where it stands.
///
/// Its time is the frames it has been advanced by (a voice's rate moves with the frames the voice
/// plays); the mix's clock is used once, when a request is taken, to turn the frame it starts on
/// into frames still to wait.
struct RampFollower {
  /// The value where the follower stands (after the last ``advance(frames:)``).
  package private(set) var value: Float
  private var from: Float
  private var goal: Float
  private var start: UInt64 = 0
  private var frames = 0
  private var easing = Easing.linear
  /// A request for a later frame, and the position it starts on, taken when the follower gets there.
  private var waiting: RampRequest?
  private var waitingStart: UInt64 = 0
  private var seen: WordPair
  /// The generation of the cell last looked at (`UInt64.max`: look at it).
  private var seenGeneration = UInt64.max
  /// Frames advanced so far.
  private var position: UInt64 = 0

  package init(value: Float, request: WordPair) {
    self.value = value
    from = value
    goal = value
    seen = request
  }

  /// Starts over at `value` (a new voice on the lane), already following `request`.
  package mutating func reset(to value: Float, request: WordPair) {
    self = RampFollower(value: value, request: request)
  }

  /// Takes up the cell's new request if there is one (its pair read only when its generation
  /// moved); `clock` is the frame of the mix's clock the next ``advance(frames:)`` starts from.
  @inline(__always)
  package mutating func follow(_ cell: borrowing RampCell, at clock: UInt64) {
    let generation = cell.generation.load(ordering: .acquiring)
    guard generation != seenGeneration else { return }
    seenGeneration = generation
    follow(cell.value, at: clock)
  }

  /// Whether `cell` has moved since this follower last looked (one plain load), for a caller
  /// that converts the request before following it.
  @inline(__always)
  mutating func takesGeneration(of cell: borrowing RampCell) -> Bool {
    let generation = cell.generation.load(ordering: .acquiring)
    guard generation != seenGeneration else { return false }
    seenGeneration = generation
    return true
  }

  /// Takes up a new request if there is one; `clock` is the frame of the mix's clock the next
  /// ``advance(frames:)`` starts from.
  @inline(__always)
  package mutating func follow(_ request: WordPair, at clock: UInt64) {
    guard request != seen else { return }
    follow(request, converted: RampRequest(packed: request), at: clock)
  }

  /// Takes up `request`, if new, as `wanted` (its duration converted to frames).
  @inline(__always)
  package mutating func follow(_ request: WordPair, converted wanted: RampRequest, at clock: UInt64) {
    guard request != seen else { return }
    seen = request
    if wanted.start > clock {
      waiting = wanted  // replaces one already waiting
      waitingStart = position &+ (wanted.start - clock)
    } else {
      waiting = nil
      begin(wanted, on: position)
    }
  }

  private mutating func begin(_ request: RampRequest, on frame: UInt64) {
    from = value(at: frame)
    goal = request.target
    start = frame
    frames = Int(request.frames)
    easing = request.easing
    if frames == 0 { from = goal }
    value = from
  }

  @inline(__always)
  private func value(at frame: UInt64) -> Float {
    guard from != goal else { return goal }
    if frame <= start { return from }
    let elapsed = frame &- start
    if elapsed >= UInt64(frames) { return goal }
    return from + (goal - from) * Float(easing.apply(Double(elapsed) / Double(frames)))
  }

  /// Whether the value still moves (or waits to).
  var isMoving: Bool {
    waiting != nil || (from != goal && position < start &+ UInt64(frames))
  }

  /// The value after `frames` more frames, along the easing, landing exactly on the goal; a
  /// request waiting for a frame inside them starts on it.
  @inline(__always)
  package mutating func advance(frames count: Int) -> Float {
    let end = position &+ UInt64(max(0, count))
    if let waiting, waitingStart <= end {
      self.waiting = nil
      begin(waiting, on: waitingStart)
    }
    position = end
    value = value(at: end)
    return value
  }
}
