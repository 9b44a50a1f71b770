internal import CSDL2Mixer
import Dispatch
import Synchronization

/// The per-sample gain stage on one mixer channel: volume, pan, and every de-click ramp.
///
/// SDL_mixer's own volume and fades change once per buffer and pop; this stage moves the gain by
/// at most `rampStep` per sample frame towards its target, so stops, pauses, steals and volume
/// changes are all smooth. It is registered with `Mix_RegisterEffect` before each play.
///
/// Invariant (why `@unchecked Sendable` holds): targets and the ramp step are atomics written by
/// the audio queue; `currentLeft`/`currentRight` are touched only by SDL's audio thread inside the
/// effect, except in ``reset(left:right:)``, which the queue calls only while the channel is not
/// playing (so the effect cannot run), before `Mix_PlayChannel` takes SDL's audio lock.
final class ChannelGain: @unchecked Sendable {
  private let targetLeft = Atomic<UInt32>(Float(1).bitPattern)
  private let targetRight = Atomic<UInt32>(Float(1).bitPattern)
  private let rampStep: Atomic<UInt32>
  private let silent = Atomic<Bool>(false)
  private let played = Atomic<Int>(0)
  /// When the effect first ran after the last reset (uptime ns; 0 until then): the latency figure.
  let firstMixedAt = Atomic<UInt64>(0)
  private var currentLeft: Float = 1
  private var currentRight: Float = 1
  private let isFloat: Bool
  private let channelCount: Int
  let defaultStep: Float

  init(isFloat: Bool, channelCount: Int, defaultStep: Float) {
    self.isFloat = isFloat
    self.channelCount = channelCount
    self.defaultStep = defaultStep
    rampStep = Atomic(defaultStep.bitPattern)
  }

  /// Whether the gain has reached zero with a zero target: a pending halt or pause may go ahead.
  var isSilent: Bool { silent.load(ordering: .acquiring) }

  /// Sample frames this channel has mixed since the last ``reset(left:right:)``: where the play
  /// has got to, so a voice can be restored at the same place after the device is reopened.
  var playedFrames: Int { played.load(ordering: .acquiring) }

  /// Sets the gains a new play starts at (no ramp: a sound's own attack is its start).
  func reset(left: Float, right: Float) {
    currentLeft = left
    currentRight = right
    played.store(0, ordering: .releasing)
    firstMixedAt.store(0, ordering: .releasing)
    setTarget(left: left, right: right, step: defaultStep)
  }

  /// Moves the gain towards new targets at `step` per sample frame.
  func setTarget(left: Float, right: Float, step: Float) {
    rampStep.store(step.bitPattern, ordering: .relaxed)
    targetLeft.store(left.bitPattern, ordering: .relaxed)
    targetRight.store(right.bitPattern, ordering: .relaxed)
    silent.store(false, ordering: .releasing)
  }

  /// Called by SDL's audio thread with this channel's samples, before they are mixed.
  func process(_ stream: UnsafeMutableRawPointer, byteCount: Int) {
    let goalLeft = Float(bitPattern: targetLeft.load(ordering: .relaxed))
    let goalRight = Float(bitPattern: targetRight.load(ordering: .relaxed))
    let step = Float(bitPattern: rampStep.load(ordering: .relaxed))
    if isFloat {
      let samples = stream.bindMemory(to: Float.self, capacity: byteCount / 4)
      apply(samples, count: byteCount / 4, goalLeft, goalRight, step) {
        $0
      } store: {
        $0
      }
    } else {
      let samples = stream.bindMemory(to: Int16.self, capacity: byteCount / 2)
      apply(samples, count: byteCount / 2, goalLeft, goalRight, step) {
        Float($0)
      } store: {
        Int16(max(-32768, min(32767, $0)))
      }
    }
    if played.add(byteCount / ((isFloat ? 4 : 2) * channelCount), ordering: .releasing).oldValue == 0 {
      firstMixedAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
    }
    silent.store(
      currentLeft == 0 && currentRight == 0 && goalLeft == 0 && goalRight == 0, ordering: .releasing)
  }

  @inline(__always)
  private func apply<Sample>(
    _ samples: UnsafeMutablePointer<Sample>, count: Int, _ goalLeft: Float, _ goalRight: Float,
    _ step: Float, load: (Sample) -> Float, store: (Float) -> Sample
  ) {
    let frames = count / channelCount
    var left = currentLeft
    var right = currentRight
    if left == goalLeft && right == goalRight {
      // Steady state: unity gain costs nothing; otherwise one multiply per sample.
      if left == 1 && right == 1 { return }
      for frame in 0..<frames {
        let base = frame * channelCount
        samples[base] = store(load(samples[base]) * left)
        if channelCount > 1 { samples[base + 1] = store(load(samples[base + 1]) * right) }
        for extra in stride(from: 2, to: channelCount, by: 1) {
          samples[base + extra] = store(load(samples[base + extra]) * (left + right) * 0.5)
        }
      }
      return
    }
    for frame in 0..<frames {
      left += max(-step, min(step, goalLeft - left))
      right += max(-step, min(step, goalRight - right))
      let base = frame * channelCount
      samples[base] = store(load(samples[base]) * left)
      if channelCount > 1 { samples[base + 1] = store(load(samples[base + 1]) * right) }
      for extra in stride(from: 2, to: channelCount, by: 1) {
        samples[base + extra] = store(load(samples[base + extra]) * (left + right) * 0.5)
      }
    }
    currentLeft = left
    currentRight = right
  }
}

/// The C entry point SDL_mixer calls for each playing channel's buffer; `userData` is the
/// channel's ``ChannelGain``, kept alive by the mixer core until the device is closed.
let channelGainEffect: Mix_EffectFunc_t = { _, stream, length, userData in
  guard let stream, let userData, length > 0 else { return }
  Unmanaged<ChannelGain>.fromOpaque(userData).takeUnretainedValue()
    .process(stream, byteCount: Int(length))
}
