import FoleyAudio
import FoleyScene
import Foundation

/// `Action.play()`, `.pause()` and `.stop()`: on an ``AudioNode``, its sound; on any other node,
/// the voices the node's sound actions started. Instantaneous.
struct PlaybackBehavior: InstantActionBehavior {
  enum Command {
    case play
    case pause
    case stop
  }

  package let command: Command

  package func perform(on node: Node) {
    if let audioNode = node as? AudioNode {
      switch command {
      case .play: audioNode.play()
      case .pause: audioNode.pause()
      case .stop: audioNode.stop()
      }
    } else if let audio = NodeAudio.of(node) {
      for voice in audio.liveVoices {
        switch command {
        case .play: voice.resume()
        case .pause: voice.pause()
        case .stop: voice.stop()
        }
      }
    }
  }

  package func reversed() -> any ActionBehavior {
    // As SpriteKit's: play and pause undo each other; stop has no inverse.
    switch command {
    case .play: PlaybackBehavior(command: .pause)
    case .pause: PlaybackBehavior(command: .play)
    case .stop: self
    }
  }
}
