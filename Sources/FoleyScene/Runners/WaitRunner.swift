import Foundation

/// Lets time pass and hands back what is left after `duration`.
@MainActor
final class WaitRunner: ActionRunner {
  private let duration: TimeInterval
  private var elapsed: TimeInterval = 0

  init(duration: TimeInterval) {
    self.duration = duration
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    elapsed += deltaTime
    return ActionClock.hasReached(elapsed, duration) ? ActionClock.leftover(elapsed, duration) : nil
  }
}
