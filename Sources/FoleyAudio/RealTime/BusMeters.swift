import Synchronization

/// The buses' peak meters: one atomic per bus, written by the mixing thread once per callback and
/// read by anyone (a HUD, an inspector).
package final class BusMeters: Sendable {
  private final class Meter: Sendable {
    let peak = Atomic<UInt32>(Float(0).bitPattern)
  }

  private let meters: [Meter]

  init(count: Int) { meters = (0..<count).map { _ in Meter() } }

  package func peak(of bus: Int) -> Float {
    guard meters.indices.contains(bus) else { return 0 }
    return Float(bitPattern: meters[bus].peak.load(ordering: .relaxed))
  }

  @inline(__always)
  func store(_ peak: Float, for bus: Int) { meters[bus].peak.store(peak.bitPattern, ordering: .relaxed) }
}
