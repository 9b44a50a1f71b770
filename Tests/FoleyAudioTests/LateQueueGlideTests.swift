import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// A queue that runs late (a loaded machine, a stalled thread) must not turn a moving voice's
/// glide into a step: the moves of every update that waited glide over all their time. Nor must
/// a mix that runs less often than the game updates (a fast game loop, a long buffer, a mixing
/// thread that fell behind): the moves made before a buffer glide over all their time too.
@MainActor
@Suite("Placements when the queue or the mix runs late")
struct LateQueueGlideTests {
  /// A constant level on a node hard left in the positional tests' scene (the listener in the
  /// middle, a 400-point pan width, no fall-off), heard for 0.2 s: every output sample is the
  /// source times the two gains. Returns the scene, the node and the source's level.
  static func levelAtLeft(_ audio: EmbeddedAudio) -> (Scene, Node, source: Float) {
    let (scene, _) = PositionalOutputTests.scene(audio.engine, model: .none)
    let level = makeToneWAV(frequency: 0, duration: 3, amplitude: 0.5, channels: 1)
    let node = Node()
    node.position = Point(x: 0, y: 300)
    scene.addChild(node)
    node.run(.playSound(data: level, name: "level.wav"))
    audio.advance(seconds: 0.2, stepping: scene)
    return (scene, node, Float(Int16(0.5 * 32_767)) / 32_768)
  }

  @Test("a second of moves served by one late hop glides (capped at a tenth of a second), with no step")
  func lateHopGlides() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let (scene, node, source) = Self.levelAtLeft(audio)
    let before = audio.output.count / 2
    // A second of updates, the node crossing from hard left to hard right, while no hop runs.
    audio.engine.holdingRequests {
      for step in 1...60 {
        node.position = Point(x: Double(step) * 800 / 60, y: 300)
        scene.update(deltaTime: 1.0 / 60)
      }
    }
    audio.advance(seconds: 0.3)
    let left = Signal(interleaved: audio.output, channel: 0)
    let right = Signal(interleaved: audio.output, channel: 1)
    let after = before..<(audio.output.count / 2)
    // Hard right at the end, reached by a glide: the whole way over at most 4,800 frames, so
    // no sample steps by more than the level over 4,800 (a glide over one update's 800 frames
    // stepped by six times that).
    #expect(abs(right[after.upperBound - 100] - source) < 1e-4 && left[after.upperBound - 100] < 1e-4)
    let steepest = max(left.largestStep(in: after), right.largestStep(in: after))
    #expect(steepest < source / 4_800 * 1.6, "largest step \(steepest)")
  }

  @Test(
    "after a second's stall, the next move glides over at most a tenth of a second more: no lag as long as the stall",
    arguments: [false, true])
  func noLagAfterAStall(throughTheQueue: Bool) throws {
    let audio = try EmbeddedAudio(limiter: false)
    // With a voice budget every move goes through the queue; without, the mix follows the voice.
    if throughTheQueue { try audio.engine.bus(.effects).setMaximumAudibleVoices(4) }
    let (scene, node, source) = PlacementFollowTests.playing(audio)
    // A second of updates with no hop and no mix: the node crosses to hard right.
    audio.engine.holdingRequests {
      for step in 1...60 {
        node.position = Point(x: Double(step) * 800 / 60, y: 300)
        scene.update(deltaTime: 1.0 / 60)
      }
    }
    audio.advance(frames: 960)
    // One update back to hard left, while the mix is early in the stalled second's glide: it
    // glides over its own 800 frames and what is left of that glide, capped at 4,800, not over
    // the rest of a second.
    node.position = Point(x: 0, y: 300)
    scene.update(deltaTime: 1.0 / 60)
    audio.advance(seconds: 0.12)
    let (left, right) = PlacementFollowTests.lastFrame(audio)
    #expect(abs(left - source) < 1e-4 && right < 1e-4, "left \(left), right \(right)")
  }

  @Test("a game updating four times a buffer: the voice glides over all four updates' time, with no zipper")
  func fourUpdatesABuffer() throws {
    let audio = try EmbeddedAudio(limiter: false, bufferFrames: 1_024)
    let (scene, node, source) = Self.levelAtLeft(audio)
    let before = audio.output.count / 2
    // Hard left to hard right in a second (48 buffers), the scene updated every 256 frames (a
    // 187.5 Hz game loop) and the mix run once every four updates.
    var frame = 0
    for _ in 0..<48 {
      for _ in 0..<4 {
        frame += 256
        node.position = Point(x: min(800, Double(frame) * 800 / 48_000), y: 300)
        scene.update(deltaTime: 256.0 / 48_000)
      }
      audio.advance(frames: 1_024)
    }
    audio.advance(seconds: 0.1)
    let left = Signal(interleaved: audio.output, channel: 0)
    let right = Signal(interleaved: audio.output, channel: 1)
    let after = before..<(audio.output.count / 2)
    #expect(abs(right[after.upperBound - 100] - source) < 1e-4 && left[after.upperBound - 100] < 1e-4)
    // The pan sweeps a quarter turn in a second: no ear's gain moves faster than the level times
    // (π/2) / 48,000 a frame. A glide over the newest update's 256 frames alone made each
    // buffer's way in a quarter of its time: four times as steep.
    let steady = source * Float.pi / 2 / 48_000
    let steepest = max(left.largestStep(in: after), right.largestStep(in: after))
    #expect(steepest < steady * 1.3, "largest step \(steepest), steady sweep \(steady)")
  }
}
