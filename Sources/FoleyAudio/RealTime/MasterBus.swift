import Synchronization

/// The last stage of the mix, run by the ``VoiceMixer`` on the float sum of every bus: the
/// master volume (ramped per sample like every other gain) and the look-ahead limiter that keeps
/// the output under its ceiling. Its meter (the deepest gain reduction) is readable from any
/// thread.
///
/// Invariant behind `@unchecked Sendable`: the volume target and the meter are atomics; the
/// limiter and the current volume belong to the mixing thread.
package final class MasterBus: @unchecked Sendable {
  private let targetVolume = Atomic<UInt32>(Float(1).bitPattern)
  private let lastSmallestGain = Atomic<UInt32>(Float(1).bitPattern)
  private let smallestGainSinceReset = Atomic<UInt32>(Float(1).bitPattern)
  private var currentVolume: Float = 1
  /// Mono (1) or stereo (0), and the left/right balance, as the game last asked; the mixing
  /// thread ramps towards them per sample.
  private let targetMono = Atomic<UInt32>(Float(0).bitPattern)
  private let targetBalance = Atomic<UInt32>(Float(0).bitPattern)
  /// How far the channels are averaged (0 stereo … 1 mono) and the balance reached (mixing thread).
  private var currentMono: Float = 0
  private var currentBalance: Float = 0
  /// Frames of silence put in since the last sound (mixing thread).
  private var silentFrames = 0
  /// Whether anything but silence has been put in since the engine opened (mixing thread).
  private var hasSounded = false
  private let volumeStep: Float
  /// The closing fade asked for, in frames (0: none); the mixing thread ramps the output to
  /// silence over it and then holds it there.
  private let closingFadeFrames = Atomic<Int>(0)
  /// Set by the mixing thread once the closing fade has reached silence.
  private let closingFadeDone = Atomic<Bool>(false)
  /// The gain the closing fade has reached (mixing thread).
  private var closingGain: Float = 1
  private let limiter: LookAheadLimiter?
  /// The range mode's leveller, before the limiter.
  private let leveller: RangeLeveller
  private let channels: Int
  /// Samples of the sum that were NaN or infinite and went out as silence instead (any thread
  /// reads it; the mixing thread adds).
  private let refusedSamples = Atomic<Int>(0)

  package init(format: AudioDeviceFormat, limiter settings: LimiterSettings?, volumeStep: Float) {
    channels = format.channels
    self.volumeStep = volumeStep
    leveller = RangeLeveller(channels: format.channels, sampleRate: format.sampleRate)
    limiter = settings.map { settings in
      LookAheadLimiter(
        channels: format.channels, window: settings.lookAheadFrames(at: format.sampleRate),
        ceiling: settings.ceiling,
        releaseCoefficient: settings.releaseCoefficient(at: format.sampleRate))
    }
  }

  /// The frames the limiter delays the output by (its look-ahead), 0 without a limiter.
  package var latencyFrames: Int { limiter.map { $0.window - 1 } ?? 0 }

  package func setVolume(_ volume: Float) {
    targetVolume.store(volume.bitPattern, ordering: .relaxed)
  }

  /// Mono output (the channels averaged) and the left/right balance (-1…1), ramped per sample.
  func setChannelMix(mono: Bool, balance: Float) {
    targetMono.store(Float(mono ? 1 : 0).bitPattern, ordering: .relaxed)
    targetBalance.store(balance.bitPattern, ordering: .relaxed)
  }

  /// The range mode: the leveller fades from one curve to the next.
  func setDynamicRange(_ mode: DynamicRange) { leveller.setMode(mode) }

  /// Asks the mixing thread to fade the whole output to silence over `frames` frames and hold it
  /// there: the engine is closing, and what still plays must not be cut mid-wave.
  func beginClosingFade(frames: Int) {
    closingFadeFrames.store(max(1, frames), ordering: .releasing)
  }

  /// Whether the closing fade has reached silence: every sample written since is zero.
  var hasFadedOut: Bool { closingFadeDone.load(ordering: .acquiring) }

  /// An idle callback (silence out, nothing to mix) completes a closing fade at once.
  @inline(__always)
  func noteIdle() {
    if closingFadeFrames.load(ordering: .relaxed) != 0, !closingFadeDone.load(ordering: .relaxed) {
      closingGain = 0
      closingFadeDone.store(true, ordering: .releasing)
    }
  }

  /// The smallest limiter gain in the last buffer mixed (1 when it did nothing).
  var gainInLastBuffer: Float { Float(bitPattern: lastSmallestGain.load(ordering: .relaxed)) }

  /// The smallest limiter gain since the engine opened or the meter was last reset.
  var smallestGain: Float { Float(bitPattern: smallestGainSinceReset.load(ordering: .relaxed)) }

  func resetMeter() {
    smallestGainSinceReset.store(Float(1).bitPattern, ordering: .relaxed)
  }

  /// Processes a block of the float mix in place, before it is converted to the device's format
  /// (so a 16-bit device's samples are limited before they are rounded, never clipped).
  /// `silent` says the block is silence (nothing played and no bus ran).
  package func process(float samples: UnsafeMutablePointer<Float>, frames: Int, silent: Bool = false) {
    // After silence (the limiter's look-ahead holds none of the last sound, as after any idle
    // callback) a change of volume, mono or balance is taken at once: it cannot click, and the
    // next sound starts as asked (a game muted before its first sound lets none of it through).
    if silentFrames > latencyFrames || !hasSounded {
      currentVolume = Float(bitPattern: targetVolume.load(ordering: .relaxed))
      currentMono = Float(bitPattern: targetMono.load(ordering: .relaxed))
      currentBalance = Float(bitPattern: targetBalance.load(ordering: .relaxed))
    }
    silentFrames = silent ? silentFrames + frames : 0
    hasSounded = hasSounded || !silent
    processFloat(samples, frames: frames)
    updateMeter()
  }

  /// Whether silence in gives silence out with nothing left to change: the limiter's look-ahead
  /// holds only silence, its gain is back at 1 and the volume has settled. The mix may then skip
  /// the master entirely (an idle engine costs SDL's callback and little else). Mixing thread.
  var isSettled: Bool {
    silentFrames > latencyFrames && currentVolume == Float(bitPattern: targetVolume.load(ordering: .relaxed))
      && Float(bitPattern: lastSmallestGain.load(ordering: .relaxed)) == 1 && leveller.hasSettled
  }

  private func updateMeter() {
    if let limiter {
      let smallest = limiter.takeSmallestGain()
      lastSmallestGain.store(smallest.bitPattern, ordering: .relaxed)
      if smallest < Float(bitPattern: smallestGainSinceReset.load(ordering: .relaxed)) {
        smallestGainSinceReset.store(smallest.bitPattern, ordering: .relaxed)
      }
    }
  }

  /// Samples the last guard turned to silence since the engine opened: NaN or infinite in the
  /// sum of the buses. Always 0 unless a number got past the API's checks (a bug to report).
  package var nonFiniteSamples: Int { refusedSamples.load(ordering: .relaxed) }

  /// The last guard: a non-finite sample (from a number no check caught) would poison the
  /// leveller's and the limiter's state and, through them, every later sample. Each one is put
  /// out as silence and counted. One pass of compares over the block; no allocation, no call out.
  private func refuseNonFinite(_ samples: UnsafeMutablePointer<Float>, count: Int) {
    var refused = 0
    for index in 0..<count where !samples[index].isFinite {
      samples[index] = 0
      refused &+= 1
    }
    if refused != 0 { refusedSamples.wrappingAdd(refused, ordering: .relaxed) }
  }

  private func processFloat(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    refuseNonFinite(samples, count: frames * channels)
    let goal = Float(bitPattern: targetVolume.load(ordering: .relaxed))
    var volume = currentVolume
    if volume != goal || volume != 1 {
      for frame in 0..<frames {
        volume += max(-volumeStep, min(volumeStep, goal - volume))
        for channel in 0..<channels { samples[frame * channels + channel] *= volume }
      }
      currentVolume = volume
    }
    if channels == 2 { mixChannels(samples, frames: frames) }
    leveller.process(samples, frames: frames)
    limiter?.process(samples, frames: frames)
    let closing = closingFadeFrames.load(ordering: .acquiring)
    if closing != 0 { fadeForClosing(samples, frames: frames, over: closing) }
  }

  /// Mono and balance on a stereo mix: each frame moves towards the average of its two channels
  /// by the mono amount, then the far side of the balance is turned down (the near one stays at
  /// full level). Both amounts ramp by the volume's step a frame; at stereo and centre nothing runs.
  private func mixChannels(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    let monoGoal = Float(bitPattern: targetMono.load(ordering: .relaxed))
    let balanceGoal = Float(bitPattern: targetBalance.load(ordering: .relaxed))
    var mono = currentMono
    var balance = currentBalance
    guard mono != 0 || monoGoal != 0 || balance != 0 || balanceGoal != 0 else { return }
    for frame in 0..<frames {
      mono += max(-volumeStep, min(volumeStep, monoGoal - mono))
      balance += max(-volumeStep, min(volumeStep, balanceGoal - balance))
      let left = samples[2 * frame]
      let right = samples[2 * frame + 1]
      let average = (left + right) * 0.5
      // Weighted as a mix of the two, so that in full mono both channels are exactly the average.
      samples[2 * frame] = (left * (1 - mono) + average * mono) * min(1, 1 - balance)
      samples[2 * frame + 1] = (right * (1 - mono) + average * mono) * min(1, 1 + balance)
    }
    currentMono = mono
    currentBalance = balance
  }

  /// The closing fade, after the limiter (its look-ahead delays what it is given): a linear
  /// ramp from the gain reached to silence, `1 / fadeFrames` a frame, then zeros.
  private func fadeForClosing(_ samples: UnsafeMutablePointer<Float>, frames: Int, over fadeFrames: Int) {
    let step = 1 / Float(fadeFrames)
    var gain = closingGain
    for frame in 0..<frames {
      gain = max(0, gain - step)
      for channel in 0..<channels { samples[frame * channels + channel] *= gain }
    }
    closingGain = gain
    if gain == 0, !closingFadeDone.load(ordering: .relaxed) {
      closingFadeDone.store(true, ordering: .releasing)
    }
  }
}
