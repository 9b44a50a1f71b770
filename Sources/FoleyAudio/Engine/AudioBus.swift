import Foundation

/// A category's submix bus, as a handle: its volume, mute and solo, its effects and routing, its
/// reverb send, its loudness target, its voice budget and its session policy, read and changed in
/// one place.
///
/// Every ``SoundCategory`` has a bus: its voices are summed into it, its effect chain runs on
/// the sum, and the result goes to its parent bus (the master unless routed). A handle is a
/// small value; asking ``AudioEngine/bus(_:)`` twice for one category gives two handles to the
/// same bus, and what one sets, the other reads.
///
/// ```swift
/// let music = engine.bus(.music)
/// music.volume = 0.8                        // at once, with the de-click ramp
/// music.setVolume(0.3, tween: 2)           // a slow fade of all music
/// engine.bus(.effects).isMuted = true
/// engine.bus(.speech).isSoloed = true       // only speech is heard until the solo ends
/// try music.setEffects([FilterEffect(.lowPass, frequency: 1_200)])
/// try music.setLoudnessTarget(-16)
/// try engine.bus(.ambience).setMaximumAudibleVoices(8)
/// engine.bus(.music).sessionPolicy = .duck(decibels: -12)
/// ```
///
/// Volumes are linear gains, 0…1 (out-of-range values are clamped, NaN is 1); fades ramp per
/// sample and never take less than the engine's de-click time, so a settings slider never
/// zippers. What a bus refuses (a loudness target outside -70…0 LUFS, a routing loop, an effect
/// that serves another engine) is thrown as an ``AudioEffectError`` and changes nothing.
public struct AudioBus: Sendable, Hashable, CustomStringConvertible {
  /// The category whose bus this is.
  public let category: SoundCategory
  let engine: AudioEngine

  init(category: SoundCategory, engine: AudioEngine) {
    self.category = category
    self.engine = engine
  }

  public static func == (lhs: AudioBus, rhs: AudioBus) -> Bool {
    lhs.category == rhs.category && lhs.engine === rhs.engine
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(category)
    hasher.combine(ObjectIdentifier(engine))
  }

  public var description: String { "bus '\(category)'" }

  private var core: MixerCore { engine.core }

  // MARK: - Volume, mute, solo

  /// The bus's volume, 0…1 (1 unless set). Setting it moves there over the de-click time;
  /// ``setVolume(_:tween:)`` takes longer, along an easing.
  public var volume: Double {
    get { core.buses.withLock { $0.volume(for: category) } }
    nonmutating set { setVolume(newValue) }
  }

  /// Moves the bus's volume to `volume` (0…1, clamped; NaN is 1) along `tween`, sample by sample
  /// on the mixing thread. The volume is the bus's fader: it comes after the bus's effects (a
  /// reverb's tail fades with it), before the bus sums into its parent.
  ///
  /// ```swift
  /// let music = engine.bus(.music)
  /// music.setVolume(0.3, tween: Tween(duration: 2, easing: .easeInEaseOut))
  /// // Back up in half a second, starting one second from now, to the sample:
  /// let later = engine.audioFrame + engine.frames(forSeconds: 1)
  /// music.setVolume(1, tween: Tween(duration: 0.5, start: .frame(later)))
  /// ```
  public func setVolume(_ volume: Double, tween: Tween = .immediate) {
    let value = volume.clamped(to: 0...1, or: 1)
    core.buses.withLock { $0.volumes[category] = value }
    engine.applyBuses(tween: tween)
  }

  /// Whether the bus is muted. Its ``volume`` is kept for unmuting; setting this ramps over the
  /// de-click time (``setMuted(_:duration:)`` takes longer).
  public var isMuted: Bool {
    get { core.buses.withLock { $0.muted.contains(category) } }
    nonmutating set { setMuted(newValue, duration: 0) }
  }

  /// Whether the bus carries cues no mix may bury: a duck takes it down by at most
  /// ``AudioEngine/criticalDuckFloorDecibels`` (6 dB) — nor by a ``CompressorEffect`` on it,
  /// sidechained or not — and its voices are critical cues (kept
  /// whatever the voice budget, captioned even when muted), as ``SoundSettings/isCritical`` makes a
  /// single sound.
  ///
  /// ```swift
  /// engine.bus("alerts").isCritical = true
  /// ```
  public var isCritical: Bool {
    get { core.buses.withLock { $0.critical.contains(category) } }
    nonmutating set {
      core.buses.withLock { buses in
        if newValue { buses.critical.insert(category) } else { buses.critical.remove(category) }
      }
      limitCompressors(effects, critical: newValue)
      engine.applyBuses(tween: Tween(duration: 0.05))
    }
  }

  /// Mutes or unmutes the bus, ramping over `duration` seconds.
  public func setMuted(_ muted: Bool, duration: Double) {
    core.buses.withLock { buses in
      if muted { buses.muted.insert(category) } else { buses.muted.remove(category) }
    }
    engine.applyBuses(tween: Tween(duration: duration))
  }

  /// Whether the bus is soloed. While any bus is soloed, only the voices of soloed buses and of
  /// buses routed into them are heard; the rest fall silent (they keep playing, as when muted),
  /// and come back when the last solo ends. Ramps over the de-click time.
  public var isSoloed: Bool {
    get { core.buses.withLock { $0.soloed.contains(category) } }
    nonmutating set { setSoloed(newValue, duration: 0) }
  }

  /// Solos or unsolos the bus, ramping the buses it silences or brings back over `duration`
  /// seconds.
  public func setSoloed(_ soloed: Bool, duration: Double) {
    core.buses.withLock { buses in
      if soloed { buses.soloed.insert(category) } else { buses.soloed.remove(category) }
    }
    engine.applyBuses(tween: Tween(duration: duration))
  }

  /// Turns the bus down by `decibels` (a negative number) until ``AudioEngine/endDuck(named:duration:)``
  /// with the same name, ramping over `duration` seconds; ``volume`` is untouched. To duck
  /// several buses under one name, use ``AudioEngine/duck(_:by:named:duration:)``.
  public func duck(by decibels: Double, named name: String, duration: Double = 0.2) {
    engine.duck([category], by: decibels, named: name, duration: duration)
  }

  // MARK: - Effects and routing

  /// The bus's effect chain, in order (empty unless set).
  public var effects: [AudioEffect] {
    core.buses.withLock { $0.effects[category] ?? [] }
  }

  /// Replaces the bus's effect chain with `effects`, in order (an empty list removes them). It
  /// takes effect at the next buffer; a removed reverb's tail stops at once.
  ///
  /// ```swift
  /// try engine.bus(.music).setEffects([FilterEffect(.lowPass, frequency: 1_200), ReverbEffect(.hall, dry: 1)])
  /// ```
  /// - Throws: ``AudioEffectError/effectOfAnotherEngine`` if an effect serves another engine,
  ///   ``AudioEffectError/noBusLeft(_:)`` when every bus is taken. Nothing changes then.
  public func setEffects(_ effects: [AudioEffect]) throws(AudioEffectError) {
    let bus = try index()
    let owner = ObjectIdentifier(core)
    var keys: [(CompressorEffect, Int)] = []
    for effect in effects {
      guard
        effect.claim(
          for: owner, sampleRate: engine.deviceFormat.sampleRate, channels: engine.deviceFormat.channels)
      else {
        throw .effectOfAnotherEngine
      }
      if let compressor = effect as? CompressorEffect, let sidechain = compressor.sidechain {
        let key = try AudioBus(category: sidechain, engine: engine).index()
        keys.append((compressor, key))
      }
    }
    let critical = core.buses.withLock { buses in
      buses.effects[category] = effects.isEmpty ? nil : effects
      return buses.critical.contains(category)
    }
    limitCompressors(effects, critical: critical)
    core.setEffects(effects, onBus: bus, keys: keys)
  }

  /// A critical bus's compressors take at most the critical floor's 6 dB.
  private func limitCompressors(_ effects: [AudioEffect], critical: Bool) {
    for case let compressor as CompressorEffect in effects {
      compressor.limitForCriticalBus(critical ? -AudioEngine.criticalDuckFloorDecibels : nil)
    }
  }

  /// The bus this one sums into (nil: the master).
  public var parent: AudioBus? {
    core.buses.withLock { $0.parents[category] }.map { AudioBus(category: $0, engine: engine) }
  }

  /// Routes the bus into `parent`'s (nil: the master, as at first): its sum, after its own
  /// effects, goes through the parent's effects, and the parent's volume, mute and solo apply to
  /// its voices too. Buses nest as deep as you like, never in a loop.
  ///
  /// ```swift
  /// try engine.bus("footsteps").route(to: .effects)   // the effects bus's volume and EQ reach them
  /// try engine.bus("radio").route(to: nil)            // straight to the master again
  /// ```
  /// - Throws: ``AudioEffectError/loop(_:into:)`` when `parent` already sums into this bus,
  ///   ``AudioEffectError/noBusLeft(_:)`` when every bus is taken.
  public func route(to parent: SoundCategory?) throws(AudioEffectError) {
    let bus = try index()
    var parentBus = 0
    if let parent {
      parentBus = try AudioBus(category: parent, engine: engine).index()
    }
    let looped = core.buses.withLock { settings -> Bool in
      if let parent {
        guard !settings.wouldLoop(category, into: parent) else { return true }
        settings.parents[category] = parent
      } else {
        settings.parents[category] = nil
      }
      return false
    }
    if looped, let parent { throw .loop(category, into: parent) }
    core.setParent(parentBus, of: bus)
    engine.applyBuses(tween: .immediate)
  }

  /// Moves the share of the bus sent to the engine's reverb (``AudioEngine/reverb``) to `level`
  /// (0…1, clamped; NaN is 0) along `tween`: post-fader, after the bus's own effects. Every voice
  /// of the category then fills the room together, on top of any voice's own send.
  ///
  /// ```swift
  /// try engine.bus(.ambience).setReverbSend(0.5, tween: 1)   // the level moves into the cave
  /// ```
  /// - Throws: ``AudioEffectError/noBusLeft(_:)`` when every bus is taken.
  public func setReverbSend(_ level: Double, tween: Tween = .immediate) throws(AudioEffectError) {
    core.setSend(level, tween: tween, onBus: try index())
  }

  /// The bus's peak in the last buffer, in dBFS (-inf: silent or not yet mixed), after its
  /// effects: for a meter.
  public var level: Double {
    guard let bus = core.busIndices.withLock({ $0[category] }) else { return -.infinity }
    return 20 * log10(Double(core.mixer.meters.peak(of: bus)))
  }

  // MARK: - Loudness, budget, session

  /// The loudness, in LUFS, the bus's sounds that normalize play at (nil: none).
  public var loudnessTarget: Double? {
    core.loudnessTargets.withLock { $0[category] }
  }

  /// Makes the bus's sounds that normalize (``SoundSettings/normalizesLoudness``, or
  /// `"normalize": true` in the sound map) play at `lufs` from their next play; nil removes the
  /// target.
  ///
  /// ```swift
  /// try engine.bus(.music).setLoudnessTarget(-16)
  /// ```
  /// - Throws: ``AudioEffectError/outOfRange(_:)`` for a value outside
  ///   ``AudioEngine/loudnessTargets`` or not finite; the target is unchanged.
  public func setLoudnessTarget(_ lufs: Double?) throws(AudioEffectError) {
    if let lufs, !(lufs.isFinite && AudioEngine.loudnessTargets.contains(lufs)) {
      throw .outOfRange("loudness target \(lufs) LUFS is outside -70…0")
    }
    core.loudnessTargets.withLock { $0[category] = lufs }
  }

  /// The most voices of the bus mixed at once (nil: no budget of its own).
  public var maximumAudibleVoices: Int? {
    core.audibleLimits.withLock { $0[category] }
  }

  /// Sets the most voices of the bus mixed at once (nil removes the bus's own budget); the rest
  /// of its voices are virtual (``Voice/isVirtual``) and come back, at the frame their clock has
  /// reached, when they rank again. Works with the global
  /// ``AudioConfiguration/maximumAudibleVoices``: a voice is heard when it fits both.
  ///
  /// ```swift
  /// try engine.bus(.ambience).setMaximumAudibleVoices(8)   // the 8 loudest torches
  /// ```
  /// - Throws: ``AudioEffectError/outOfRange(_:)`` outside 1…4,096; the budget is unchanged.
  public func setMaximumAudibleVoices(_ count: Int?) throws(AudioEffectError) {
    if let count, !(1...4_096).contains(count) {
      throw .outOfRange("maximumAudibleVoices \(count) is outside 1…4096")
    }
    core.audibleLimits.withLock { $0[category] = count }
    core.noteUncaptured("voice budgets")
    core.queue.async { [core] in
      guard core.state.isOpen else { return }
      // A budget ranks the voices by how loud they are: their moves must reach the queue.
      if count != nil { core.stopFollowingAll() }
      core.allGainsChanged(category: nil)
      core.rebalanceVoices()
      core.scheduleFallbackWake()
    }
  }

  /// What the bus's voices do while the session is inactive for an unfocused reason: its own
  /// policy, or nil to follow the engine's ``AudioEngine/sessionPolicy``.
  public var sessionPolicy: SessionPolicy? {
    get { core.policies.withLock { $0.byCategory[category] } }
    nonmutating set {
      core.policies.withLock { $0.byCategory[category] = newValue }
      core.noteUncaptured("session policies")
      core.queue.async { [core] in core.reapplySessionModes() }
    }
  }

  /// The policy the bus's voices follow: its own, or the engine's.
  public var effectiveSessionPolicy: SessionPolicy {
    core.policies.withLock { $0.policy(for: category) }
  }

  /// The mixer's index of the bus, given one on first use.
  func index() throws(AudioEffectError) -> Int {
    let bus = core.bus(for: category)
    guard bus > 0 else { throw .noBusLeft(category) }
    return bus
  }
}

extension AudioEngine {
  /// The bus of `category`: a handle to read and change its volume, mute, solo, effects,
  /// routing, loudness target, voice budget and session policy.
  ///
  /// ```swift
  /// engine.bus(.music).setVolume(0.3, tween: 2)
  /// ```
  public func bus(_ category: SoundCategory) -> AudioBus {
    AudioBus(category: category, engine: self)
  }
}
