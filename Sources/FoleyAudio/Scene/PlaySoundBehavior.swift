import FoleyScene
import Foundation

struct PlaySoundBehavior: ActionBehavior {
  let source: SoundSource
  let waitForCompletion: Bool
  let engine: AudioEngine?
  /// The sound's length when the action waits for it (for sequences, groups and timing curves):
  /// known for a decoded sound, read from the header for bytes, unknown (0) for a file by name.
  let duration: TimeInterval

  init(source: SoundSource, waitForCompletion: Bool, engine: AudioEngine?) {
    self.source = source
    self.waitForCompletion = waitForCompletion
    self.engine = engine
    switch (waitForCompletion, source) {
    case (true, .sound(let sound)): duration = sound.duration
    case (true, .data(let reference)): duration = SoundProbe.duration(of: reference.data) ?? 0
    default: duration = 0
    }
  }

  func makeRunner(on node: Node) -> any ActionRunner {
    PlaySoundRunner(behavior: self)
  }
}

@MainActor
final class PlaySoundRunner: ActionRunner {
  private let behavior: PlaySoundBehavior
  private var voice: Voice?

  init(behavior: PlaySoundBehavior) {
    self.behavior = behavior
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    if let voice {
      return voice.isFinished ? 0 : nil
    }
    guard let engine = behavior.engine ?? node.scene?.service(AudioEngine.self) else { return deltaTime }
    let pan =
      node.scene.flatMap { scene in scene.service(SceneAudioLink.self)?.pan(for: node, in: scene) } ?? 0
    let started = engine.play(
      behavior.source, volume: 1, pan: pan, groupVolume: engine.nodeVolumes.volume(of: node))
    engine.nodeVolumes.register(started, for: node)
    voice = started
    return behavior.waitForCompletion && !started.isFinished ? nil : deltaTime
  }
}
