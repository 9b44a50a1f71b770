import Foundation

/// Runs an action on a faster or slower clock (`Action.speed`), converting leftover time back.
@MainActor
final class SpeedRunner: ActionRunner {
  private let inner: any ActionRunner
  private let speed: Double

  init(inner: any ActionRunner, speed: Double) {
    self.inner = inner
    self.speed = speed
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    // Speed 0 (or a nonsensical negative one) holds the action still, as in SpriteKit.
    guard speed > 0, let leftover = inner.advance(by: deltaTime * speed, on: node) else {
      return nil
    }
    return leftover / speed
  }

  func restart(on node: Node) -> Bool { inner.restart(on: node) }
}
