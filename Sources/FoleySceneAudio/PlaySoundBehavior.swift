import FoleyAudio
import FoleyScene
import Foundation

struct PlaySoundBehavior: ActionBehavior {
  package let source: SoundSource
  package let waitForCompletion: Bool
  package let engine: AudioEngine?
  package let volume: Double
  package let loops: Int
  package let options: PlayOptions?
  /// The sound's length when the action waits for it (for sequences, groups and timing curves):
  /// known for a decoded sound, read from the header for bytes, unknown (0) for a file by name.
  package let duration: TimeInterval

  package init(
    source: SoundSource, waitForCompletion: Bool, engine: AudioEngine?, volume: Double = 1, loops: Int = 0,
    options: PlayOptions? = nil
  ) {
    self.source = source
    self.waitForCompletion = waitForCompletion
    self.engine = engine
    self.volume = volume
    self.loops = loops
    self.options = options
    // A play that loops for ever, or starts later, has no length to wait for that a header says.
    let passes = loops < 0 ? 0 : Double(loops + 1) / (options?.rate ?? 1)
    switch (waitForCompletion, source) {
    case (true, .sound(let sound)): duration = sound.duration * passes
    case (true, .data(let reference)): duration = (SoundProbe.duration(of: reference.data) ?? 0) * passes
    default: duration = 0
    }
  }

  /// Starts the play for `node`.
  @MainActor
  func start(for node: Node) -> Voice? {
    SceneVoices.start(source, for: node, engine: engine, volume: volume, loops: loops, options: options)
  }

  package func makeRunner(on node: Node) -> any ActionRunner {
    PlaySoundRunner(behavior: self)
  }

  /// A play that does not wait for its sound is over once the voice is asked for: the node runs
  /// it without a runner.
  package var isInstant: Bool { !waitForCompletion }

  package func perform(on node: Node) {
    _ = start(for: node)
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
    guard let started = behavior.start(for: node) else {
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
