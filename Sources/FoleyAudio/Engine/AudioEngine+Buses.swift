import Foundation

extension AudioEngine {
  /// Turns `categories` down by `decibels` (a negative number) until ``endDuck(named:duration:)``,
  /// ramping over `duration` seconds in a straight line, voice by voice: dialogue over music,
  /// say. Ducks are named so several can hold at once; the deepest one applies. The buses' own
  /// volumes are untouched. (A snapshot, ``applySnapshot(_:intensity:tween:)``, eases.)
  ///
  /// ```swift
  /// engine.duck([.music, .ambience], by: -12, named: "dialogue", duration: 0.3)
  /// engine.endDuck(named: "dialogue", duration: 0.6)
  /// ```
  public func duck(
    _ categories: Set<SoundCategory>, by decibels: Double, named name: String, duration: Double = 0.2
  ) {
    let gain = pow(10, min(0, decibels.isFinite ? decibels : 0) / 20)
    core.buses.withLock { $0.ducks[name] = (categories, gain) }
    applyBuses(tween: Tween(duration: duration))
  }

  /// Ends the duck named `name`, ramping the categories back over `duration` seconds.
  public func endDuck(named name: String, duration: Double = 0.4) {
    let removed = core.buses.withLock { $0.ducks.removeValue(forKey: name) != nil }
    if removed { applyBuses(tween: Tween(duration: duration)) }
  }

  /// The master volume, 0…1, applied to the whole mix (the reverb's return too) before the
  /// limiter. Setting it moves there over the de-click time; ``setMasterVolume(_:tween:)`` eases.
  public var masterVolume: Double {
    get { core.buses.withLock { $0.masterVolume } }
    set { setMasterVolume(newValue) }
  }

  /// Moves the master volume to `volume` (0…1, clamped; NaN is 1) along `tween`, sample by
  /// sample on the mixing thread.
  ///
  /// ```swift
  /// engine.setMasterVolume(0, tween: Tween(duration: 1.5, easing: .easeIn))   // to black
  /// ```
  public func setMasterVolume(_ volume: Double, tween: Tween = .immediate) {
    let value = volume.clamped(to: 0...1, or: 1)
    core.buses.withLock { $0.masterVolume = value }
    applyBuses(tween: tween)
  }

  /// The whole mix in mono, for a player who hears with one ear or on one speaker: every
  /// channel carries the same samples. Each voice is first centred at equal power (a sound heard
  /// hard left keeps its loudness, it does not gain 3 dB nor lose it), then the master averages
  /// the channels (stereo sounds and the reverb's return). Switching ramps; nothing clicks.
  ///
  /// ```swift
  /// engine.isMono = settings.isMono
  /// engine.balance = -0.3   // a little more on the left
  /// ```
  public var isMono: Bool {
    get { core.buses.withLock { $0.isMono } }
    set {
      core.buses.withLock { $0.isMono = newValue }
      applyBuses(tween: .immediate)
    }
  }

  /// The left/right balance of the whole mix, -1 (left only) … 1 (right only), 0 by default: the
  /// far side is turned down (the near one stays at full level), ramped per sample. Values outside
  /// the range are clamped; a NaN leaves it unchanged.
  public var balance: Double {
    get { core.buses.withLock { $0.balance } }
    set {
      core.buses.withLock { $0.balance = newValue.clamped(to: -1...1, or: $0.balance) }
      applyBuses(tween: .immediate)
    }
  }

  /// How much of the mix's loudness range the player hears (``DynamicRange``): `.full` by
  /// default; `.headphones` and `.night` level loud and quiet passages towards each other on the
  /// master, before the limiter. Switching fades over 50 ms.
  ///
  /// ```swift
  /// engine.dynamicRange = .night
  /// ```
  public var dynamicRange: DynamicRange {
    get { core.buses.withLock { $0.dynamicRange } }
    set {
      core.buses.withLock { $0.dynamicRange = newValue }
      applyBuses(tween: .immediate)
    }
  }

  /// The most a duck takes from a critical bus (``AudioBus/isCritical``), in dB.
  public static var criticalDuckFloorDecibels: Double { 20 * log10(BusSettings.criticalDuckFloor) }

  /// Mutes the whole mix (with a ramp), keeping ``masterVolume`` for unmuting.
  public var isMuted: Bool {
    get { core.buses.withLock { $0.isMasterMuted } }
    set {
      core.buses.withLock { $0.isMasterMuted = newValue }
      applyBuses(tween: .immediate)
    }
  }

  /// What the master limiter is doing: how far it has turned the mix down.
  public var masterMeter: MasterMeter {
    MasterMeter(
      gainReductionDecibels: MasterMeter.decibels(core.master.gainInLastBuffer),
      maximumGainReductionDecibels: MasterMeter.decibels(core.master.smallestGain))
  }

  /// Starts ``MasterMeter/maximumGainReductionDecibels`` over.
  public func resetMasterMeter() {
    core.master.resetMeter()
  }

  func applyBuses(tween: Tween) {
    // The master's mono and balance are atomics the mixing thread reads: set here, they hold for
    // any play asked for after this call (the queue centres the voices' gains when it gets there).
    // The settings as this change left them travel with its tween: a later change's values
    // never move along this one's tween.
    let settings = core.buses.withLock { $0 }
    core.master.setChannelMix(mono: settings.isMono, balance: Float(settings.balance))
    core.master.setDynamicRange(settings.dynamicRange)
    core.queue.async { [core] in
      core.capturing({ .mix(MixerCore.capturedMix(settings), tween: core.captured(tween)) }) {
        core.applyBuses(settings, tween: tween)
      }
    }
  }
}

/// The master limiter's meter, for a HUD and for tests.
///
/// ```swift
/// let meter = engine.masterMeter
/// hud.text = String(format: "LIMIT %.1f dB", meter.gainReductionDecibels)
/// ```
public struct MasterMeter: Sendable, Hashable {
  /// The gain reduction in the last buffer mixed, in dB (0 when the limiter did nothing,
  /// negative when it turned the mix down).
  public var gainReductionDecibels: Double
  /// The deepest gain reduction since the engine opened or ``AudioEngine/resetMasterMeter()``.
  public var maximumGainReductionDecibels: Double

  package static func decibels(_ gain: Float) -> Double {
    gain >= 1 ? 0 : 20 * log10(Double(max(gain, 1e-8)))
  }
}

// Loudness targets: a category's sounds that normalize play at its target.
extension AudioEngine {
  /// Loudness targets accepted, in LUFS.
  public static let loudnessTargets: ClosedRange<Double> = -70...0
}
