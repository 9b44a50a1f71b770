import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// A queue that runs late (a loaded machine, a stalled thread) must not turn a moving voice's
/// glide into a step: the moves of every update that waited glide over all their time.
@MainActor
@Suite("Placements when the queue runs late")
struct LateQueueGlideTests {
  @Test("a second of moves served by one late hop glides (capped at a tenth of a second), with no step")
  func lateHopGlides() throws {
    let audio = try EmbeddedAudio(limiter: false)
    // The positional tests' scene: the listener in the middle, a 400-point pan width, no fall-off.
    let (scene, _) = PositionalOutputTests.scene(audio.engine, model: .none)
    let level = makeToneWAV(frequency: 0, duration: 3, amplitude: 0.5, channels: 1)
    let source = Float(Int16(0.5 * 32_767)) / 32_768
    let node = Node()
    node.position = Point(x: 0, y: 300)
    scene.addChild(node)
    node.run(.playSound(data: level, name: "level.wav"))
    audio.advance(seconds: 0.2, stepping: scene)
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
}
