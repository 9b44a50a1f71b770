import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// A scene outlives its engine: a game that closes its engine (a device change, a settings
/// screen) and opens another attaches the same scene again.
@MainActor
@Suite("A scene re-attached to a new engine (disk driver)", .serialized)
struct EngineReattachTests {
  @Test("attach, close, a new engine, attach: the scene updates and its sounds play on the new engine")
  func reattachAfterClose() throws {
    let tone = makeToneWAV(frequency: 500, duration: 0.3, amplitude: 0.4, channels: 1)
    let scene = Scene(size: Size(width: 800, height: 600))
    let node = SpriteNode(color: .white, size: Size(width: 10, height: 10))
    scene.addChild(node)
    let log = CapturedLog()
    do {
      let first = try AudioEngine(session: AudioSession(), logger: log.logger)
      first.attach(to: scene)
      scene.update(deltaTime: 1.0 / 60)
      first.close()
      // Updates while the closed engine is still attached do nothing and do not trap.
      node.run(.playSound(data: tone, name: "tone.wav"))
      scene.update(deltaTime: 1.0 / 60)
      scene.update(deltaTime: 1.0 / 60)
      #expect(first.statistics.started == 0)
      let warnings = log.lines.filter { $0.level == .warning && $0.message.contains("engine is closed") }
      #expect(warnings.count == 1, "a use after close is said once: \(warnings.map(\.message))")
    }
    var started = 0
    let capture = try captureDiskOutput { engine, output in
      engine.attach(to: scene)
      for _ in 0..<3 { scene.update(deltaTime: 1.0 / 60) }
      node.run(.playSound(data: tone, name: "tone.wav"))
      #expect(waitUntil(stepping: scene) { engine.statistics.started == 1 })
      #expect(output.waitForMore(seconds: 0.4))
      started = engine.statistics.started
    }
    #expect(started == 1)
    #expect(
      capture.left.peak(in: 0..<capture.left.samples.count) > 0.2, "the new engine's sound is not heard")
  }
}
