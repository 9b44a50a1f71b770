import FoleyAudio
import FoleyPlatform
import FoleyScene
import FoleyTestSupport
import Foundation
import Testing

/// Pushes real SDL events and lets the pump hand them to the session, as the game loop does.
@MainActor
private func send(_ events: PlatformEvent..., through pump: EventPump) throws {
  for event in events { try EventPump.push(event) }
  _ = pump.poll()
}

/// The audio session driven by real SDL events, checked in the mixed output (disk driver) and in
/// the engine's voice census.
@MainActor
@Suite("Audio session", .serialized)
struct SessionTests {
  @Test("focus lost pauses a sound within the ramp; focus gained resumes it where it paused")
  func focusCycleInOutput() throws {
    let ramp = makeRampWAV(from: 2_000, to: 30_000, duration: 1.0)
    let intruder = makeToneWAV(frequency: 0, duration: 0.2, amplitude: -0.6)
    let session = AudioSession()
    let capture = try captureDiskOutput(session: session) { engine in
      let pump = EventPump(sceneHeight: 100, session: session)
      let voice = engine.play(try engine.sound(data: ramp, name: "ramp.wav"))
      runFor(0.3)
      try send(.windowFocusLost, through: pump)
      #expect(!session.isActive)
      let dropped = engine.play(data: intruder, name: "intruder.wav")
      #expect(dropped.isFinished)
      runFor(0.3)
      #expect(engine.voiceCensus().pausedBySession == 1)
      #expect(engine.voiceCensus().audible == 0)
      #expect(voice.state == .playing)  // the session's pause is not the game's
      try send(.windowFocusGained, through: pump)
      #expect(session.isActive)
      runFor(1.0)
      #expect(voice.isFinished)
      #expect(engine.statistics.suppressed == 1)
    }
    // The intruder (a negative level) never reached the output.
    #expect(capture.left.allSatisfy { $0 >= 0 })
    let segments = audibleSegments(capture.left, minimumGap: 4_800)
    try #require(segments.count == 2, "expected one gap, got \(segments)")
    let (before, after) = (segments[0], segments[1])
    // Nothing repeated, and at most ~21 ms skipped: after the ramp reaches silence the channel runs
    // on silently until the queue's next housekeeping pass pauses it (timer + one mixer buffer).
    let skipped = 48_000 - (before.count + after.count)
    #expect(skipped > -100 && skipped < 1_024)
    // Silence came within the ramp (5 ms = 240 frames) of the fade starting.
    let peakBefore = before.max { capture.left[$0] < capture.left[$1] }!
    #expect(before.upperBound - peakBefore < 300)
    // It resumed where it paused: the ramp's value carries on (0.58 per frame) from there.
    let resumedAt = capture.left[after.lowerBound..<(after.lowerBound + 600)].max()!
    let pausedAt = capture.left[peakBefore]
    let jump = Int(resumedAt) - Int(pausedAt)
    #expect(jump > -50 && jump < 600 + 600)
  }

  @Test("a voice the game paused stays paused across a focus cycle; the others resume")
  func gamePausedVoiceStaysPaused() throws {
    let session = AudioSession()
    let engine = try AudioEngine(session: session)
    defer { engine.close() }
    let pump = EventPump(sceneHeight: 100, session: session)
    let loop = try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.1))
    let paused = engine.play(loop, loops: -1)
    let playing = engine.play(loop, loops: -1)
    paused.pause()
    engine.waitUntilIdle()
    try send(.windowFocusLost, through: pump)
    #expect(engine.voiceCensus().pausedBySession == 1)
    try send(.windowFocusGained, through: pump)
    engine.waitUntilIdle()
    #expect(paused.state == .paused)
    #expect(playing.state == .playing)
    let census = engine.voiceCensus()
    #expect(census.audible == 1 && census.pausedByGame == 1 && census.pausedBySession == 0)
    paused.resume()
    #expect(engine.voiceCensus().audible == 2)
  }

  @Test("overlapping reasons nest, and observers see each transition in order on the main actor")
  func nestedReasons() throws {
    let session = AudioSession()
    let engine = try AudioEngine(session: session)
    defer { engine.close() }
    let pump = EventPump(sceneHeight: 100, session: session)
    let log = EventLog()
    session.addObserver { transition in
      MainActor.preconditionIsolated()
      log.append("\(transition.reason) \(transition.isClearing ? "cleared" : "added") → \(transition.new)")
    }
    let voice = engine.play(try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1)), loops: -1)
    try send(.windowMinimized, .windowFocusLost, through: pump)
    try send(.windowFocusGained, through: pump)
    #expect(!session.isActive)  // still minimised
    #expect(engine.voiceCensus().pausedBySession == 1)
    try send(.appWillEnterBackground, .windowRestored, through: pump)
    #expect(!session.isActive)  // still in the background
    try send(.appDidEnterForeground, through: pump)
    #expect(session.isActive)
    #expect(engine.voiceCensus().audible == 1)
    #expect(voice.state == .playing)
    #expect(
      log.entries == [
        "minimized added → inactive(minimized)",
        "focusLost added → inactive(focusLost, minimized)",
        "focusLost cleared → inactive(minimized)",
        "background added → inactive(background, minimized)",
        "minimized cleared → inactive(background)",
        "background cleared → active",
      ])
  }

  @Test("an interruption that ends without resuming leaves the voices paused for the game")
  func interruptionWithoutResume() throws {
    let session = AudioSession()
    let engine = try AudioEngine(session: session)
    defer { engine.close() }
    let loop = try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1))
    let voice = engine.play(loop, loops: -1)
    engine.waitUntilIdle()
    session.beginInterruption()
    session.endInterruption(shouldResume: false)
    #expect(session.isActive)
    #expect(voice.state == .paused)
    #expect(engine.voiceCensus().pausedByGame == 1)
    voice.resume()
    #expect(engine.voiceCensus().audible == 1)
    // With shouldResume the same voice comes back by itself.
    session.beginInterruption()
    #expect(engine.voiceCensus().audible == 0)
    session.endInterruption(shouldResume: true)
    #expect(engine.voiceCensus().audible == 1)
  }

  @Test("music set to duck by 12 dB plays on at a quarter of its level while unfocused")
  func duckPolicyInOutput() throws {
    let session = AudioSession()
    var settings = SoundSettings()
    settings.category = .music
    let capture = try captureDiskOutput(session: session) { engine in
      engine.setSessionPolicy(.duck(decibels: -12), for: .music)
      let pump = EventPump(sceneHeight: 100, session: session)
      let music = try Sound(
        data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.5), name: "music", engine: engine,
        settings: settings)
      let voice = engine.play(music, loops: -1)
      runFor(0.3)
      try send(.windowFocusLost, through: pump)
      #expect(engine.voiceCensus().ducked == 1)
      // New music may start while unfocused; effects may not.
      #expect(!engine.play(music).isFinished)
      #expect(engine.play(data: makeToneWAV(frequency: 0, duration: 0.1)).isFinished)
      engine.waitUntilIdle()
      runFor(0.3)
      try send(.windowFocusGained, through: pump)
      runFor(0.3)
      voice.stop()
      runFor(0.1)
    }
    // One unbroken sound: full level, ducked, full again.
    #expect(audibleSegments(capture.left).count == 1)
    let full = 0.5 * 32767
    let plateaus = Dictionary(grouping: capture.left.filter { $0 != 0 }) { Int(($0 + 50) / 100) }
    let ducked = Double(full) * pow(10, -12.0 / 20)
    #expect((plateaus[Int((ducked + 50) / 100)]?.count ?? 0) > 4_800)
    #expect((plateaus[Int((full + 50) / 100)]?.count ?? 0) > 9_600)
  }

  @Test("a playback-policy engine keeps playing unfocused; pausesSceneWhenInactive pauses the scene")
  func playbackPolicyAndScenePause() throws {
    let session = AudioSession()
    let engine = try AudioEngine(session: session)
    defer { engine.close() }
    engine.sessionPolicy = .playback
    let scene = Scene()
    engine.attach(to: scene, pausesSceneWhenInactive: true)
    let voice = engine.play(try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1)), loops: -1)
    engine.waitUntilIdle()
    session.deactivate(reason: .focusLost)
    scene.update(deltaTime: 1 / 60)
    #expect(scene.isPaused)
    #expect(engine.voiceCensus().audible == 1)
    // Interruptions silence every policy.
    session.beginInterruption()
    #expect(engine.voiceCensus().pausedBySession == 1)
    session.endInterruption(shouldResume: true)
    session.activate(reason: .focusLost)
    scene.update(deltaTime: 1 / 60)
    #expect(!scene.isPaused)
    #expect(voice.state == .playing)
  }

  @Test("device removed (pushed as an SDL event): the engine reopens and the sound carries on")
  func deviceRemovedReopens() throws {
    let second = FileManager.default.temporaryDirectory.appendingPathComponent("foley-second-\(UUID()).raw")
    defer { try? FileManager.default.removeItem(at: second) }
    let session = AudioSession()
    let ramp = makeRampWAV(from: 2_000, to: 30_000, duration: 1.0)
    var valueAtLoss: Int16 = 0
    let first = try captureDiskOutput(session: session) { engine in
      let pump = EventPump(sceneHeight: 100, session: session)
      let voice = engine.play(try engine.sound(data: ramp))
      runFor(0.4)
      let lost = try #require(engine.deviceID)
      try withEnvironment(["SDL_DISKAUDIOFILE": second.path]) {
        try send(.audioDeviceRemoved(deviceID: lost, isCapture: false), through: pump)
        #expect(session.isActive)
        #expect(!engine.isSilent)
        #expect(engine.deviceID != nil)
        #expect(voice.state == .playing)
        runFor(1.0)
        #expect(voice.isFinished)
        #expect(engine.statistics.started == 1)
      }
      engine.close()  // flush the second file before it is read
    }
    valueAtLoss = first.left.max() ?? 0
    let after = try DiskCapture(contentsOf: second)
    let start = try #require(after.left.firstIndex { $0 != 0 })
    // The restored voice ramps in from silence; its level once the ramp is done is where it was.
    let resumed = after.left[start..<(start + 600)].max()!
    // Restored where it was (give or take the buffers mixed ahead of the disk writer).
    #expect(abs(Int(resumed) - Int(valueAtLoss)) < 1_500)
    #expect(resumed > 5_000)  // not restarted from the beginning
    #expect(after.left.max()! > 29_000)  // and played to the end
  }

  @Test("with no device to reopen the engine runs silent, then recovers when a device is added")
  func noDeviceThenRecovery() throws {
    let third = FileManager.default.temporaryDirectory.appendingPathComponent("foley-third-\(UUID()).raw")
    defer { try? FileManager.default.removeItem(at: third) }
    let session = AudioSession()
    _ = try captureDiskOutput(session: session) { engine in
      let pump = EventPump(sceneHeight: 100, session: session)
      let tone = makeToneWAV(frequency: 440, duration: 0.1)
      let voice = engine.play(try engine.sound(data: tone), loops: -1)
      runFor(0.1)
      let lost = try #require(engine.deviceID)
      try withEnvironment(["SDL_DISKAUDIOFILE": "/nonexistent-foley-dir/out.raw"]) {
        try send(.audioDeviceRemoved(deviceID: lost, isCapture: false), through: pump)
      }
      #expect(engine.isSilent)
      #expect(engine.deviceID == nil)
      #expect(session.state.inactiveReasons == [.deviceLost])
      #expect(engine.voiceCensus().waitingForDevice == 1)
      #expect(engine.play(data: tone).isFinished)  // suppressed, not queued
      #expect(throws: SoundError.self) { try engine.sound(data: makeToneWAV(frequency: 220, duration: 0.1)) }
      try withEnvironment(["SDL_DISKAUDIOFILE": third.path]) {
        try send(.audioDeviceAdded(index: 0, isCapture: false), through: pump)
        #expect(session.isActive)
        #expect(!engine.isSilent)
        #expect(voice.state == .playing)
        #expect(engine.voiceCensus().audible == 1)
        runFor(0.3)
        engine.close()
      }
      #expect(engine.statistics.suppressed == 1)
    }
    let recovered = try DiskCapture(contentsOf: third)
    let range = try #require(recovered.audibleRange())
    #expect(abs(recovered.frequency(in: range) - 440) < 3)
  }

  @Test("10,000 focus flips while actions trigger 100 sounds a second: nothing plays while inactive")
  func focusFlipStress() throws {
    let session = AudioSession()
    let engine = try AudioEngine(session: session)
    defer { engine.close() }
    let scene = Scene()
    engine.attach(to: scene)
    let pump = EventPump(sceneHeight: 100, session: session)
    let blip = makeToneWAV(frequency: 880, duration: 0.05)
    for _ in 0..<2 {
      let node = Node()
      scene.addChild(node)
      node.run(.repeatForever(.sequence([.playSound(data: blip), .wait(forDuration: 0.02)])))
    }
    // A host thread interrupting at the same time must not deadlock with the game thread.
    let interrupter = Thread {
      for _ in 0..<500 {
        session.beginInterruption()
        session.endInterruption(shouldResume: true)
      }
    }
    interrupter.start()
    var audibleWhileInactive = 0
    for flip in 0..<10_000 {
      try send(flip.isMultiple(of: 2) ? .windowFocusLost : .windowFocusGained, through: pump)
      scene.update(deltaTime: 0.01)
      if flip.isMultiple(of: 2) { audibleWhileInactive += engine.voiceCensus().audible }
    }
    while !interrupter.isFinished { usleep(1_000) }
    #expect(audibleWhileInactive == 0)
    #expect(session.isActive)
    scene.removeAllActions()
    scene.removeAllChildren()
    runFor(0.3)
    let stats = engine.statistics
    #expect(stats.requested >= 9_000)
    #expect(stats.suppressed > 0 && stats.started > 0)
    #expect(stats.requested == stats.started + stats.suppressed + stats.rejected + stats.failed)
    #expect(stats.activeVoices == 0)
    #expect(engine.voiceCensus() == VoiceCensus())
  }
}
