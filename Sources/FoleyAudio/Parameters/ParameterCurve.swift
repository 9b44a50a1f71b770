/// A mapping from a game parameter's value to a property's: points joined by straight lines or
/// by smooth (smoothstep) segments, flat beyond the first and the last point.
///
/// A volume curve gives decibels: this one takes an engine's speed, 0…1, to -30 dB at rest and
/// 0 dB flat out.
///
/// ```swift
/// let roar = try ParameterCurve([(0, -30), (0.7, -6), (1, 0)], interpolation: .smooth)
/// roar.value(at: 0.35)   // between -30 and -6, eased at both ends
/// ```
public struct ParameterCurve: Sendable, Hashable, CustomStringConvertible {
  /// How the curve runs between two points.
  public enum Interpolation: String, Sendable, Hashable, CaseIterable {
    /// A straight line.
    case linear
    /// Smoothstep: flat at both points, so a parameter sweeping past a point never kinks.
    case smooth
  }

  /// One point: a parameter value and the property's value there.
  public struct Point: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
      self.x = x
      self.y = y
    }
  }

  /// The most points a curve has (the mixing thread holds them in a fixed place).
  public static let maximumPoints = 8

  /// The points, in increasing order of `x`.
  public let points: [Point]
  public let interpolation: Interpolation

  /// A curve through `points`, given as `(x, y)` in increasing `x`.
  /// - Throws: ``ParameterError/invalid(_:)`` for fewer than 2 or more than 8 points, a value
  ///   that is not finite, or `x`s that do not increase.
  public init(_ points: [(Double, Double)], interpolation: Interpolation = .linear) throws(ParameterError) {
    guard (2...Self.maximumPoints).contains(points.count) else {
      throw .invalid("a curve has 2 to \(Self.maximumPoints) points, not \(points.count)")
    }
    for (index, point) in points.enumerated() {
      guard point.0.isFinite, point.1.isFinite else {
        throw .invalid("curve point \(index) (\(point.0), \(point.1)) is not finite")
      }
      if index > 0, point.0 <= points[index - 1].0 {
        throw .invalid(
          "curve point \(index) has x \(point.0), not above the one before (\(points[index - 1].0))")
      }
    }
    self.points = points.map { Point(x: $0.0, y: $0.1) }
    self.interpolation = interpolation
  }

  /// The property's value where the parameter is at `x`.
  public func value(at x: Double) -> Double {
    guard let first = points.first, let last = points.last else { return 0 }
    if !(x > first.x) { return first.y }
    if x >= last.x { return last.y }
    var index = 1
    while points[index].x < x { index += 1 }
    let low = points[index - 1]
    let high = points[index]
    var t = (x - low.x) / (high.x - low.x)
    if interpolation == .smooth { t = t * t * (3 - 2 * t) }
    return low.y + (high.y - low.y) * t
  }

  public var description: String {
    "ParameterCurve(" + points.map { "(\($0.x), \($0.y))" }.joined(separator: ", ") + ", \(interpolation))"
  }
}
