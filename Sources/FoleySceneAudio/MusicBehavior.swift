import FoleyAudio
import FoleyMusic
import FoleyScene
import Foundation

/// What `Action.playMusic(_:tween:engine:)` and `Action.stopMusic(tween:engine:)` do: tell the music
/// player of the engine attached to the node's scene (or the one given) to play or stop. The
/// action itself is instantaneous; the music goes on after it.
struct MusicBehavior: InstantActionBehavior {
  enum Command {
    case play(Track, tween: Tween)
    case stop(tween: Tween)
  }

  package let command: Command
  package let engine: AudioEngine?

  package func perform(on node: Node) {
    guard let engine = engine ?? node.scene.flatMap(SceneAudioLink.of)?.engine, !engine.isClosed else {
      return
    }
    switch command {
    case .play(let track, let tween): engine.music.play(track, tween: tween)
    case .stop(let tween): engine.music.stop(tween: tween)
    }
  }
}
