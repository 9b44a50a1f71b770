import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// What a SpriteKit game's sound code needs beyond renames: `SKAudioNode(url:)`, `Float` levels
/// and the relative reverb, obstruction and occlusion actions, heard on the embedded mixer.
@MainActor
@Suite("SpriteKit port: audio node from a URL, Float levels, relative actions (embedded mixer)", .serialized)
struct SpriteKitPortActionTests {
  @Test("AudioNode(url:) plays the file; Float volumes and changeObstruction(by:) set the level heard")
  func urlNodeAndFloatLevels() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let url = temporaryFile("level.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    try makeToneWAV(frequency: 0, duration: 0.5, amplitude: 0.4).write(to: url)
    let scene = Scene(size: Size(width: 800, height: 600))
    audio.engine.attach(to: scene)
    let node = AudioNode(url: url)
    #expect(node.readError == nil)
    node.isPositional = false
    scene.addChild(node)
    audio.advance(seconds: 0.2, stepping: scene)
    let full = audio.left[audio.frames - 1]
    #expect(abs(full - 0.4) < 0.01, "the file plays at its level: \(full)")

    let half: Float = 0.5  // as a SpriteKit game keeps its volumes
    node.run(.changeVolume(to: half, duration: 0))
    audio.advance(seconds: 0.2, stepping: scene)
    #expect(abs(audio.left[audio.frames - 1] - full * 0.5) < 0.002)

    // Two steps of -12 dB of obstruction: -24 dB in all, a gain of 10^(-24/80) on the direct
    // sound (its low-pass leaves a constant level alone).
    let step: Float = -12
    node.run(
      .sequence([.changeObstruction(by: step, duration: 0), .changeObstruction(by: -12, duration: 0)]))
    audio.advance(seconds: 0.3, stepping: scene)
    let obstructed = audio.left[audio.frames - 1] / (full * 0.5)
    #expect(abs(obstructed - 0.501) < 0.01, "obstructed by \(obstructed)")
    node.run(.changeObstruction(by: 24, duration: 0))
    audio.advance(seconds: 0.3, stepping: scene)
    #expect(abs(audio.left[audio.frames - 1] - full * 0.5) < 0.002, "back to no obstruction")
    node.run(.stereoPan(to: Float(-1), duration: 0))
    audio.advance(seconds: 0.2, stepping: scene)
    #expect(audio.right[audio.frames - 1] == 0, "panned hard left")
  }

  @Test("AudioNode(url:) of a file that cannot be read says why, plays nothing and breaks nothing")
  func unreadableURL() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let missing = temporaryFile("missing.wav")
    let scene = Scene(size: Size(width: 800, height: 600))
    audio.engine.attach(to: scene)
    let node = AudioNode(url: missing)
    let reason = try #require(node.readError)
    #expect(reason.contains(missing.path))
    scene.addChild(node)
    audio.advance(seconds: 0.2, stepping: scene)
    #expect(audio.left.samples.allSatisfy { $0 == 0 })
    #expect(audio.engine.statistics.activeVoices == 0)
    // The engine plays on.
    let tone = makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.3)
    audio.engine.play(data: tone, name: "after.wav")
    audio.advance(seconds: 0.05, stepping: scene)
    #expect(audio.left[audio.frames - 1] > 0.1)
  }
}
