import Dispatch
import FoleyCore
import Synchronization

/// The per-sample gain stage on one mixer channel: the voice's volume and pan, its category bus,
/// the session's ducking, and every de-click ramp, folded into one left and one right gain.
///
/// SDL_mixer's own volume and fades change once per buffer and pop; this stage moves the gain by
/// at most `step` per sample frame towards its target, so stops, pauses, steals, volume changes
/// and bus moves are all smooth. The ``VoiceMixer`` runs it on each lane's block before the sum.
///
/// When a ramp towards zero arrives, it raises the engine's ``WakeSignal`` once, so the queue can
/// halt or pause the channel at once instead of polling.
///
/// Invariant (why `@unchecked Sendable` holds): targets and the ramp step are atomics written by
/// the audio queue; `currentLeft`/`currentRight` and the follow state are touched only by the
/// mixing thread inside ``follow(_:)`` and ``process(_:byteCount:sourceFrames:)``, except in
/// ``reset(left:right:)``, which the queue calls only while the channel is not playing (so the
/// effect cannot run), before the play takes the audio lock.
package final class ChannelGain: @unchecked Sendable {
  private let targetLeft = Atomic<UInt32>(Float(1).bitPattern)
  private let targetRight = Atomic<UInt32>(Float(1).bitPattern)
  private let rampStep: Atomic<UInt32>
  private let silent = Atomic<Bool>(false)
  /// Whether the channel is stopping along its level (an eased stop): silent once the level
  /// holds at zero. Set by the queue; cleared with every new target.
  let stopsWithLevel = Atomic<Bool>(false)
  let played = Atomic<Int>(0)
  /// Frames mixed at zero gain, heading for zero, since the target last changed.
  private let mutedFrames = Atomic<Int>(0)
  /// The gains reached at the end of the last buffer, published for the queue.
  let reachedLeft = Atomic<UInt32>(Float(1).bitPattern)
  let reachedRight = Atomic<UInt32>(Float(1).bitPattern)
  /// When the effect first ran after the last reset (uptime ns; 0 until then): the latency figure.
  let firstMixedAt = Atomic<UInt64>(0)
  var currentLeft: Float = 1
  var currentRight: Float = 1
  /// The queue's writes of a target so far (``setTarget(left:right:step:)``): once the mix stops
  /// following a voice's placements, it keeps the last followed goal until the queue has written
  /// a target of its own.
  let targetWrites = Atomic<UInt32>(0)
  /// Mixing thread only: whether this block follows the voice's placement (``follow(_:)``), the
  /// goal and step it follows, the voice's placement writes taken, and the queue's target writes
  /// when following began.
  private var isFollowing = false
  private var followLeft: Float = 0
  private var followRight: Float = 0
  private var followStep: Float = 0
  private var followWritesTaken: UInt32 = 0
  private var targetWritesWhenFollowing: UInt32 = 0
  /// The voice's volume, a level over the gain above (`ChannelGain+Level.swift`): the queue's
  /// commands in a ring (one writer, one reader), the tweens waiting for their frame, and the one
  /// under way (mixing thread only).
  let levelCommands = UnsafeMutablePointer<LevelCommand>.allocate(capacity: ChannelGain.levelRingCapacity)
  let levelWritten = Atomic<Int>(0)
  let levelRead = Atomic<Int>(0)
  /// The count of level commands taken when the mix last found the level held at zero, nothing
  /// waiting (-1: not since the last reset): the voice's own volume has faded out once this
  /// equals ``levelWritten``. Written by the mixing thread only.
  let levelSilentAt = Atomic<Int>(-1)
  let upcoming = UnsafeMutablePointer<LevelCommand>.allocate(capacity: ChannelGain.upcomingCapacity)
  var upcomingCount = 0
  var levelFrom: Float = 1
  var levelTo: Float = 1
  var levelStart: UInt64 = 0
  var levelFrames = 0
  var levelCurve = Easing.linear
  /// This block's first frame, whether the level moves in it, and the level it holds if not.
  var blockClock: UInt64 = 0
  var levelMoving = false
  var heldLevel: Float = 1
  /// The voice's modulators (`ChannelGain+Modulators.swift`), set by the queue while the lane
  /// is not mixed or under the audio lock, and the engine's parameters they may read.
  let modulators = UnsafeMutablePointer<ModulatorSlot>.allocate(capacity: ChannelGain.modulatorCapacity)
  var modulatorCount = 0
  let parameters: ParameterTable
  /// The modulators' gain on the grid point `modulationFrame` and on the next (mixing thread).
  var modulationFrame = UInt64.max
  var modulationGain: Float = 1
  var modulationEnd: Float = 1
  /// The voice's pan tweens (`ChannelGain+Pan.swift`): the queue's commands in a ring (one
  /// writer, one reader) and the end of the last tween it asked for (queue only); the context,
  /// the target write it is bound to, the stretch under way and those waiting for their frame, and whether
  /// this block sweeps (mixing thread only).
  let panCommands = UnsafeMutablePointer<PanCommand>.allocate(capacity: ChannelGain.panRingCapacity)
  let panWritten = Atomic<Int>(0)
  let panRead = Atomic<Int>(0)
  var panTweenEnd: UInt64 = 0
  var panContext = PanContext()
  var panBound: UInt32 = 0
  var panCurrent: PanTrack?
  let panUpcoming = UnsafeMutablePointer<PanTrack>.allocate(capacity: ChannelGain.panUpcomingCapacity)
  var panWaiting = 0
  var panSweeping = false
  /// The direct path's ramp before the level scaled it, to account the block by.
  var directBase: StereoRamp?
  let isFloat: Bool
  let channelCount: Int
  private let bytesPerFrame: Int
  let wake: WakeSignal
  let defaultStep: Float

  package init(
    isFloat: Bool, channelCount: Int, defaultStep: Float, wake: WakeSignal, parameters: ParameterTable
  ) {
    self.parameters = parameters
    modulators.initialize(repeating: ModulatorSlot(), count: ChannelGain.modulatorCapacity)
    panUpcoming.initialize(
      repeating: PanTrack(from: 0, to: 0, start: 0, frames: 1, curve: .linear),
      count: ChannelGain.panUpcomingCapacity)
    panCommands.initialize(repeating: PanCommand(context: nil, bound: 0), count: ChannelGain.panRingCapacity)
    self.isFloat = isFloat
    self.channelCount = channelCount
    self.bytesPerFrame = (isFloat ? 4 : 2) * channelCount
    self.defaultStep = defaultStep
    self.wake = wake
    rampStep = Atomic(defaultStep.bitPattern)
  }

  deinit {
    levelCommands.deallocate()
    upcoming.deallocate()
    modulators.deallocate()
    panCommands.deallocate()
    panUpcoming.deallocate()
  }

  /// Whether the gain has reached zero with a zero target: a pending halt or pause may go ahead.
  package var isSilent: Bool { silent.load(ordering: .acquiring) }

  /// Whether the voice's own volume (the level) has reached zero and holds there, with every
  /// command the queue gave it taken: a voice tweened to silence is heard until then. Queue.
  var isLevelSilent: Bool {
    levelSilentAt.load(ordering: .acquiring) == levelWritten.load(ordering: .relaxed)
  }

  /// Sample frames this channel has mixed since the last ``reset(left:right:)``: where the play
  /// has got to, so a voice can be restored at the same place after the device is reopened.
  var playedFrames: Int { played.load(ordering: .acquiring) }

  /// Frames the channel has mixed silent since its ramp to zero reached zero: a paused stream
  /// gives these back, so it resumes at the first sample that was not heard.
  var framesMutedSinceSilent: Int { mutedFrames.load(ordering: .acquiring) }

  /// The gains the mix had reached at the end of its last buffer (where a new ramp starts from).
  package var current: (left: Float, right: Float) {
    (
      Float(bitPattern: reachedLeft.load(ordering: .relaxed)),
      Float(bitPattern: reachedRight.load(ordering: .relaxed))
    )
  }

  /// The gains a ramp is heading for.
  package var target: (left: Float, right: Float) {
    (
      Float(bitPattern: targetLeft.load(ordering: .relaxed)),
      Float(bitPattern: targetRight.load(ordering: .relaxed))
    )
  }

  /// Sets the gains a new play starts at (no ramp: a sound's own attack is its start).
  package func reset(left: Float, right: Float) {
    currentLeft = left
    currentRight = right
    isFollowing = false
    reachedLeft.store(left.bitPattern, ordering: .relaxed)
    reachedRight.store(right.bitPattern, ordering: .relaxed)
    played.store(0, ordering: .releasing)
    firstMixedAt.store(0, ordering: .releasing)
    resetPan()
    setTarget(left: left, right: right, step: defaultStep)
  }

  /// Sets the level (the voice's volume) a new play starts at, with no ramp; like
  /// ``reset(left:right:)``, only while the channel is not playing.
  func resetLevel(_ value: Float) {
    levelRead.store(levelWritten.load(ordering: .acquiring), ordering: .releasing)
    levelSilentAt.store(value == 0 ? levelWritten.load(ordering: .relaxed) : -1, ordering: .releasing)
    upcomingCount = 0
    levelFrom = value
    levelTo = value
    levelStart = 0
    levelFrames = 0
    levelMoving = false
    heldLevel = value
  }

  /// Moves the gain towards new targets at `step` per sample frame.
  func setTarget(left: Float, right: Float, step: Float) {
    rampStep.store(step.bitPattern, ordering: .relaxed)
    targetLeft.store(left.bitPattern, ordering: .relaxed)
    targetRight.store(right.bitPattern, ordering: .relaxed)
    mutedFrames.store(0, ordering: .relaxed)
    stopsWithLevel.store(false, ordering: .relaxed)
    silent.store(false, ordering: .releasing)
    targetWrites.wrappingAdd(1, ordering: .releasing)
  }

  /// Takes `voice`'s newest placement as this block's goal while the queue lets the mix follow
  /// it (see `Voice+Following.swift`), gliding from where the gain stands over the frames the
  /// game asked; called on the mixing thread before the block is scaled.
  @inline(__always)
  func follow(_ voice: Voice) {
    if voice.follows.load(ordering: .acquiring) {
      if !isFollowing {
        isFollowing = true
        targetWritesWhenFollowing = targetWrites.load(ordering: .acquiring)
        followWritesTaken = voice.followWrites.load(ordering: .acquiring) &- 1
      }
      let writes = voice.followWrites.load(ordering: .acquiring)
      guard writes != followWritesTaken else { return }
      followWritesTaken = writes
      let glide = Float(max(1, voice.followGlide.load(ordering: .relaxed)))
      (followLeft, followRight) = voice.followedGains()
      followStep = max(max(abs(followLeft - currentLeft), abs(followRight - currentRight)) / glide, 1e-7)
    } else if isFollowing, targetWrites.load(ordering: .acquiring) != targetWritesWhenFollowing {
      isFollowing = false
    }
  }

  /// This block's goal and step: the followed placement's, or the queue's target.
  @inline(__always)
  var goal: (left: Float, right: Float, step: Float) {
    if isFollowing { return (followLeft, followRight, followStep) }
    return (
      Float(bitPattern: targetLeft.load(ordering: .relaxed)),
      Float(bitPattern: targetRight.load(ordering: .relaxed)),
      Float(bitPattern: rampStep.load(ordering: .relaxed))
    )
  }

  /// Called on the mixing thread with this channel's samples, before they are mixed;
  /// `sourceFrames` is how far the voice moved in its sound (more or less than the frames mixed
  /// when its playback rate is not 1).
  package func process(_ stream: UnsafeMutableRawPointer, byteCount: Int, sourceFrames: Int) {
    let (goalLeft, goalRight, step) = goal
    let frames = byteCount / bytesPerFrame
    // Frames before the gain settled on its target (all of them while ramping).
    let ramped: Int
    if panSweeping {
      ramped = sweepPan(stream, frames: frames, step: step)
    } else if isFloat {
      let samples = stream.assumingMemoryBound(to: Float.self)
      if channelCount == 2, currentLeft == goalLeft, currentRight == goalRight {
        scaleStereo(samples, frames: frames, left: goalLeft, right: goalRight)
        ramped = 0
      } else if channelCount == 2,
        let ramp = StereoRamp(
          fromLeft: currentLeft, fromRight: currentRight, toLeft: goalLeft, toRight: goalRight, step: step)
      {
        ramp.scale(samples, frames: frames)
        ramped = ramp.framesMoving(within: frames)
        (currentLeft, currentRight) = ramp.reached(after: frames)
      } else {
        ramped = apply(samples, frames: frames, goalLeft, goalRight, step)
      }
    } else {
      ramped = apply(stream.assumingMemoryBound(to: Int16.self), frames: frames, goalLeft, goalRight, step)
    }
    applyLevel(stream, frames: frames)
    reachedLeft.store(currentLeft.bitPattern, ordering: .relaxed)
    reachedRight.store(currentRight.bitPattern, ordering: .relaxed)
    if goalLeft == 0 && goalRight == 0 && currentLeft == 0 && currentRight == 0 {
      // The ramp's last frame was already scaled to zero: it counts as muted too.
      mutedFrames.add(frames - max(0, ramped - 1), ordering: .relaxed)
    }
    if played.add(sourceFrames, ordering: .releasing).oldValue == 0, sourceFrames > 0 {
      firstMixedAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
    }
    let levelAtZero =
      !levelMoving && heldLevel == 0 && upcomingCount == 0 && stopsWithLevel.load(ordering: .relaxed)
    if (currentLeft == 0 && currentRight == 0 && goalLeft == 0 && goalRight == 0) || levelAtZero,
      !silent.exchange(true, ordering: .acquiringAndReleasing)
    {
      wake.signal()
    }
    noteLevelFadedOut(frames: frames)
  }

  /// Ramps and scales; returns the frames it took the ramp to reach the target.
  @discardableResult
  func apply<Sample: GainSample>(
    _ samples: UnsafeMutablePointer<Sample>, frames: Int, _ goalLeft: Float, _ goalRight: Float, _ step: Float
  ) -> Int {
    var left = currentLeft
    var right = currentRight
    var frame = 0
    // Ramp while either side is moving…
    while frame < frames && (left != goalLeft || right != goalRight) {
      left += max(-step, min(step, goalLeft - left))
      right += max(-step, min(step, goalRight - right))
      scale(samples + frame * channelCount, left, right)
      frame += 1
    }
    currentLeft = left
    currentRight = right
    let ramped = frame
    // …then hold: unity gain costs nothing, otherwise one multiply per sample.
    guard frame < frames, left != 1 || right != 1 else { return ramped }
    if channelCount == 2 {
      let base = samples + frame * 2
      for index in 0..<(frames - frame) {
        base[2 * index] = Sample(scaling: base[2 * index], by: left)
        base[2 * index + 1] = Sample(scaling: base[2 * index + 1], by: right)
      }
    } else {
      for index in frame..<frames { scale(samples + index * channelCount, left, right) }
    }
    return ramped
  }

  /// The steady state of the common case (float, stereo, no ramp), eight samples at a time.
  func scaleStereo(_ samples: UnsafeMutablePointer<Float>, frames: Int, left: Float, right: Float) {
    guard left != 1 || right != 1 else { return }
    let count = frames * 2
    let gains = SIMD8<Float>(left, right, left, right, left, right, left, right)
    let raw = UnsafeMutableRawPointer(samples)
    var index = 0
    while index &+ 8 <= count {
      let scaled = raw.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self) * gains
      raw.storeBytes(of: scaled, toByteOffset: index &* 4, as: SIMD8<Float>.self)
      index &+= 8
    }
    while index < count {
      samples[index] *= index & 1 == 0 ? left : right
      index += 1
    }
  }

  @inline(__always)
  private func scale<Sample: GainSample>(_ frame: UnsafeMutablePointer<Sample>, _ left: Float, _ right: Float)
  {
    frame[0] = Sample(scaling: frame[0], by: left)
    guard channelCount > 1 else { return }
    frame[1] = Sample(scaling: frame[1], by: right)
    // Channels beyond front left and right (surround layouts) take the average of the two.
    for extra in stride(from: 2, to: channelCount, by: 1) {
      frame[extra] = Sample(scaling: frame[extra], by: (left + right) * 0.5)
    }
  }
}

/// A sample type the gain stage can scale.
protocol GainSample {
  init(scaling sample: Self, by gain: Float)
}

extension Float: GainSample {
  @inline(__always) package init(scaling sample: Float, by gain: Float) { self = sample * gain }
}

extension Int16: GainSample {
  @inline(__always) package init(scaling sample: Int16, by gain: Float) {
    self = Int16(Swift.max(-32_768, Swift.min(32_767, Float(sample) * gain)))
  }
}
