import FoleyAudio
import FoleyAudioTesting
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// The engine reuses a finished voice that nobody holds for a later play (so a trigger allocates
/// nothing), read back from SDL's disk driver: the reused voice starts clean, and a voice the game
/// holds is never reused.
@MainActor
@Suite("Voice recycling (disk driver)", .serialized)
struct VoiceRecyclingTests {
  @Test(
    "a finished voice nobody holds carries the next play, which starts clean: its own id, rate 1, full volume, centred, unfiltered"
  )
  func reusedVoiceStartsClean() throws {
    let tone = makeToneWAV(frequency: 441, duration: 0.3, amplitude: 0.5)
    var secondStart = 0
    var latency = 0
    let capture = try captureDiskOutput { engine, _ in
      latency = engine.outputLatency.lookAheadFrames
      let sound = try engine.sound(data: tone)
      // A weak reference does not hold a voice: it sees the object the engine reuses.
      weak var first: Voice?
      var firstID: UInt64 = 0
      do {
        let voice = engine.play(sound, volume: 0.25, pan: 1, rate: 2)
        voice.setLowPassCutoff(200)
        firstID = voice.id
        first = voice
      }
      #expect(waitUntil { first?.isFinished == true })
      let second = engine.play(sound)
      #expect(second === first, "the engine made a new voice instead of reusing the finished one")
      #expect(second.id > firstID && second.state != .finished)
      #expect(second.playbackRate == 1 && abs(second.lowPassCutoff - 20_000) < 0.1)
      #expect(second.volume == 1 && second.pan == 0 && !second.isVirtual)
      #expect(waitUntil { second.isFinished })
      secondStart = try #require(second.startFrame).index
    }
    // The first play was all right (pan 1), so the left channel holds only the second. The tone
    // starts at a zero crossing: its first sample heard is its second, past the limiter's
    // look-ahead (the clock counts the device's frames from its first, whatever the load).
    let range = try #require(capture.left.audibleRange())
    let firstHeard = try #require(capture.left.samples.firstIndex { $0 != 0 })
    let lead = firstHeard - (secondStart + 1 + latency)
    #expect(
      lead == 0,
      "heard from \(firstHeard), started at \(secondStart) with \(latency) frames of look-ahead")
    #expect(abs(Double(range.count) / 48_000 - 0.3) < 0.005, "lasted \(Double(range.count) / 48_000) s")
    let inner = (range.lowerBound + 480)..<(range.upperBound - 480)
    let frequency = capture.left.frequency(in: inner)
    #expect(abs(frequency - 441) / 441 < 0.001, "heard \(frequency) Hz")
    let left = capture.left.rms(in: inner)
    let right = capture.right.rms(in: inner)
    #expect(abs(20 * log10(left / right)) < 0.1, "not centred: \(left) left, \(right) right")
    // A 0.5 sine is 0.354 RMS; centred it loses at most 3 dB (not the 12 dB of volume 0.25 nor
    // the 200 Hz low-pass's).
    #expect(left > 0.354 * 0.7, "level \(left)")
  }

  @Test("a voice the game holds is never reused, however many plays come after it finished")
  func heldVoiceIsKept() throws {
    let tone = makeToneWAV(frequency: 441, duration: 0.02, amplitude: 0.5)
    _ = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: tone)
      let held = engine.play(sound)
      #expect(waitUntil { held.isFinished })
      let heldID = held.id
      // Rounds of plays, each let go once finished: later rounds reuse earlier rounds' voices.
      for _ in 0..<5 {
        var round: [Voice] = []
        for _ in 0..<40 { round.append(engine.play(sound)) }
        #expect(round.allSatisfy { $0 !== held })
        #expect(waitUntil { round.allSatisfy(\.isFinished) })
      }
      #expect(held.id == heldID && held.isFinished && held.startFrame != nil)
    }
  }

  @Test(
    "a positional voice placed every update is reused once it finished and its slot let go: the scene link's hold on it is given back through the queue"
  )
  func positionalVoiceIsReused() throws {
    let tone = makeToneWAV(frequency: 441, duration: 0.05, amplitude: 0.5)
    _ = try captureDiskOutput { engine, _ in
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene, positional: true)
      weak var first: Voice?
      do {
        let ball = Node()
        scene.addChild(ball)
        ball.run(.playSound(data: tone))
        scene.update(deltaTime: 1.0 / 60)
        first = engine.newestVoice(of: ball)
        #expect(first != nil)
        // Moved every update while it plays: each update sends the queue a move naming it.
        var step = 0.0
        #expect(
          waitUntil {
            step += 1
            ball.position = Point(x: 10 * step, y: 0)
            scene.update(deltaTime: 1.0 / 60)
            return first?.isFinished == true
          })
        ball.removeFromParent()
      }
      // The next updates free its slot (and the ball with it, which held it too).
      for _ in 0..<3 { scene.update(deltaTime: 1.0 / 60) }
      engine.waitUntilIdle()
      // The scene's next play takes it from the scene's ring.
      let next = Node()
      scene.addChild(next)
      next.run(.playSound(data: tone))
      scene.update(deltaTime: 1.0 / 60)
      let second = engine.newestVoice(of: next)
      // A plain Bool: a failing `===` expectation would reflect the voices.
      let reused = second === first
      #expect(reused, "the scene link still holds the finished voice")
      engine.detach(from: scene)
    }
  }

  @Test("closing the engine lets its kept voices go, and with them the engine's core")
  func closeReleasesVoices() throws {
    weak var core: MixerCore?
    _ = try captureDiskOutput { engine, _ in
      core = engine.core
      let sound = try engine.sound(data: makeToneWAV(frequency: 441, duration: 0.02, amplitude: 0.5))
      var voices: [Voice] = []
      for _ in 0..<20 { voices.append(engine.play(sound)) }
      #expect(waitUntil { voices.allSatisfy(\.isFinished) })
    }
    #expect(waitUntil { core == nil }, "the core outlived its engine")
  }
  @Test("a play asked for through a scene after its last update is still heard when the scene is detached")
  func detachedScenePlays() throws {
    let tone = makeToneWAV(frequency: 441, duration: 0.1, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: tone)
      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      scene.update(deltaTime: 1.0 / 60)
      // Gathered with the scene's plays for its next update, which never comes.
      let voice = SceneVoices.start(.sound(sound), for: node)
      #expect(voice?.state == .pending)
      engine.detach(from: scene)
      #expect(waitUntil { voice?.isFinished == true })
      #expect(voice?.startFrame != nil, "the play was dropped with the scene")
    }
    let heard = capture.left.samples.filter { abs($0) > 0.1 }.count
    #expect(heard > 2_000, "\(heard) loud samples")
  }

  @Test(
    "a scene's plays reuse the scene's finished voices; detached, the scene lets them go, and closing the engine frees its core"
  )
  func sceneVoicesAreReusedAndLetGo() throws {
    weak var core: MixerCore?
    weak var firstVoice: Voice?
    _ = try captureDiskOutput { engine, _ in
      core = engine.core
      let tone = makeToneWAV(frequency: 441, duration: 0.02, amplitude: 0.5)
      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      node.run(.playSound(data: tone))
      scene.update(deltaTime: 1.0 / 60)
      firstVoice = engine.newestVoice(of: node)
      #expect(firstVoice != nil)
      #expect(waitUntil { firstVoice?.isFinished == true })
      // The node lets its finished voices go as it starts more; a later play takes the first.
      var reused = false
      for _ in 0..<20 where !reused {
        node.run(.playSound(data: tone))
        scene.update(deltaTime: 1.0 / 60)
        reused = engine.newestVoice(of: node) === firstVoice
        engine.waitUntilIdle()
      }
      #expect(reused, "the scene made new voices instead of reusing its finished one")
      engine.detach(from: scene)
    }
    #expect(waitUntil { core == nil }, "the core outlived its engine: the scene's kept voices still hold it")
  }
}
