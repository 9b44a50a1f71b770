import Foundation

/// How positional sound is heard: how gain falls with distance from the scene's listener, and how
/// far to the side a sound must be to come from one speaker only. Distances are in scene points.
///
/// ```swift
/// var spatial = SpatialAudio()
/// spatial.distanceModel = .inverse(reference: 80, rolloff: 1)   // -6 dB at 160 points
/// spatial.panWidth = 300                                         // full left/right 300 points aside
/// spatial.maximumDistance = 1_200                                // virtual (still in time) beyond
/// engine.attach(to: scene, positional: true, spatial: spatial)
/// ```
///
/// The models are OpenAL's (clamped): distances below the reference are heard at full level.
/// Mono sources pan on a constant-power law (-3 dB in each ear at the centre, `cos` and `sin` of
/// (pan + 1)·π/4), so a sound moving across keeps its loudness; stereo sources keep a balance law
/// (the far side turned down) so their own stereo picture survives.
public struct SpatialAudio: Sendable, Hashable {
  /// How gain falls with distance `d` beyond the reference distance `r`.
  public enum DistanceModel: Sendable, Hashable {
    /// No attenuation.
    case none
    /// `r / (r + rolloff·(d − r))`: halves (-6 dB) at twice the reference with rolloff 1.
    case inverse(reference: Double, rolloff: Double)
    /// Falls in a straight line from 1 at `r` to 0 at `maximum`.
    case linear(reference: Double, maximum: Double)
    /// `(d / r)^−rolloff`.
    case exponential(reference: Double, rolloff: Double)
  }

  public var distanceModel: DistanceModel = .inverse(reference: 100, rolloff: 1)
  /// The horizontal distance from the listener at which a sound is fully left or right.
  public var panWidth: Double = 400
  /// Beyond this distance a sound is silent: its voice goes virtual (``Voice/isVirtual``: no
  /// channel, no mixing, its clock running) and comes back on its sample when it is nearer.
  public var maximumDistance: Double = .infinity
  /// Stop sounds beyond ``maximumDistance`` instead of keeping them silent.
  public var stopsBeyondMaximumDistance = false
  /// The speed of sound in scene points per second, for doppler: a positional voice whose node
  /// approaches the listener at `v` points per second plays at c / (c − v) times its rate (and
  /// below 1 as it recedes; `v` is held within ±c/2). Nil, the default, is no doppler.
  ///
  /// ```swift
  /// spatial.speedOfSound = 3_430     // one point is 10 cm
  /// ```
  public var speedOfSound: Double?
  /// Over how many updates the walking of a scene's walls and doors is spread for moving voices
  /// (1…60). A moving voice is placed through the walls on the scene's acoustics thread, during
  /// the game's frame, and heard so from the next update (one update behind its node); its lines
  /// through the walls are walked afresh once in this many updates, the losses found kept
  /// between (its distances, pans and the path's length are worked out every update). A new
  /// voice, and every voice after a wall, door or room changes, is walked at once on the game
  /// thread. 1 walks every moving voice every update; the default, 4, keeps each within 4 updates
  /// (67 ms at 60 Hz) of its walls for a quarter of the walking, as Wwise's load-balancing spread
  /// does.
  ///
  /// ```swift
  /// spatial.geometryUpdateSpread = 1     // every moving voice's walls walked every update
  /// ```
  public var geometryUpdateSpread: Int = 4 {
    didSet { geometryUpdateSpread = min(max(geometryUpdateSpread, 1), 60) }
  }

  public init() {}

  /// The gain at `distance` from the listener.
  @inlinable
  public func gain(atDistance distance: Double) -> Double {
    guard distance.isFinite, distance <= maximumDistance else { return 0 }
    switch distanceModel {
    case .none:
      return 1
    case .inverse(let reference, let rolloff):
      guard reference > 0, distance > reference else { return 1 }
      return reference / (reference + max(0, rolloff) * (distance - reference))
    case .linear(let reference, let maximum):
      guard distance > reference else { return 1 }
      guard maximum > reference else { return 0 }
      return max(0, 1 - (distance - reference) / (maximum - reference))
    case .exponential(let reference, let rolloff):
      guard reference > 0, distance > reference else { return 1 }
      return Self.power(distance / reference, -max(0, rolloff))
    }
  }

  /// `pow`, for the inlinable ``gain(atDistance:)`` (Foundation is imported internally).
  @usableFromInline
  static func power(_ base: Double, _ exponent: Double) -> Double { pow(base, exponent) }

  /// The doppler factor of a source approaching the listener at `speed` points per second (1
  /// without ``speedOfSound``).
  public func dopplerFactor(approachingAt speed: Double) -> Double {
    guard let speedOfSound, speedOfSound > 0, speedOfSound.isFinite, speed.isFinite else { return 1 }
    let held = min(max(speed, -speedOfSound / 2), speedOfSound / 2)
    return speedOfSound / (speedOfSound - held)
  }

  /// The pan (-1 left ... 1 right) of a sound `offset` points right of the listener.
  @inlinable
  public func pan(forHorizontalOffset offset: Double) -> Double {
    guard panWidth > 0, offset.isFinite else { return 0 }
    return min(1, max(-1, offset / panWidth))
  }

  /// How a sound `dx` right of and `dy` above a lone listener is placed (its distance gain and
  /// pan), and its distance: the one reckoning a scene's link and the engine's space both use.
  @inline(__always)
  package func placement(dx: Double, dy: Double) -> (SpatialPlacement, Double) {
    let distance = (dx * dx + dy * dy).squareRoot()
    return (SpatialPlacement(gain: gain(atDistance: distance), pan: pan(forHorizontalOffset: dx)), distance)
  }

  /// Left and right gains for `pan` on the law for a source of `channels` channels.
  package static func gains(pan: Double, channels: Int) -> (left: Double, right: Double) {
    if channels == 1 {
      let angle = (pan + 1) * Double.pi / 4
      return (cos(angle), sin(angle))
    }
    return (min(1, 1 - pan), min(1, 1 + pan))
  }
}

/// Where a positional voice is heard from: the distance gain and the pan the scene computed.
package struct SpatialPlacement: Sendable, Equatable {
  package var gain: Double
  package var pan: Double

  package init(gain: Double, pan: Double) {
    self.gain = gain
    self.pan = pan
  }
}

/// A positional voice's new placement on its way to the audio queue (`updatePlacements`). A
/// plain value with the voice unretained: the game thread's list of an update's moves fills and
/// empties without reference counting (a strong reference in a tuple cost more to destroy than
/// placing the voice), and without touching the voice's reference count, which the queue's and
/// mixing thread's cores also write. Whoever sends a move keeps the voice alive until the queue
/// is past it: the scene link hands the voices it lets go to the queue to release
/// (`updatePlacements(_:releasing:overFrames:)`, `release(afterQueue:)`), after every move
/// sent before.
package struct PlacementMove: Sendable {
  package let voice: Unmanaged<Voice>
  package let placement: SpatialPlacement

  /// (An `Unmanaged` in, not the voice: an initializer's arguments are owned, so passing the
  /// voice would retain it for the call.)
  package init(_ voice: Unmanaged<Voice>, to placement: SpatialPlacement) {
    self.voice = voice
    self.placement = placement
  }
}
