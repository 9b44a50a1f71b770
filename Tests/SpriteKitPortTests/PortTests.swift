import Foley
import FoleyTestSupport
import Foundation
import Testing

/// A SpriteKit scene ported by the renames the README shows: it compiles, and it sounds as it
/// would in SpriteKit (the coin plays then goes, the fire loops where it is and moves across as
/// the hero walks past it).
@MainActor
@Suite("The SpriteKit port")
struct PortTests {
  @Test("the ported scene plays: the coin sounds and goes, the fire loops and crosses from right to left")
  func portedSceneSounds() throws {
    // The scene's asset names, in an asset root of their own.
    let assets = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-port-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: assets) }
    try makeToneWAV(frequency: 0, duration: 1, amplitude: 0.4, channels: 1).write(
      to: assets.appendingPathComponent("fire.ogg"))  // WAV bytes: decoders go by content, not name
    try makeToneWAV(frequency: 880, duration: 0.2, amplitude: 0.3).write(
      to: assets.appendingPathComponent("coin.wav"))
    let audio = try EmbeddedAudio(assetRoots: [assets], limiter: false)
    GameScene.sounds = assets

    let view = SceneView()
    let scene = GameScene(size: Size(width: 800, height: 600))
    audio.engine.attach(to: scene)
    view.presentScene(scene)
    // 60 frames a second; the fire is 300 points right of the hero at first, 180 points left after 4 s.
    var frames = 0
    func run(seconds: Double) {
      for _ in 0..<Int(seconds * 60) {
        view.update(deltaTime: 1.0 / 60)
        audio.advance(frames: 800)
        frames += 1
      }
    }
    run(seconds: 0.3)
    #expect(audio.engine.statistics.started == 2)  // the fire and the coin
    let early = (audio.frames - 2_400)..<audio.frames
    let fireRightFirst = audio.right.rms(in: early) > 2 * audio.left.rms(in: early)
    #expect(fireRightFirst)
    #expect(scene.children.count == 3)  // hero, fire, coin
    run(seconds: 1.2)
    #expect(scene.children.count == 2)  // the coin played, waited, faded and removed itself
    run(seconds: 2.5)
    let late = (audio.frames - 2_400)..<audio.frames
    #expect(audio.left.rms(in: late) > 2 * audio.right.rms(in: late))
    #expect(scene.campfire.voice?.state == .playing)
    // Half volume after its changeVolume, 1.5 dB down after −4 dB of obstruction and −2 of occlusion
    // (each a quarter of its decibels on the direct sound; the fire is a constant level, which their
    // low-pass leaves alone), and about 180 points away with the default inverse model (reference
    // 100): 100/180 of the level, on the constant-power law (the gain trails the moving hero by the
    // one frame it ramps over, hence 3%).
    let level =
      audio.left.rms(in: late) * audio.left.rms(in: late) + audio.right.rms(in: late)
      * audio.right.rms(in: late)
    let expected = Double(Float(Int16(0.4 * 32_767)) / 32_768) * 0.5 * pow(10, -1.5 / 20) * 100 / 180
    #expect(abs(level.squareRoot() - expected) < 0.03 * expected)
  }
}
