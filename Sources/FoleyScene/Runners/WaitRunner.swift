import Foundation

/// Lets time pass and hands back what is left after the duration. A wait with a range draws its
/// duration from the scene's seeded generator each time it starts.
@MainActor
final class WaitRunner: RunnerStage {
  private let baseDuration: TimeInterval
  private let range: TimeInterval
  @exclusivity(unchecked) private var duration: TimeInterval
  @exclusivity(unchecked) private var elapsed: TimeInterval = 0

  init(duration: TimeInterval, range: TimeInterval, on node: Node) {
    baseDuration = duration
    self.range = range
    self.duration = duration
    super.init()
    draw(on: node)
  }

  private func draw(on node: Node) {
    guard range > 0 else { return }
    let offset = node.scene.map { Double.random(in: -0.5...0.5, using: &$0.random) } ?? 0
    duration = max(0, baseDuration + range * offset)
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    elapsed += deltaTime
    return ActionClock.hasReached(elapsed, duration) ? ActionClock.leftover(elapsed, duration) : nil
  }

  override func restart(on node: Node) -> Bool {
    elapsed = 0
    draw(on: node)
    return true
  }
}
