import FoleyCore
import Foundation
import Synchronization

/// How the mix works out a voice's gains from its pan while a pan tween runs: the gain without
/// the pan (`magnitude`: the volumes, the bus, the placement's distance gain), the pan the voice's
/// own pan is added to (`base`: the sound's pan and the placement's), the pan law and whether the
/// output is mono. The queue computes them as `MixerCore.gainPair(for:)` does.
struct PanContext: Equatable {
  var magnitude: Float = 0
  var base: Float = 0
  var law: UInt8 = 0

  /// The ``law`` bits: constant power (a placed mono source; a balance law otherwise), and
  /// mono output (both ears at the pair's power average).
  static let constantPower: UInt8 = 1
  static let monoOutput: UInt8 = 2

  /// The left and right gains with the voice's pan at `pan`.
  @inline(__always)
  func gains(pan: Float) -> (left: Float, right: Float) {
    let heard = min(max(base + pan, -1), 1)
    var left: Float
    var right: Float
    if law & Self.constantPower != 0 {
      let angle = (heard + 1) * Float.pi / 4
      left = cos(angle)
      right = sin(angle)
    } else {
      left = min(1, 1 - heard)
      right = min(1, 1 + heard)
    }
    left *= magnitude
    right *= magnitude
    guard law & Self.monoOutput != 0 else { return (left, right) }
    let centred = ((left * left + right * right) / 2).squareRoot()
    return (centred, centred)
  }
}

/// One stretch of a voice's pan: from `from` to `to` over `frames` frames along `curve`, from
/// frame `start` of the mix's clock.
struct PanTrack {
  var from: Float
  var to: Float
  var start: UInt64
  var frames: Int
  var curve: Easing

  var end: UInt64 { start &+ UInt64(frames) }

  @inline(__always)
  func value(at frame: UInt64) -> Float {
    if frame <= start { return from }
    let elapsed = frame &- start
    if elapsed >= UInt64(frames) { return to }
    return from + (to - from) * Float(curve.apply(Double(elapsed) / Double(frames)))
  }
}

/// What the queue tells the mix of a pan tween: a new stretch (`frames > 0`: to `target` from
/// `start`, `UInt64.max` for the next block, starting from where the pan stands then, or from
/// `previous` when no tween is under way), or only a new context, bound to the queue's next
/// target write (``ChannelGain/setTarget(left:right:step:)``).
struct PanCommand {
  var context: PanContext?
  var bound: UInt32
  var target: Float = 0
  var previous: Float = 0
  var frames = 0
  var shape: UInt16 = 0
  var start: UInt64 = .max
}

/// A voice's pan tweened on the mixing thread (``Voice/setPan(_:tween:)``).
///
/// The pan is inside the gain pair the queue targets (with the volumes, the bus and the
/// placement), and a pan law is not a product, so a tween cannot be a level over that pair as
/// the volume is. Instead, while a pan tween runs, the mix works the pair out itself every 32
/// frames from the tween's value and a ``PanContext`` the queue gives it, and ramps linearly in
/// between. The context is bound to the queue's target write that came with it: any other
/// target the queue writes (a pause, a stop, a voice budget's silence) wins, and a later
/// retarget hands the tween a new context, so buses, placements and sessions compose with it.
/// Past the tween's end the queue's own target, computed for the tween's target pan, takes
/// over where the tween arrived.
extension ChannelGain {
  static let panRingCapacity = 8
  static let panUpcomingCapacity = 4

  /// Asks the mix to move the voice's pan to `target` over `frames` frames along `easing`, from
  /// `start` (`UInt64.max`: the next block), starting from where the pan stands then, or from
  /// `previous` (the pan before this tween) when none runs. Audio queue only; the context
  /// comes with the retarget that follows (``retargetPan(_:)``). `mixed` is the mix's clock.
  @discardableResult
  func tweenPan(
    to target: Float, previous: Float, frames: Int, easing: Easing, start: UInt64, mixed: UInt64
  ) -> Bool {
    let command = PanCommand(
      context: nil, bound: targetWrites.load(ordering: .relaxed) &+ 1, target: target, previous: previous,
      frames: max(1, frames), shape: easing.bits, start: start)
    guard post(command) else { return false }
    panTweenEnd = max(panTweenEnd, (start == .max ? mixed : max(start, mixed)) &+ UInt64(frames))
    return true
  }

  /// Ends any pan tween: the pan was set at once, and the queue's next target is where it is.
  /// Audio queue only.
  func cancelPanTween() {
    guard panTweenEnd > 0 else { return }
    panTweenEnd = 0
    post(PanCommand(context: nil, bound: targetWrites.load(ordering: .relaxed), frames: -1))
  }

  /// Hands a running pan tween the context of the target the queue writes next. Audio queue
  /// only, just before that write; nothing when no pan tween may still be running.
  func retargetPan(_ context: PanContext, mixed: UInt64) {
    guard panTweenEnd > mixed else { return }
    post(PanCommand(context: context, bound: targetWrites.load(ordering: .relaxed) &+ 1))
  }

  /// Whether a pan tween may still be running (audio queue): the mix does not follow such a
  /// voice's placements itself.
  func mayTweenPan(mixed: UInt64) -> Bool { panTweenEnd > mixed }

  @discardableResult
  private func post(_ command: PanCommand) -> Bool {
    let written = panWritten.load(ordering: .relaxed)
    guard written - panRead.load(ordering: .acquiring) < Self.panRingCapacity else { return false }
    panCommands[written % Self.panRingCapacity] = command
    panWritten.store(written + 1, ordering: .releasing)
    return true
  }

  /// Forgets every pan tween: a new play on the channel. Like ``reset(left:right:)``, only while
  /// the channel is not playing.
  func resetPan() {
    panRead.store(panWritten.load(ordering: .acquiring), ordering: .releasing)
    panTweenEnd = 0
    panCurrent = nil
    panWaiting = 0
    panSweeping = false
  }

  /// Takes the queue's pan commands and decides whether this block's gains come from a pan
  /// tween. Mixing thread, once per block, before the gain is used.
  @inline(__always)
  func beginPan(clock: UInt64) {
    let written = panWritten.load(ordering: .acquiring)
    var read = panRead.load(ordering: .relaxed)
    if read != written {
      while read != written {
        takePan(panCommands[read % Self.panRingCapacity], at: clock)
        read += 1
      }
      panRead.store(read, ordering: .releasing)
    }
    guard panCurrent != nil || panWaiting > 0 else {
      panSweeping = false
      return
    }
    if panWaiting == 0, let current = panCurrent, current.end <= clock {
      // Over: the queue's target is the tween's end.
      panCurrent = nil
      panSweeping = false
      return
    }
    panSweeping = panBound == targetWrites.load(ordering: .acquiring)
  }

  private func takePan(_ command: PanCommand, at clock: UInt64) {
    if let context = command.context { panContext = context }
    panBound = command.bound
    if command.frames < 0 {
      panCurrent = nil
      panWaiting = 0
      return
    }
    guard command.frames > 0 else { return }
    let start = command.start == .max ? clock : max(command.start, clock)
    // It replaces whatever was to happen from its start on.
    while panWaiting > 0, panUpcoming[panWaiting - 1].start >= start { panWaiting -= 1 }
    let track = PanTrack(
      from: command.previous, to: command.target, start: start, frames: command.frames,
      curve: Easing.decoded(command.shape))
    if start == clock {
      var begun = track
      begun.from = panValue(at: clock, or: command.previous)
      panCurrent = begun
    } else if panWaiting < Self.panUpcomingCapacity {
      panUpcoming[panWaiting] = track
      panWaiting += 1
    } else {
      panUpcoming[panWaiting - 1] = track  // four waiting: the latest replaces the last
    }
  }

  /// The voice's pan on `frame` by the tweens under way (`fallback` when none), a waiting one
  /// taking over from where the pan stands when its frame comes.
  @inline(__always)
  private func panValue(at frame: UInt64, or fallback: Float) -> Float {
    while panWaiting > 0, frame >= panUpcoming[0].start {
      var begun = panUpcoming[0]
      if let current = panCurrent { begun.from = current.value(at: begun.start) }
      panCurrent = begun
      panWaiting -= 1
      for index in 0..<panWaiting { panUpcoming[index] = panUpcoming[index + 1] }
    }
    if let current = panCurrent { return current.value(at: frame) }
    return panWaiting > 0 ? panUpcoming[0].from : fallback
  }

  /// Scales the block along the pan tween: the pair worked out every ``curveInterval`` frames
  /// (and where a tween starts or ends) and reached linearly in between, each ear at its own
  /// slope; when the gain stands elsewhere (after a pause, say) it approaches the tween at the
  /// queue's step on top of the tween's own. Returns the frames the gain moved in. Mixing thread
  /// only, on a block ``beginPan(clock:)`` found sweeping.
  func sweepPan(_ stream: UnsafeMutableRawPointer, frames: Int, step: Float) -> Int {
    var frame = 0
    var start = blockClock
    var from = panContext.gains(pan: panValue(at: start, or: 0))
    while frame < frames {
      var length = min(Self.curveInterval, frames - frame)
      if panWaiting > 0, panUpcoming[0].start > start {
        length = min(length, Int(panUpcoming[0].start &- start))
      }
      if let current = panCurrent, current.end > start { length = min(length, Int(current.end &- start)) }
      let end = start &+ UInt64(length)
      let to = panContext.gains(pan: panValue(at: end, or: 0))
      let count = Float(length)
      let leftSlope = Self.slope(
        from: currentLeft, to: to.left, over: count, track: (to.left - from.left) / count, step)
      let rightSlope = Self.slope(
        from: currentRight, to: to.right, over: count, track: (to.right - from.right) / count, step)
      if isFloat {
        ramp(stream.assumingMemoryBound(to: Float.self) + frame * channelCount, length, leftSlope, rightSlope)
      } else {
        ramp(stream.assumingMemoryBound(to: Int16.self) + frame * channelCount, length, leftSlope, rightSlope)
      }
      // Exactly on the tween when the slope was not held back (no drift from summing steps).
      if abs(currentLeft - to.left) < abs(leftSlope) { currentLeft = to.left }
      if abs(currentRight - to.right) < abs(rightSlope) { currentRight = to.right }
      from = to
      frame += length
      start = end
    }
    return frames
  }

  /// The per-frame slope from `gain` to `goal` in `frames`, held to the tween's own slope plus
  /// `step`: a gain on the tween follows it exactly; one away from it closes in at `step`.
  @inline(__always)
  private static func slope(
    from gain: Float, to goal: Float, over frames: Float, track: Float, _ step: Float
  )
    -> Float
  {
    let limit = abs(track) + step
    return min(max((goal - gain) / frames, -limit), limit)
  }

  @inline(__always)
  private func ramp<Sample: GainSample>(
    _ samples: UnsafeMutablePointer<Sample>, _ frames: Int, _ leftSlope: Float, _ rightSlope: Float
  ) {
    let width = channelCount
    var left = currentLeft
    var right = currentRight
    for frame in 0..<frames {
      left = max(0, left + leftSlope)
      right = max(0, right + rightSlope)
      let base = frame * width
      samples[base] = Sample(scaling: samples[base], by: left)
      if width > 1 { samples[base + 1] = Sample(scaling: samples[base + 1], by: right) }
      for extra in stride(from: 2, to: width, by: 1) {
        samples[base + extra] = Sample(scaling: samples[base + extra], by: (left + right) * 0.5)
      }
    }
    currentLeft = left
    currentRight = right
  }
}
