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
  /// (``Voice/setReverbSend(_:tween:)``, `.changeReverb(to:duration:)` on a node). It is all wet
  /// (its `dry` is 0) and starts as the ``ReverbEffect/Preset/room`` preset.
  ///
  /// ```swift
  /// engine.reverb.apply(.cave)
  /// ```
  public var reverb: ReverbEffect { core.reverb }

  /// Whether the engine's reverb is sounding: fed by a voice's send, or its tail still ringing
  /// (it stops below -120 dBFS). A tool that plays a sound and quits waits for this to end.
  public var isReverbRinging: Bool { core.mixer.reverbRan.load(ordering: .relaxed) }
}
