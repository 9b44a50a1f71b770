import FoleyScene
import Foundation

struct ChangeVolumeBehavior: ActionBehavior {
  let target: Double
  let relative: Bool
  let duration: TimeInterval

  func makeRunner(on node: Node) -> any ActionRunner {
    ChangeVolumeRunner(behavior: self)
  }

  func reversed() -> any ActionBehavior {
    relative ? ChangeVolumeBehavior(target: -target, relative: true, duration: duration) : self
  }
}

@MainActor
final class ChangeVolumeRunner: ActionRunner {
  private let behavior: ChangeVolumeBehavior
  private var start: Double?
  private var elapsed: TimeInterval = 0

  init(behavior: ChangeVolumeBehavior) {
    self.behavior = behavior
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    let audio = NodeAudio.ensure(node)
    let from = start ?? audio.volume
    start = from
    let goal = behavior.relative ? from + behavior.target : behavior.target
    elapsed += deltaTime
    let progress = behavior.duration > 0 ? min(1, elapsed / behavior.duration) : 1
    audio.setVolume(max(0, from + (goal - from) * progress))
    return progress >= 1 ? max(0, elapsed - behavior.duration) : nil
  }

  func restart(on node: Node) -> Bool {
    start = nil
    elapsed = 0
    return true
  }
}
