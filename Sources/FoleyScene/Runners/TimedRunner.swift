import Foundation

/// Remaps time for a container action (sequence, group, repeat, behavior) whose timing curve is not
/// linear or whose duration was overridden: the parts see `innerDuration * curve(t / duration)`.
@MainActor
final class TimedRunner: RunnerStage {
  private let inner: RunnerStage
  private let duration: TimeInterval
  private let innerDuration: TimeInterval
  private let curve: ActionTimingFunction
  @exclusivity(unchecked) private var elapsed: TimeInterval = 0
  @exclusivity(unchecked) private var innerElapsed: TimeInterval = 0

  init(
    inner: RunnerStage, duration: TimeInterval, innerDuration: TimeInterval,
    curve: @escaping ActionTimingFunction
  ) {
    self.inner = inner
    self.duration = duration
    self.innerDuration = innerDuration
    self.curve = curve
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    let scale = innerDuration / duration
    let windowEnd = min(elapsed + deltaTime, duration)
    // Inside the window the curve decides; past it (a part ran long, e.g. a random wait) time
    // passes through at the average rate so the part can still finish.
    let curved = innerDuration * curve(windowEnd / duration)
    let beyond = max(0, elapsed + deltaTime - duration)
    let target = max(innerElapsed, ActionClock.hasReached(windowEnd, duration) ? innerDuration : curved)
    let innerDelta = (target - innerElapsed) + beyond * scale
    elapsed += deltaTime
    innerElapsed = target
    guard let leftover = Unmanaged.passUnretained(inner).borrow({ $0.advance(by: innerDelta, on: node) })
    else {
      return nil
    }
    return min(deltaTime, leftover / scale)
  }

  override func restart(on node: Node) -> Bool {
    elapsed = 0
    innerElapsed = 0
    return inner.restart(on: node)
  }
}
