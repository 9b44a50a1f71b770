import Foundation

/// Runs an action on a faster or slower clock (`Action.speed`), converting leftover time back.
@MainActor
final class SpeedRunner: RunnerStage {
  private let inner: RunnerStage
  private let speed: Double

  init(inner: RunnerStage, speed: Double) {
    self.inner = inner
    self.speed = speed
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    // Speed 0 (or a nonsensical negative one) holds the action still, as in SpriteKit.
    let scaled = deltaTime * speed
    guard speed > 0,
      let leftover = Unmanaged.passUnretained(inner).borrow({ $0.advance(by: scaled, on: node) })
    else {
      return nil
    }
    return leftover / speed
  }

  override func restart(on node: Node) -> Bool { inner.restart(on: node) }
}
