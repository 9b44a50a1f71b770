import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// A scene's doppler on the embedded mixer, advanced by hand: the factor a moving node is told,
/// and its return to 1 when the scene's speed of sound is taken away.
@MainActor
@Suite("Doppler in a scene (embedded mixer)")
struct SceneDopplerTests {
  @Test("a node closing at 200 points a second is told c / (c − v); doppler turned off gives it 1 back")
  func dopplerTurnedOff() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let scene = Scene(size: Size(width: 800, height: 600))
    let listener = Node()
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.distanceModel = .none
    spatial.speedOfSound = 1_000
    engine.attach(to: scene, positional: true, spatial: spatial)
    let sound = try engine.sound(data: makeToneWAV(frequency: 220, duration: 1), name: "tone.wav")
    let emitter = AudioNode(sound: sound)
    emitter.position = Point(x: 0, y: 3_000)
    scene.addChild(emitter)
    func factor() -> Double? { engine.inspector.snapshot().voices.first?.doppler }
    for step in 1...10 {
      emitter.position = Point(x: 0, y: 3_000 - 200 * Double(step) / 60)
      scene.update(deltaTime: 1.0 / 60)
      mixer.advance(seconds: 1.0 / 60)
    }
    #expect(abs(try #require(factor()) - 1.25) < 1e-3)
    spatial.speedOfSound = nil
    engine.setSpatialAudio(spatial, for: scene)
    emitter.position.y -= 200.0 / 60
    scene.update(deltaTime: 1.0 / 60)
    #expect(factor() == 1)
  }
}
