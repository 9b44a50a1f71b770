import FoleyAudio
import FoleyMusic
import FoleyScene
import Foundation

/// What `Action.playMusic(_:crossfade:)` and `Action.stopMusic(fadeOut:)` do: tell the music
/// player of the engine attached to the node's scene (or the one given) to play or stop. The
/// action itself is instantaneous; the music goes on after it.
struct MusicBehavior: InstantActionBehavior {
  enum Command {
    case play(Track, crossfade: Double)
    case stop(fadeOut: Double)
  }

  package let command: Command
  package let engine: AudioEngine?

  package func perform(on node: Node) {
    guard let engine = engine ?? node.scene.flatMap(SceneAudioLink.of)?.engine, !engine.isClosed else {
      return
    }
    switch command {
    case .play(let track, let crossfade): engine.music.play(track, crossfade: crossfade)
    case .stop(let fadeOut): engine.music.stop(fadeOut: fadeOut)
    }
  }
}
