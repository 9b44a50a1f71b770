import Foundation

/// An envelope on a voice's volume, from its start to its stop: it rises from silence to the
/// voice's level over ``attack``, holds there for ``hold``, falls to ``sustainDecibels`` over
/// ``decay`` and stays there while the voice plays; stopped, the voice fades from wherever the
/// envelope stands to silence over ``release`` before its channel is let go. A voice that plays
/// out on its own ends as its sound does.
///
/// Attack and release are straight lines in gain, decay a straight line in decibels (as an ear
/// hears it fall).
///
/// ```swift
/// let pad = engine.play(padSound, loops: -1)
/// try pad.setModulators([.envelope(attack: 0.3, decay: 0.5, sustainDecibels: -6, release: 1.5)])
/// pad.stop()   // the pad fades out over 1.5 s
/// ```
public struct Envelope: Sendable, Hashable, CustomStringConvertible {
  /// Seconds from silence to the level, 0…60 (clamped; NaN is 0).
  public var attack: Double
  /// Seconds at the level before the decay, 0…60.
  public var hold: Double
  /// Seconds from the level down to the sustain, 0…60.
  public var decay: Double
  /// The level the envelope sustains at, in decibels below the voice's, -60…0.
  public var sustainDecibels: Double
  /// Seconds from where the envelope stands at the stop to silence, 0…60.
  public var release: Double

  public init(
    attack: Double = 0, hold: Double = 0, decay: Double = 0, sustainDecibels: Double = 0,
    release: Double = 0
  ) {
    self.attack = attack.clamped(to: 0...60, or: 0)
    self.hold = hold.clamped(to: 0...60, or: 0)
    self.decay = decay.clamped(to: 0...60, or: 0)
    self.sustainDecibels = sustainDecibels.clamped(to: -60...0, or: 0)
    self.release = release.clamped(to: 0...60, or: 0)
  }

  public var description: String {
    "Envelope(attack \(attack) s, hold \(hold) s, decay \(decay) s, sustain \(sustainDecibels) dB, "
      + "release \(release) s)"
  }
}

/// A follower: a voice's volume moves with another bus's level, through a curve from the bus's
/// peak in dBFS to decibels on the voice: the general form of a sidechain, on one voice rather
/// than a whole bus. The level is the bus's peak in the mix's last block (up to 21 ms behind),
/// smoothed: it rises over ``attack`` and falls over ``release``.
///
/// ```swift
/// // The crowd backs off as the commentary gets loud: 0 dB below -40 dBFS, -12 dB at -10 dBFS.
/// let crowd = engine.play(crowdSound, loops: -1)
/// try crowd.setModulators([
///   .follower(of: .speech, curve: ParameterCurve([(-40, 0), (-10, -12)]), attack: 0.02, release: 0.4)
/// ])
/// ```
public struct Follower: Sendable, Hashable, CustomStringConvertible {
  /// The bus whose level it follows.
  public var bus: SoundCategory
  /// From the bus's level (dBFS, -100 for silence) to decibels on the voice.
  public var curve: ParameterCurve
  /// Seconds for the followed level to rise by most of a step, 0.001…10 (clamped; NaN is 0.01).
  public var attack: Double
  /// Seconds for it to fall by most of a step, 0.001…10 (NaN is 0.25).
  public var release: Double

  public init(of bus: SoundCategory, curve: ParameterCurve, attack: Double = 0.01, release: Double = 0.25) {
    self.bus = bus
    self.curve = curve
    self.attack = attack.clamped(to: 0.001...10, or: 0.01)
    self.release = release.clamped(to: 0.001...10, or: 0.25)
  }

  public var description: String {
    "Follower(\(bus.name) through \(curve), \(attack) s up, \(release) s down)"
  }
}
