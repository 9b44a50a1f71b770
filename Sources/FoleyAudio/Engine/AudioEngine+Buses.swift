import Foundation

extension AudioEngine {
  /// Sets the volume of `category`'s bus (every voice of that category, now and to come), 0…1,
  /// ramping over `fadeDuration` seconds (at least the de-click time): a settings slider never
  /// zippers.
  ///
  /// ```swift
  /// engine.setVolume(0.3, for: .music, fadeDuration: 2)   // a slow fade of all music
  /// engine.setMuted(true, for: .effects)
  /// engine.masterVolume = 0.8
  /// ```
  public func setVolume(_ volume: Double, for category: SoundCategory, fadeDuration: Double = 0) {
    let value = volume.clamped(to: 0...1, or: 1)
    core.buses.withLock { $0.volumes[category] = value }
    applyBuses(fade: fadeDuration)
  }

  /// The volume of `category`'s bus (1 unless set).
  public func volume(for category: SoundCategory) -> Double {
    core.buses.withLock { $0.volume(for: category) }
  }

  /// Mutes or unmutes `category`'s bus, with a ramp; its volume is kept for unmuting.
  public func setMuted(_ muted: Bool, for category: SoundCategory, fadeDuration: Double = 0) {
    core.buses.withLock { buses in
      if muted { buses.muted.insert(category) } else { buses.muted.remove(category) }
    }
    applyBuses(fade: fadeDuration)
  }

  public func isMuted(_ category: SoundCategory) -> Bool {
    core.buses.withLock { $0.muted.contains(category) }
  }

  /// Turns `categories` down by `decibels` (a negative number) until ``endDuck(named:fadeDuration:)``,
  /// ramping over `fadeDuration` seconds: dialogue over music, say. Ducks are named so several can
  /// hold at once; the deepest one applies. The buses' own volumes are untouched.
  ///
  /// ```swift
  /// engine.duck([.music, .ambience], by: -12, named: "dialogue", fadeDuration: 0.3)
  /// engine.endDuck(named: "dialogue", fadeDuration: 0.6)
  /// ```
  public func duck(
    _ categories: Set<SoundCategory>, by decibels: Double, named name: String, fadeDuration: Double = 0.2
  ) {
    let gain = pow(10, min(0, decibels.isFinite ? decibels : 0) / 20)
    core.buses.withLock { $0.ducks[name] = (categories, gain) }
    applyBuses(fade: fadeDuration)
  }

  /// Ends the duck named `name`, ramping the categories back over `fadeDuration` seconds.
  public func endDuck(named name: String, fadeDuration: Double = 0.4) {
    let removed = core.buses.withLock { $0.ducks.removeValue(forKey: name) != nil }
    if removed { applyBuses(fade: fadeDuration) }
  }

  /// The master volume, 0…1, applied to the whole mix before the limiter, ramped per sample.
  public var masterVolume: Double {
    get { core.buses.withLock { $0.masterVolume } }
    set {
      let value = newValue.clamped(to: 0...1, or: 1)
      core.buses.withLock { $0.masterVolume = value }
      applyBuses(fade: 0)
    }
  }

  /// Mutes the whole mix (with a ramp), keeping ``masterVolume`` for unmuting.
  public var isMuted: Bool {
    get { core.buses.withLock { $0.isMasterMuted } }
    set {
      core.buses.withLock { $0.isMasterMuted = newValue }
      applyBuses(fade: 0)
    }
  }

  /// What the master limiter is doing: how far it has turned the mix down.
  public var masterMeter: MasterMeter {
    MasterMeter(
      gainReductionDecibels: MasterMeter.decibels(core.master.gainInLastBuffer),
      maximumGainReductionDecibels: MasterMeter.decibels(core.master.smallestGain),
      latencyFrames: core.master.latencyFrames)
  }

  /// Starts ``MasterMeter/maximumGainReductionDecibels`` over.
  public func resetMasterMeter() {
    core.master.resetMeter()
  }

  func applyBuses(fade: Double) {
    let seconds = fade.clamped(to: 0...3_600, or: 0)
    core.queue.async { [core] in core.applyBuses(fade: seconds) }
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
  /// Frames the limiter's look-ahead delays the output by (0 without a limiter).
  public var latencyFrames: Int

  package static func decibels(_ gain: Float) -> Double {
    gain >= 1 ? 0 : 20 * log10(Double(max(gain, 1e-8)))
  }
}

// Loudness targets: a category's sounds that normalize play at its target.
extension AudioEngine {
  /// Loudness targets accepted, in LUFS.
  public static let loudnessTargets: ClosedRange<Double> = -70...0

  /// Makes `category`'s sounds that normalize (``SoundSettings/normalizesLoudness``, or
  /// `"normalize": true` in the sound map) play at `lufs` from their next play; nil removes the
  /// target. A value outside ``loudnessTargets`` (or not finite) is refused.
  ///
  /// ```swift
  /// engine.setLoudnessTarget(-16, for: .music)
  /// var settings = SoundSettings(); settings.category = .music; settings.normalizesLoudness = true
  /// let sting = try Sound(data: bytes, name: "sting.ogg", engine: engine, settings: settings)
  /// _ = sting.loudness                  // measured now, not at its first play
  /// ```
  /// - Throws: ``AudioEffectError/outOfRange(_:)`` naming the value.
  public func setLoudnessTarget(_ lufs: Double?, for category: SoundCategory) throws(AudioEffectError) {
    if let lufs, !(lufs.isFinite && Self.loudnessTargets.contains(lufs)) {
      throw .outOfRange("loudness target \(lufs) LUFS is outside -70…0")
    }
    core.loudnessTargets.withLock { $0[category] = lufs }
  }

  /// `category`'s loudness target, if it has one.
  public func loudnessTarget(for category: SoundCategory) -> Double? {
    core.loudnessTargets.withLock { $0[category] }
  }
}

extension AudioEngine {
  /// The most voices of `category` mixed at once (nil removes the bus's own budget); the rest of
  /// its voices are virtual (``Voice/isVirtual``) and come back, at the frame their clock has
  /// reached, when they rank again. Works with the global
  /// ``AudioConfiguration/maximumAudibleVoices``: a voice is heard when it fits both. Outside
  /// 1…4,096 is refused.
  ///
  /// ```swift
  /// try engine.setMaximumAudibleVoices(8, for: .ambience)   // the 8 loudest torches
  /// ```
  /// - Throws: ``AudioEffectError/outOfRange(_:)`` naming the value.
  public func setMaximumAudibleVoices(_ count: Int?, for category: SoundCategory) throws(AudioEffectError) {
    if let count, !(1...4_096).contains(count) {
      throw .outOfRange("maximumAudibleVoices \(count) is outside 1…4096")
    }
    core.audibleLimits.withLock { $0[category] = count }
    core.queue.async { [core] in
      guard core.isOpen else { return }
      core.allGainsChanged(category: nil)
      core.rebalanceVoices()
      core.scheduleFallbackWake()
    }
  }

  /// `category`'s own voice budget, if it has one.
  public func maximumAudibleVoices(for category: SoundCategory) -> Int? {
    core.audibleLimits.withLock { $0[category] }
  }
}
