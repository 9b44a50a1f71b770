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
    let scene = node.scene
    let link = scene.flatMap(SceneAudioLink.of)
    guard let core = behavior.engine?.core ?? link?.core else { return deltaTime }
    let attached = link.map { $0.core === core } ?? false
    let positional = attached && link!.positionalActions
    let audio = NodeAudio.of(node)
    // An attached scene hands the frame's requests to the audio queue in one go after its
    // actions ran; otherwise the request goes at once.
    let started = core.requestPlay(
      behavior.source, volume: 1, pan: audio?.pan ?? 0, groupVolume: audio?.volume ?? 1, deferred: attached,
      placement: positional ? link!.placement(for: node) : nil)
    if !started.isFinished {
      (audio ?? NodeAudio.ensure(node)).started(started)
      if positional { link!.follow(started, of: node) }
    }
    voice = started
    return behavior.waitForCompletion && !started.isFinished ? nil : deltaTime
  }

  func restart(on node: Node) -> Bool {
    voice = nil
    return true
  }
}
