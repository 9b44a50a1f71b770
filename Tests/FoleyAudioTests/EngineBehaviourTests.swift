import FoleyAudio
import FoleyScene
import FoleyTestSupport
import Foundation
import Testing

/// Engine bookkeeping against real SDL_mixer on the dummy driver.
@MainActor
@Suite("Engine behaviour (dummy driver)", .serialized)
struct EngineBehaviourTests {
  private func withDummyEngine(
    _ configuration: AudioConfiguration = AudioConfiguration(), _ body: (AudioEngine) throws -> Void
  ) throws {
    try withEnvironment(["SDL_AUDIODRIVER": "dummy"]) {
      let engine = try AudioEngine(configuration: configuration, session: AudioSession())
      defer { engine.close() }
      try body(engine)
    }
  }

  @Test("the same Data played 1,000 times decodes once")
  func decodeOnce() throws {
    let tone = makeToneWAV(frequency: 330, duration: 0.05)
    try withDummyEngine { engine in
      for _ in 0..<1_000 { engine.play(data: tone) }
      engine.waitUntilIdle()
      let stats = engine.statistics
      #expect(stats.decodes == 1)
      #expect(stats.requested == 1_000)
      #expect(stats.started == 1_000)  // the default policy steals the oldest at the cap
      #expect(stats.stolen == 1_000 - 256)
      #expect(stats.peakVoices == 256)
    }
  }

  @Test(
    "at the cap, reject refuses and steal-oldest steals", arguments: [ChannelPolicy.reject, .stealOldest])
  func policyAtCap(policy: ChannelPolicy) throws {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 4
    try withDummyEngine(configuration) { engine in
      var settings = SoundSettings()
      settings.policy = policy
      let sound = try Sound(
        data: makeToneWAV(frequency: 220, duration: 2), name: "hum", engine: engine, settings: settings)
      let voices = (0..<10).map { _ in engine.play(sound) }
      engine.waitUntilIdle()
      let stats = engine.statistics
      #expect(stats.activeVoices == 4)
      switch policy {
      case .reject:
        #expect(stats.started == 4)
        #expect(stats.rejected == 6)
        #expect(voices.prefix(4).allSatisfy { $0.state == .playing })
        #expect(voices.suffix(6).allSatisfy { $0.isFinished })
      default:
        #expect(stats.started == 10)
        #expect(stats.stolen == 6)
        #expect(voices.prefix(6).allSatisfy { $0.isFinished })
        #expect(voices.suffix(4).allSatisfy { $0.state == .playing })
      }
    }
  }

  @Test("steal-lowest-priority takes a quieter voice only from a lower priority")
  func lowestPriority() throws {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 2
    try withDummyEngine(configuration) { engine in
      var low = SoundSettings()
      low.priority = 1
      var high = SoundSettings()
      high.priority = 5
      high.policy = .stealLowestPriority
      let ambience = try Sound(
        data: makeToneWAV(frequency: 110, duration: 2), name: "amb", engine: engine, settings: low)
      let alarm = try Sound(
        data: makeToneWAV(frequency: 880, duration: 2), name: "alarm", engine: engine, settings: high)
      let first = engine.play(ambience)
      let second = engine.play(alarm)
      let third = engine.play(alarm)  // steals the ambience
      let fourth = engine.play(alarm)  // nothing below priority 5 left: rejected
      engine.waitUntilIdle()
      #expect(first.isFinished)
      #expect(second.state == .playing && third.state == .playing)
      #expect(fourth.isFinished)
      #expect(engine.statistics.stolen == 1)
      #expect(engine.statistics.rejected == 1)
    }
  }

  @Test("maximumInstances and minimumInterval stop 1,000 triggers in one frame from taking 1,000 channels")
  func spamLimits() throws {
    try withDummyEngine { engine in
      var limited = SoundSettings()
      limited.maximumInstances = 3
      limited.policy = .reject
      let click = try Sound(
        data: makeToneWAV(frequency: 1000, duration: 1), name: "click", engine: engine, settings: limited)
      for _ in 0..<1_000 { engine.play(click) }
      engine.waitUntilIdle()
      #expect(engine.statistics.activeVoices == 3)
      #expect(engine.statistics.rejected == 997)

      var spaced = SoundSettings()
      spaced.minimumInterval = 10
      let thud = try Sound(
        data: makeToneWAV(frequency: 60, duration: 1), name: "thud", engine: engine, settings: spaced)
      for _ in 0..<1_000 { engine.play(thud) }
      engine.waitUntilIdle()
      #expect(engine.statistics.activeVoices == 4)
      #expect(engine.statistics.rejected == 997 + 999)
    }
  }

  @Test("a stale voice handle never touches the play that reused its channel")
  func staleHandles() throws {
    var configuration = AudioConfiguration()
    configuration.initialChannels = 1
    configuration.maximumChannels = 1
    try withDummyEngine(configuration) { engine in
      let sound = try engine.sound(data: makeToneWAV(frequency: 440, duration: 2), name: "tone")
      let old = engine.play(sound)
      engine.waitUntilIdle()
      old.stop()
      runFor(0.1)  // let the ramp finish and the channel come free
      let fresh = engine.play(sound)
      engine.waitUntilIdle()
      #expect(fresh.state == .playing)
      old.stop()
      old.pause()
      old.volume = 0
      engine.waitUntilIdle()
      runFor(0.05)
      #expect(fresh.state == .playing)
      #expect(old.isFinished)
      #expect(engine.statistics.activeVoices == 1)
    }
  }

  @Test("waitForCompletion finishes the action when the sound ends, at a later update")
  func waitForCompletion() throws {
    try withDummyEngine { engine in
      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      let start = Date()
      var finishedAfter: Double?
      node.run(.playSound(data: makeToneWAV(frequency: 440, duration: 0.25), waitForCompletion: true)) {
        finishedAfter = Date().timeIntervalSince(start)
      }
      scene.update(deltaTime: 1.0 / 60.0)
      #expect(finishedAfter == nil)
      runFor(0.6, stepping: scene)
      let elapsed = try #require(finishedAfter)
      #expect(elapsed >= 0.25)
      #expect(elapsed < 0.5)
    }
  }

  @Test("bad bytes throw a typed error naming the asset, and as actions are counted failures")
  func badData() throws {
    try withDummyEngine { engine in
      let truncated = makeToneWAV(frequency: 440, duration: 0.1).prefix(30)
      for (bytes, code) in [
        (Data(), SoundError.Code.empty), (Data("not a sound at all".utf8), .undecodable),
        (Data(truncated), .undecodable),
      ] {
        #expect {
          _ = try Sound(data: bytes, name: "bad.wav", engine: engine)
        } throws: { error in
          guard let error = error as? SoundError else { return false }
          return error.code == code && error.asset == "bad.wav" && (code == .empty || !error.message.isEmpty)
        }
      }
      #expect(throws: SoundError.self) { try engine.sound(named: "no-such-file.wav") }

      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      let log = EventLog()
      let garbage = Data(repeating: 0x5A, count: 4_096)
      node.run(.repeat(.playSound(data: garbage, waitForCompletion: true), count: 50)) { log.append("done") }
      // Each failed play is seen as finished at the next update, so 50 in a row take 50 frames.
      runFor(1.5, stepping: scene)
      #expect(log.entries == ["done"])
      #expect(engine.statistics.failed == 50)
      #expect(engine.statistics.decodes == 0)
    }
  }

  @Test("with no usable device the engine runs silent and every API still works")
  func silentFallback() throws {
    try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/nonexistent-dir/out.raw"]) {
      let engine = try AudioEngine(session: AudioSession())
      defer { engine.close() }
      #expect(engine.isSilent)
      #expect(engine.deviceFormat.driver == "dummy")
      let voice = engine.play(data: makeToneWAV(frequency: 440, duration: 0.05))
      runFor(0.2)
      #expect(voice.isFinished)
      #expect(engine.statistics.started == 1)
    }
  }

  @Test("a second engine cannot open while one is open; closing is idempotent")
  func singleEngine() throws {
    try withDummyEngine { engine in
      #expect(throws: AudioEngineError.self) { try AudioEngine(session: AudioSession()) }
      engine.close()
      engine.close()
      #expect(engine.isClosed)
      let late = engine.play(data: makeToneWAV(frequency: 440, duration: 0.05))
      engine.waitUntilIdle()
      #expect(late.isFinished)
      let again = try AudioEngine(session: AudioSession())
      again.close()
    }
  }
}
