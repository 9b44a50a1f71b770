/// A named mix state: how much each bus goes down or up, which filters close over it, and the
/// values some game parameters take, applied at an intensity (0…1) that a tween moves.
///
/// Several snapshots may be active at once. Each bus's change and each parameter's value is
/// combined in order of ``priority`` (lowest first): an ``Mode/override`` snapshot moves the result
/// so far towards its own value by its intensity (at full intensity, its value wins over every
/// lower one), a ``Mode/blend`` snapshot adds its value times its intensity. The game's own bus
/// volumes (``AudioBus/volume``) stay under it: a snapshot's decibels are a change from them, so a
/// player's settings slider still works while the pause mix is on.
///
/// A snapshot's filters sit after the bus's own effects; their frequency glides from 20 kHz
/// (open) to the snapshot's on a logarithmic scale as its intensity rises, and they leave the
/// chain when it is back to 0.
///
/// ```swift
/// try engine.defineSnapshot(MixSnapshot("muffled", buses: [
///   .music: .init(volumeDecibels: -12, lowPass: 800),
///   .effects: .init(volumeDecibels: -6),
/// ]))
/// try engine.applySnapshot("muffled", tween: Tween(duration: 0.5))
/// try engine.releaseSnapshot("muffled", tween: Tween(duration: 1, easing: .easeIn))
/// ```
///
/// A snapshot can follow a game parameter instead of being moved by hand (``driver``): its
/// intensity is then the curve's value at the parameter, times the intensity applied (1 from its
/// definition; released, it rests at 0 whatever the parameter says).
///
/// ```swift
/// try engine.defineParameter("danger", range: 0...1, default: 0)
/// var danger = MixSnapshot("danger", buses: [.music: .init(volumeDecibels: -6)])
/// danger.driver = MixSnapshot.Driver(parameter: "danger", curve: try ParameterCurve([(0.2, 0), (1, 1)]))
/// try engine.defineSnapshot(danger)
/// try engine.setParameter("danger", to: 0.8, tween: 0.25)   // the mix follows
/// ```
public struct MixSnapshot: Sendable, Hashable {
  /// A game parameter a snapshot's intensity follows, through a curve whose values are
  /// intensities (0…1). It follows the game's value of the parameter, before any snapshot sets it.
  public struct Driver: Sendable, Hashable {
    public var parameter: String
    public var curve: ParameterCurve

    public init(parameter: String, curve: ParameterCurve) {
      self.parameter = parameter
      self.curve = curve
    }
  }

  /// How a snapshot combines with those below it.
  public enum Mode: String, Sendable, Hashable, CaseIterable {
    /// Towards its own values, by its intensity.
    case override
    /// Its values times its intensity, added.
    case blend
  }

  /// What a snapshot does to one bus.
  public struct BusChange: Sendable, Hashable {
    /// The change of the bus's volume at full intensity, -96…24 dB.
    public var volumeDecibels: Double
    /// A low-pass filter's frequency at full intensity (10…20,000 Hz; nil: none).
    public var lowPass: Double?
    /// A high-pass filter's frequency at full intensity (10…20,000 Hz; nil: none).
    public var highPass: Double?

    public init(volumeDecibels: Double = 0, lowPass: Double? = nil, highPass: Double? = nil) {
      self.volumeDecibels = volumeDecibels
      self.lowPass = lowPass
      self.highPass = highPass
    }
  }

  public var name: String
  public var buses: [SoundCategory: BusChange]
  /// Game parameters' values at full intensity (each within its range).
  public var parameters: [String: Double]
  public var mode: Mode
  /// Higher priorities combine later: an override of a higher priority wins.
  public var priority: Int
  /// The game parameter its intensity follows (nil: moved by hand only).
  public var driver: Driver?

  public init(
    _ name: String, buses: [SoundCategory: BusChange] = [:], parameters: [String: Double] = [:],
    mode: Mode = .override, priority: Int = 0, driver: Driver? = nil
  ) {
    self.name = name
    self.buses = buses
    self.parameters = parameters
    self.mode = mode
    self.priority = priority
    self.driver = driver
  }
}
