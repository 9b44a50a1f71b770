import FoleyAudio
import FoleyScene
import Foundation

/// `Action.changeVolume(to:duration:)`, `.changeVolume(by:duration:)`, `.stereoPan(to:duration:)`,
/// `.stereoPan(by:duration:)`, `.changePlaybackRate`, `.changeReverb`, `.changeObstruction` and
/// `.changeOcclusion`: moves one of the node's audio properties (and with it its voices', now and
/// to come) over the duration. Each frame's step glides over that frame's time on the mixing
/// thread, so the change is a continuous ramp, not a staircase.
struct NodeAudioChangeBehavior: ActionBehavior {
  enum Property {
    case volume
    case pan
    case playbackRate
    case reverb
    case obstruction
    case occlusion

    @MainActor package func value(of audio: NodeAudio) -> Double {
      switch self {
      case .volume: audio.volume
      case .pan: audio.pan
      case .playbackRate: audio.playbackRate
      case .reverb: audio.reverbSend
      case .obstruction: audio.obstruction
      case .occlusion: audio.occlusion
      }
    }

    @MainActor package func set(_ value: Double, on audio: NodeAudio, over duration: Double) {
      switch self {
      case .volume: audio.setVolume(value)
      case .pan: audio.setPan(value)
      case .playbackRate: audio.setPlaybackRate(value, over: duration)
      case .reverb: audio.setReverbSend(value, over: duration)
      case .obstruction: audio.setObstruction(value, over: duration)
      case .occlusion: audio.setOcclusion(value, over: duration)
      }
    }
  }

  let property: Property
  package let target: Double
  package let relative: Bool
  package let duration: TimeInterval

  package func makeRunner(on node: Node) -> any ActionRunner {
    NodeAudioChangeRunner(behavior: self)
  }

  package func reversed() -> any ActionBehavior {
    relative
      ? NodeAudioChangeBehavior(property: property, target: -target, relative: true, duration: duration)
      : self
  }
}

@MainActor
final class NodeAudioChangeRunner: ActionRunner {
  private let behavior: NodeAudioChangeBehavior
  private var start: Double?
  private var elapsed: TimeInterval = 0

  package init(behavior: NodeAudioChangeBehavior) {
    self.behavior = behavior
  }

  package func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    let audio = NodeAudio.ensure(node)
    let from = start ?? behavior.property.value(of: audio)
    start = from
    let goal = behavior.relative ? from + behavior.target : behavior.target
    elapsed += deltaTime
    let progress = behavior.duration > 0 ? min(1, elapsed / behavior.duration) : 1
    behavior.property.set(from + (goal - from) * progress, on: audio, over: deltaTime)
    return progress >= 1 ? max(0, elapsed - behavior.duration) : nil
  }

  package func restart(on node: Node) -> Bool {
    start = nil
    elapsed = 0
    return true
  }
}
