import Dispatch

/// The gain stage's side of the one-pass mix (`VoiceMixer+Direct.swift`): the gains a lane's
/// block is summed with, and what the stage records of a block it did not scale itself.
extension ChannelGain {
  /// The gains for the one-pass mix: held, or ramping towards an audible pair. Nil when both
  /// goals are zero (a stop or a pause: ``process(_:byteCount:sourceFrames:)`` counts the muted
  /// frames the queue waits for). Mixing thread only.
  @inline(__always)
  var directGain: DirectGain? {
    let (goalLeft, goalRight, step) = goal
    // A level at zero, or a pan tween, takes the full path (``sweepPan(_:frames:step:)``); a
    // moving level over a held pair is summed with its gains frame by frame.
    guard !panSweeping, goalLeft != 0 || goalRight != 0 else { return nil }
    if levelMoving {
      guard currentLeft == goalLeft, currentRight == goalRight else { return nil }
      return .levelled(left: goalLeft, right: goalRight)
    }
    guard heldLevel > 0 else { return nil }
    let level = heldLevel
    if currentLeft == goalLeft, currentRight == goalRight {
      return .held(left: goalLeft * level, right: goalRight * level)
    }
    guard
      let base = StereoRamp(
        fromLeft: currentLeft, fromRight: currentRight, toLeft: goalLeft, toRight: goalRight, step: step)
    else { return nil }
    guard level != 1 else { return .ramp(base) }
    directBase = base
    return StereoRamp(
      fromLeft: currentLeft * level, fromRight: currentRight * level, toLeft: goalLeft * level,
      toRight: goalRight * level, step: step * level
    )
    .map(DirectGain.ramp)
  }

  /// What ``process(_:byteCount:sourceFrames:)`` records of a block the one-pass mix scaled by
  /// `ramp` over `frames` frames.
  @inline(__always)
  func account(_ ramp: StereoRamp, frames: Int, sourceFrames: Int) {
    // The gain tracked is the one before the level: the ramp the level did not scale.
    (currentLeft, currentRight) = (heldLevel == 1 ? ramp : directBase ?? ramp).reached(after: frames)
    reachedLeft.store(currentLeft.bitPattern, ordering: .relaxed)
    reachedRight.store(currentRight.bitPattern, ordering: .relaxed)
    account(sourceFrames: sourceFrames)
  }

  /// What ``process(_:byteCount:sourceFrames:)`` records of a block the one-pass mix scaled at
  /// held gains.
  @inline(__always)
  func account(sourceFrames: Int) {
    if played.add(sourceFrames, ordering: .releasing).oldValue == 0, sourceFrames > 0 {
      firstMixedAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
    }
  }
}

/// How the one-pass mix scales a lane's block: at steady gains, or along a de-click ramp.
enum DirectGain {
  case held(left: Float, right: Float)
  case ramp(StereoRamp)
  /// A held pair under a moving level (a tween, modulators): the gains of each frame, worked out
  /// by ``ChannelGain/levelledGains(into:frames:left:right:)``.
  case levelled(left: Float, right: Float)
}
