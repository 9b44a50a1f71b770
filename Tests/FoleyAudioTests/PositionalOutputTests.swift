import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Positional sound through real SDL_mixer, read back from the disk driver: the pan law, the
/// distance model, a moving node, and audio nodes that pause and leave with their scene.
@MainActor
@Suite("Positional sound (disk driver)", .serialized)
struct PositionalOutputTests {
  /// A scene 800 × 600 with the listener at its centre, attached with positional actions.
  static func scene(
    _ engine: AudioEngine, model: SpatialAudio.DistanceModel = .inverse(reference: 100, rolloff: 1)
  )
    -> (Scene, Node)
  {
    let scene = Scene(size: Size(width: 800, height: 600))
    let listener = Node()
    listener.position = Point(x: 400, y: 300)
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.distanceModel = model
    spatial.panWidth = 400
    engine.attach(to: scene, positional: true, spatial: spatial)
    return (scene, listener)
  }

  @Test(
    "mono: centred is -3 dB in each ear; half right leans by the constant-power ratio; twice the reference is -6 dB"
  )
  func panLawAndDistance() throws {
    // A constant level, so every output sample is the source times the two gains.
    let level = makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.5, channels: 1)
    let source = Float(Int16(0.5 * 32_767)) / 32_768
    let capture = try captureDiskOutput { engine, output in
      let (scene, _) = Self.scene(engine)
      for x in [400.0, 600.0] {
        #expect(output.waitForMore(seconds: 0.1))
        let node = Node()
        node.position = Point(x: x, y: 300)
        scene.addChild(node)
        var done = false
        node.run(.playSound(data: level, name: "level.wav", waitForCompletion: true)) { done = true }
        #expect(waitUntil(stepping: scene) { done })
        node.removeFromParent()
      }
    }
    let segments = capture.left.segments(minimumGap: 2_400, threshold: 1e-4)
    try #require(segments.count == 2, "\(segments)")
    func middle(_ range: Range<Int>) -> Int { (range.lowerBound + range.upperBound) / 2 }
    // Centred: cos(π/4) = sin(π/4) = 0.7071 in each ear.
    let centre = middle(segments[0])
    #expect(abs(capture.left[centre] - source * 0.70710678) < 1e-5)
    #expect(abs(capture.right[centre] - source * 0.70710678) < 1e-5)
    // 200 points right with a 400-point pan width: pan 0.5, angle 3π/8; and 200 points away with
    // `.inverse(reference: 100, rolloff: 1)`: half the level (-6 dB).
    let right = middle(segments[1])
    let angle = 1.5 * Double.pi / 4
    #expect(abs(capture.left[right] - source * Float(0.5 * cos(angle))) < 1e-5)
    #expect(abs(capture.right[right] - source * Float(0.5 * sin(angle))) < 1e-5)
    #expect(abs(capture.right[right] / capture.left[right] - Float(tan(angle))) < 1e-3)  // 2.414
  }

  @Test("a node moving left to right over a second: the ears cross over smoothly, with no zipper")
  func movingNodeIsSmooth() throws {
    let level = makeToneWAV(frequency: 0, duration: 2, amplitude: 0.5, channels: 1)
    let source = Float(Int16(0.5 * 32_767)) / 32_768
    var largestStep = 0.0
    let capture = try captureDiskOutput { engine, _ in
      let (scene, _) = Self.scene(engine, model: .none)
      let node = Node()
      node.position = Point(x: 0, y: 300)
      scene.addChild(node)
      var done = false
      node.run(.playSound(data: level, name: "level.wav", waitForCompletion: true)) { done = true }
      node.run(.sequence([.wait(forDuration: 0.4), .moveTo(x: 800, duration: 1)]))
      #expect(waitUntil(stepping: scene, largestStep: &largestStep) { done })
    }
    let left = capture.left
    let right = capture.right
    let start = try #require(left.audibleRange(threshold: 1e-4)).lowerBound
    let end = try #require(right.audibleRange(threshold: 1e-4)).upperBound
    // Fully left before the move, fully right after it.
    #expect(abs(left[start + 4_800] - source) < 1e-4 && right[start + 4_800] < 1e-4)
    #expect(abs(right[end - 4_800] - source) < 1e-4 && left[end - 4_800] < 1e-4)
    // The crossing: somewhere both ears are equal, at -3 dB. Each update's gains glide in a
    // straight line, a chord of the constant-power arc, which dips by at most cos(Δ/2) for an
    // update that turns the pan angle by Δ: at 60 updates a second 0.02 %, but a loaded machine
    // that stalls the loop for a quarter of a second moves the node 200 points in one update. A
    // glide that starts where the last one had not yet ended spans at most two updates' turn,
    // and the glides' common step lets the crossing sag a little more: 0.6 % measured on a quiet
    // machine, 2 to 8 % under ThreadSanitizer, whose starved mix takes its placements late (10 %,
    // 0.9 dB, allowed; a linear law would sit 41 % above, and the upper bound stays tight).
    let crossing = try #require((start..<end).first { right[$0] >= left[$0] })
    let turn = min(2 * largestStep, 1) * 800 / 400 * Double.pi / 4
    let chord = Float(cos(turn / 2))
    #expect(left[crossing] < source * 0.7071 + 2e-3, "step \(largestStep) s")
    #expect(left[crossing] > source * 0.7071 * chord * 0.9, "step \(largestStep) s")
    // Per-sample gain ramps: no step between neighbouring samples beyond what a smooth sweep over
    // one second makes (a gain set once per game frame would jump by ~1/60 of the level). The
    // sound's own start and end are left out.
    let inner = (start + 10)..<(end - 10)
    let steepest = max(left.largestStep(in: inner), right.largestStep(in: inner))
    #expect(steepest < source * 1e-3, "largest step \(steepest)")
  }

  @Test(
    "96 voices crossing together (most nodes moved in one update): all heard left before, all right after")
  func flockCrossesInOneUpdate() throws {
    // More moved nodes than the scene lists for the link: the update finds them by comparing
    // each voice's node with where it was placed, and every voice must still cross.
    let voices = 96
    let level = makeToneWAV(frequency: 0, duration: 1.5, amplitude: 0.005, channels: 1)
    let source = Float(Int16(0.005 * 32_767)) / 32_768
    var configuration = AudioConfiguration()
    configuration.initialChannels = 128
    configuration.maximumChannels = 128
    let capture = try captureDiskOutput(configuration: configuration) { engine, _ in
      let (scene, _) = Self.scene(engine, model: .none)
      var finished = 0
      for _ in 0..<voices {
        let node = Node()
        node.position = Point(x: 0, y: 300)
        scene.addChild(node)
        node.run(.playSound(data: level, name: "level.wav", waitForCompletion: true)) { finished += 1 }
        node.run(.sequence([.wait(forDuration: 0.5), .moveTo(x: 800, duration: 0)]))
      }
      #expect(waitUntil(stepping: scene) { finished == voices })
    }
    let left = capture.left
    let right = capture.right
    // Found first, then required: a failure names nil, not the whole capture.
    let heardLeft = left.audibleRange(threshold: 1e-4)?.lowerBound
    let heardRight = right.audibleRange(threshold: 1e-4)?.upperBound
    let start = try #require(heardLeft, "the left ear never sounded")
    let end = try #require(heardRight, "the right ear never sounded")
    let all = source * Float(voices)
    // Every voice hard left before the move, every one hard right after it.
    #expect(
      abs(left[start + 4_800] - all) < 1e-3 && abs(right[start + 4_800]) < 1e-4, "\(left[start + 4_800])")
    #expect(abs(right[end - 4_800] - all) < 1e-3 && abs(left[end - 4_800]) < 1e-4, "\(right[end - 4_800])")
  }

  @Test("an audio node: silent while its scene is paused, continues after; removed, it stops with a ramp")
  func audioNodeFollowsItsScene() throws {
    let (bytes, values) = makeRampWAV(from: 0.05, frames: 96_000, step: 3e-6)
    var scenePausedAt = 0
    let capture = try captureDiskOutput { engine, output in
      let (scene, _) = Self.scene(engine, model: .none)
      let node = AudioNode(data: bytes, name: "ramp.wav")
      node.isPositional = false
      node.position = Point(x: 400, y: 300)
      scene.addChild(node)
      #expect(waitUntil(stepping: scene) { node.voice?.state == .playing })
      #expect(output.waitForMore(seconds: 0.3))
      scene.isPaused = true
      scene.update(deltaTime: 0.016)
      scenePausedAt = output.framesWritten
      #expect(waitUntil { engine.voiceCensus().pausedByGame == 1 })
      #expect(output.waitForMore(seconds: 0.3))
      scene.isPaused = false
      #expect(waitUntil(stepping: scene) { engine.voiceCensus().audible == 1 })
      #expect(output.waitForMore(seconds: 0.3))
      node.removeFromParent()
      #expect(node.voice == nil)
      #expect(waitUntil(stepping: scene) { engine.voiceCensus() == VoiceCensus() })
      #expect(output.waitForMore(seconds: 0.1))
    }
    let signal = capture.left
    let runs = signal.segments(minimumGap: 4_800, threshold: 1e-7)
    try #require(runs.count == 2, "\(runs)")
    #expect(runs[0].upperBound > scenePausedAt - 48_000)
    // The pause ramps down and the resume continues where the ramp ended, give or take what the
    // mixer played at zero gain before the pause took hold (at most a device buffer for a sound;
    // streams give that back exactly, see MusicOutputTests): 601 frames apart, as there.
    let lastFull = try #require(values.firstIndex(of: signal[runs[0].upperBound - 300]))
    let firstFull = try #require(values.firstIndex(of: signal[runs[1].lowerBound + 300]))
    #expect((601...(601 + 2 * 512)).contains(firstFull - lastFull), "\(firstFull - lastFull)")
    // Removed: a 5 ms ramp to silence, not a cut.
    let tail = (runs[1].upperBound - 240)..<runs[1].upperBound
    #expect(signal.largestStep(in: tail) < 0.01)
    #expect(signal[runs[1].upperBound - 1] < 0.01)
  }
}
