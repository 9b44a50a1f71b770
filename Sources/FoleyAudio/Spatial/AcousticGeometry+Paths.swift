package import FoleyCore
import Foundation

/// A path made in two steps: the walk over the grid (``AcousticGeometry/walls(from:to:)``, the
/// costly part) and the path for the places the listener and the source are in now, which may be
/// a little away from where the walk was made (``AcousticGeometry/path(from:to:walls:spatial:)``).
extension AcousticGeometry {
  /// What the lines from `listener` to `source` lose through the walls: the straight line's
  /// loss, and, when that line is blocked, the three open portals nearest the source with the
  /// loss from each to it. The walk over the grid, the costly part of a path; ``path(from:to:walls:spatial:)``
  /// makes a path of it for the places the listener and the source are in now.
  package mutating func walls(from listener: Point, to source: Point) -> AcousticWalls {
    let direct = loss(from: listener, to: source)
    var walls = AcousticWalls(
      directGain: direct.gain, directCutoffLog2: direct.cutoffLog2, wallsCrossed: direct.count,
      directCutoff: exp2(direct.cutoffLog2),
      occlusionDecibels: direct.gain > 0 ? 20 * log10(direct.gain) : -100)
    guard direct.count > 0, !portals.isEmpty else { return walls }
    // The three open portals nearest the source (squared distances; no list made).
    var nearest = (-1, -1, -1)
    var distances = (Double.infinity, Double.infinity, Double.infinity)
    for index in portals.indices where portals[index].openness > 0 {
      let middle = portals[index].middle
      let squared =
        (middle.x - source.x) * (middle.x - source.x) + (middle.y - source.y) * (middle.y - source.y)
      if squared < distances.0 {
        (nearest, distances) = ((index, nearest.0, nearest.1), (squared, distances.0, distances.1))
      } else if squared < distances.1 {
        (nearest.1, nearest.2, distances.1, distances.2) = (index, nearest.1, squared, distances.1)
      } else if squared < distances.2 {
        (nearest.2, distances.2) = (index, squared)
      }
    }
    for slot in 0..<3 {
      let index = slot == 0 ? nearest.0 : slot == 1 ? nearest.1 : nearest.2
      guard index >= 0 else { break }
      let leg = loss(from: portals[index].middle, to: source, excluding: index)
      walls[slot] = AcousticWalls.Leg(portal: index, gain: leg.gain, cutoffLog2: leg.cutoffLog2)
    }
    return walls
  }

  /// How a source at `source` is heard from `listener`: the straight line through whatever walls
  /// it crosses, and, when that line is blocked, the paths through the three open portals nearest
  /// the source (heard from the portal's direction, over the path's length), summed by power.
  package mutating func path(from listener: Point, to source: Point, spatial: SpatialAudio) -> AcousticPath {
    path(from: listener, to: source, walls: walls(from: listener, to: source), spatial: spatial)
  }

  /// The path from `listener` to `source` through the losses of a walk (``walls(from:to:)``),
  /// which may have been made for places near these: distances, pans and the listener's legs to
  /// the portals are worked out for the places given.
  package mutating func path(
    from listener: Point, to source: Point, walls: AcousticWalls, spatial: SpatialAudio
  ) -> AcousticPath {
    let straight =
      ((source.x - listener.x) * (source.x - listener.x)
      + (source.y - listener.y) * (source.y - listener.y)).squareRoot()
    let directGain = spatial.gain(atDistance: straight) * walls.directGain
    let directPan = spatial.pan(forHorizontalOffset: source.x - listener.x)
    var power = directGain * directGain
    var panSum = power * directPan
    var cutoffSum = power * walls.directCutoffLog2
    var loudest = power
    var portal: Int?
    if walls.first.portal >= 0 {
      legs(from: listener)
      for slot in 0..<3 {
        let leg = walls[slot]
        guard leg.portal >= 0 else { break }
        let index = leg.portal
        let middle = portals[index].middle
        let toPortal = legs[index]
        guard toPortal.gain > 0 else { continue }
        let length =
          toPortal.length
          + ((source.x - middle.x) * (source.x - middle.x) + (source.y - middle.y) * (source.y - middle.y))
          .squareRoot()
        let gain = spatial.gain(atDistance: length) * portals[index].openness * toPortal.gain * leg.gain
        let share = gain * gain
        guard share > 0 else { continue }
        power += share
        panSum += share * spatial.pan(forHorizontalOffset: middle.x - listener.x)
        cutoffSum += share * min(toPortal.cutoffLog2, leg.cutoffLog2)
        if share > loudest {
          loudest = share
          portal = index
        }
      }
    }
    let send = rooms.isEmpty ? 0 : room(containing: source).map { rooms[$0].send } ?? 0
    guard power > 0 else {
      return AcousticPath(
        gain: 0, pan: directPan, cutoff: walls.directCutoff, portal: nil, wallsCrossed: walls.wallsCrossed,
        occlusionDecibels: walls.occlusionDecibels, send: send)
    }
    // Heard only along the straight line: its own cutoff, worked out once per walk.
    let cutoff = power == directGain * directGain ? walls.directCutoff : exp2(cutoffSum / power)
    return AcousticPath(
      gain: power.squareRoot(), pan: min(1, max(-1, panSum / power)), cutoff: cutoff, portal: portal,
      wallsCrossed: walls.wallsCrossed, occlusionDecibels: walls.occlusionDecibels, send: send)
  }
}

/// What one walk of the grid found for a voice (``AcousticGeometry/walls(from:to:)``): the
/// straight line's loss and, when it is blocked, the portals nearest the source with the loss
/// from each to it. A plain value, kept for the voice between walks.
package struct AcousticWalls {
  struct Leg {
    /// The portal's number, or -1 for none.
    var portal: Int
    var gain: Double
    var cutoffLog2: Double
    static let none = Leg(portal: -1, gain: 0, cutoffLog2: 0)
  }

  var directGain: Double
  var directCutoffLog2: Double
  var wallsCrossed: Int
  /// The straight line's cutoff in hertz, and its loss in dB (-100 at most).
  var directCutoff: Double
  var occlusionDecibels: Double
  var first = Leg.none
  var second = Leg.none
  var third = Leg.none

  /// Not walked yet.
  package static let unwalked = AcousticWalls(
    directGain: 1, directCutoffLog2: log2(20_000), wallsCrossed: 0, directCutoff: 20_000,
    occlusionDecibels: 0)

  subscript(slot: Int) -> Leg {
    get { slot == 0 ? first : slot == 1 ? second : third }
    set {
      switch slot {
      case 0: first = newValue
      case 1: second = newValue
      default: third = newValue
      }
    }
  }
}
