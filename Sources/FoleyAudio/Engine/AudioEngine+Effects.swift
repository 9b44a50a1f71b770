import Foundation

/// Why effects could not be put on a bus.
///
/// ```swift
/// do {
///   try engine.setEffects([FilterEffect(.lowPass, frequency: 800)], on: .ambience)
/// } catch AudioEffectError.effectOfAnotherEngine {
///   // an effect object serves one engine
/// }
/// ```
public enum AudioEffectError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The effect is already on a bus of another engine; make a new one.
  case effectOfAnotherEngine
  /// Every bus is taken (30 categories have played or have effects); this category mixes
  /// straight into the master and cannot have effects.
  case noBusLeft(SoundCategory)
  /// Routing the first category into the second would make a loop of buses.
  case loop(SoundCategory, into: SoundCategory)
  /// A bus setting outside what it accepts (a loudness target beyond -70…0 LUFS, say).
  case outOfRange(String)

  public var description: String {
    switch self {
    case .effectOfAnotherEngine:
      "the effect is already on a bus of another engine; make a new one for this engine"
    case .loop(let category, let parent):
      "routing '\(category)' into '\(parent)' would make a loop: '\(parent)' already sums into '\(category)'"
    case .outOfRange(let what): what
    case .noBusLeft(let category):
      "no bus left for category '\(category)': \(VoiceMixer.busCapacity - 2) categories already have buses"
    }
  }
}

/// Buses and their effects. Every category is a submix bus: its voices are summed into it, its
/// effect chain runs on the sum, and the result goes to the master. Voices also send a share of
/// themselves to the engine's reverb return (``reverb``).
extension AudioEngine {
  /// Replaces the effect chain of `category`'s bus with `effects`, in order (an empty list
  /// removes them). It takes effect at the next buffer; a removed reverb's tail stops at once.
  ///
  /// ```swift
  /// let lowPass = FilterEffect(.lowPass, frequency: 1_200)
  /// try engine.setEffects([lowPass, ReverbEffect(.hall, dry: 1)], on: .music)
  /// ```
  /// - Throws: ``AudioEffectError/effectOfAnotherEngine`` if an effect serves another engine,
  ///   ``AudioEffectError/noBusLeft(_:)`` when every bus is taken.
  public func setEffects(_ effects: [AudioEffect], on category: SoundCategory) throws(AudioEffectError) {
    let bus = try busOf(category)
    let owner = ObjectIdentifier(core)
    var keys: [(CompressorEffect, Int)] = []
    for effect in effects {
      guard effect.claim(for: owner, sampleRate: deviceFormat.sampleRate, channels: deviceFormat.channels)
      else {
        throw .effectOfAnotherEngine
      }
      if let compressor = effect as? CompressorEffect, let sidechain = compressor.sidechain {
        let key = try busOf(sidechain)
        keys.append((compressor, key))
      }
    }
    core.setEffects(effects, onBus: bus, keys: keys)
  }

  /// Routes `category`'s bus into `parent`'s (nil: the master, as at first): its sum, after its
  /// own effects, goes through the parent's effects, and the parent's volume and mute apply to
  /// its voices too. Buses nest as deep as you like, never in a loop.
  ///
  /// ```swift
  /// try engine.route("footsteps", to: .effects)     // the effects bus's volume and EQ reach them
  /// try engine.route("radio", to: nil)              // straight to the master again
  /// ```
  /// - Throws: ``AudioEffectError/loop(_:into:)`` when `parent` already sums into `category`,
  ///   ``AudioEffectError/noBusLeft(_:)`` when every bus is taken.
  public func route(_ category: SoundCategory, to parent: SoundCategory?) throws(AudioEffectError) {
    let bus = try busOf(category)
    var parentBus = 0
    if let parent {
      parentBus = try busOf(parent)
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
    applyBuses(fade: 0)
  }

  /// Glides the share of `category`'s bus sent to the engine's reverb (``reverb``) to `level`
  /// (0…1, clamped; NaN is 0) over `duration` seconds: post-fader, after the bus's own effects.
  /// Every voice of the category then fills the room together, on top of any voice's own send.
  ///
  /// ```swift
  /// try engine.setReverbSend(0.5, for: .ambience, over: 1)   // the level moves into the cave
  /// ```
  /// - Throws: ``AudioEffectError/noBusLeft(_:)`` when every bus is taken.
  public func setReverbSend(
    _ level: Double, for category: SoundCategory, over duration: Double = 0
  )
    throws(AudioEffectError)
  {
    let bus = try busOf(category)
    core.setSend(level, over: duration, onBus: bus)
  }

  /// Each bus's peak in the last buffer, in dBFS (-inf: silent), after its effects: the
  /// categories that have played or have effects, the reverb's return as `"reverb"`, and the
  /// master (after the limiter) as `"master"`. For meters; reading it costs a few atomics.
  ///
  /// ```swift
  /// for (bus, level) in engine.busLevels.sorted(by: { $0.key.name < $1.key.name }) {
  ///   print(bus, String(format: "%.1f dBFS", level))
  /// }
  /// ```
  public var busLevels: [SoundCategory: Double] {
    let meters = core.mixer.meters
    func decibels(_ bus: Int) -> Double { 20 * log10(Double(meters.peak(of: bus))) }
    var levels: [SoundCategory: Double] = ["master": decibels(0), "reverb": decibels(VoiceMixer.reverbBus)]
    for (category, bus) in core.busIndices.withLock({ $0 }) { levels[category] = decibels(bus) }
    return levels
  }

  /// The engine's reverb, on its return bus: voices reach it through their send
  /// (``Voice/setReverbSend(_:over:)``, `.changeReverb(to:duration:)` on a node). It is all wet
  /// (its `dry` is 0) and starts as the ``ReverbEffect/Preset/room`` preset.
  ///
  /// ```swift
  /// engine.reverb.apply(.cave)
  /// ```
  public var reverb: ReverbEffect { core.reverb }

  /// Whether the engine's reverb is sounding: fed by a voice's send, or its tail still ringing
  /// (it stops below -120 dBFS). A tool that plays a sound and quits waits for this to end.
  public var isReverbRinging: Bool { core.mixer.reverbRan.load(ordering: .relaxed) }

  /// `category`'s bus in the mixer, given out on first use.
  /// - Throws: ``AudioEffectError/noBusLeft(_:)`` when every bus is taken.
  private func busOf(_ category: SoundCategory) throws(AudioEffectError) -> Int {
    let bus = core.bus(for: category)
    guard bus > 0 else { throw .noBusLeft(category) }
    return bus
  }
}
