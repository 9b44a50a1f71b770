import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// A moving positional voice's placements reach the mix without a hop through the audio queue:
/// once the queue has placed a voice, the game's next placements go to the voice itself and the
/// mixing thread takes them at its next buffer. Each test holds the queue's hop (as a queue that
/// has not run yet would) to tell the two ways apart.
@MainActor
@Suite("Placements the mix follows")
struct PlacementFollowTests {
  /// A constant level hard left (``LateQueueGlideTests/levelAtLeft(_:)``), moved once through
  /// the queue, which hands the voice to the mix.
  static func playing(_ audio: EmbeddedAudio) -> (Scene, Node, source: Float) {
    let (scene, node, source) = LateQueueGlideTests.levelAtLeft(audio)
    node.position = Point(x: 10, y: 300)
    audio.advance(seconds: 0.1, stepping: scene)
    return (scene, node, source)
  }

  /// The last frame mixed, left and right.
  static func lastFrame(_ audio: EmbeddedAudio) -> (left: Float, right: Float) {
    (audio.output[audio.output.count - 2], audio.output[audio.output.count - 1])
  }

  /// Mixes one buffer as the device would, without waiting for the audio queue (which serves a
  /// held hop when it is waited for); returns its last frame.
  static func mixWithoutTheQueue(_ audio: EmbeddedAudio, frames: Int) -> (left: Float, right: Float) {
    audio.mixer.advance(frames: frames)
    let output = audio.mixer.takeOutput()
    return (output[output.count - 2], output[output.count - 1])
  }

  @Test("a placement made between two buffers is heard in the next one, with the queue's hop held")
  func heardInTheNextBuffer() throws {
    let audio = try EmbeddedAudio(limiter: false, bufferFrames: 512)
    let (scene, node, source) = Self.playing(audio)
    #expect(Self.lastFrame(audio).left > source * 0.99)
    let (left, right) = audio.engine.holdingRequests {
      // Hard right, over an update of 256 frames: the next 512-frame buffer ends there.
      node.position = Point(x: 800, y: 300)
      scene.update(deltaTime: 256.0 / 48_000)
      return Self.mixWithoutTheQueue(audio, frames: 512)
    }
    #expect(abs(right - source) < 1e-4 && left < 1e-4, "left \(left), right \(right)")
  }

  @Test("with a voice budget the queue ranks every move: a held hop holds the placement too")
  func budgetedMovesWaitForTheQueue() throws {
    let audio = try EmbeddedAudio(limiter: false, bufferFrames: 512)
    try audio.engine.bus(.effects).setMaximumAudibleVoices(4)
    let (scene, node, source) = Self.playing(audio)
    let held = audio.engine.holdingRequests {
      node.position = Point(x: 800, y: 300)
      scene.update(deltaTime: 256.0 / 48_000)
      return Self.mixWithoutTheQueue(audio, frames: 512)
    }
    // Still hard left: the move waited for the hop.
    #expect(held.left > source * 0.99)
    audio.advance(frames: 1_024)
    let (left, right) = Self.lastFrame(audio)
    #expect(abs(right - source) < 1e-4 && left < 1e-4, "left \(left), right \(right)")
  }

  @Test("the queue taking a followed voice back (a volume change) keeps the newest placement")
  func takenBackWithTheNewestPlacement() throws {
    let audio = try EmbeddedAudio(limiter: false, bufferFrames: 512)
    let (scene, node, source) = Self.playing(audio)
    let voice = try #require(audio.engine.newestVoice(of: node))
    audio.engine.holdingRequests {
      // The mix follows this move alone; no other move follows it.
      node.position = Point(x: 800, y: 300)
      scene.update(deltaTime: 256.0 / 48_000)
    }
    // The queue takes the voice back for the volume change, then places it where the game last
    // put it: hard right, at half the level.
    voice.volume = 0.5
    audio.advance(frames: 2_048)
    let (left, right) = Self.lastFrame(audio)
    #expect(abs(right - source * 0.5) < 1e-4 && left < 1e-4, "left \(left), right \(right)")
  }
}
