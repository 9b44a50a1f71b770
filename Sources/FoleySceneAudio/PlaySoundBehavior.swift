import FoleyAudio
import FoleyScene
import Foundation

struct PlaySoundBehavior: ActionBehavior {
  package let source: SoundSource
  package let waitForCompletion: Bool
  package let engine: AudioEngine?
  /// The sound's length when the action waits for it (for sequences, groups and timing curves):
  /// known for a decoded sound, read from the header for bytes, unknown (0) for a file by name.
  package let duration: TimeInterval

  package init(source: SoundSource, waitForCompletion: Bool, engine: AudioEngine?) {
    self.source = source
    self.waitForCompletion = waitForCompletion
    self.engine = engine
    switch (waitForCompletion, source) {
    case (true, .sound(let sound)): duration = sound.duration
    case (true, .data(let reference)): duration = SoundProbe.duration(of: reference.data) ?? 0
    default: duration = 0
    }
  }

  package func makeRunner(on node: Node) -> any ActionRunner {
    PlaySoundRunner(behavior: self)
  }

  /// A play that does not wait for its sound is over once the voice is asked for: the node runs
  /// it without a runner.
  package var isInstant: Bool { !waitForCompletion }

  package func perform(on node: Node) {
    _ = SceneVoices.start(source, for: node, engine: engine)
  }
}

@MainActor
final class PlaySoundRunner: ActionRunner {
  private let behavior: PlaySoundBehavior
  private var voice: Voice?

  package init(behavior: PlaySoundBehavior) {
    self.behavior = behavior
  }

  package func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    if let voice {
      return voice.isFinished ? 0 : nil
    }
    guard let started = SceneVoices.start(behavior.source, for: node, engine: behavior.engine) else {
      return deltaTime
    }
    voice = started
    return behavior.waitForCompletion && !started.isFinished ? nil : deltaTime
  }

  package func restart(on node: Node) -> Bool {
    voice = nil
    return true
  }
}
