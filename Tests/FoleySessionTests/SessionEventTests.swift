import FoleyAudio
import FoleyMusic
import FoleyPlatform
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Pushes real SDL events and lets the pump hand them to the session, as the game loop does.
@MainActor
private func send(_ events: PlatformEvent..., through pump: EventPump) throws {
  for event in events { try EventPump.push(event) }
  _ = pump.poll()
}

/// The audio session driven by real SDL events through the event pump, checked in SDL's disk
/// driver output and the engine's census. (The rules themselves, sample by sample, are in
/// `SessionLogicTests`.)
@MainActor
@Suite("Session from SDL events (real SDL)", .serialized)
struct SessionEventTests {
  @Test("window focus events pause the sound within the ramp and resume it where it was")
  func focusCycleInOutput() throws {
    let ramp = makeRampWAV(from: 2_000, to: 30_000, duration: 1.0)
    let session = AudioSession()
    let capture = try captureDiskOutput(session: session) { engine, output in
      let pump = EventPump(sceneHeight: 100, session: session)
      let voice = engine.play(try engine.sound(data: ramp, name: "ramp.wav"))
      #expect(waitUntil { voice.state == .playing })
      #expect(output.waitForMore(seconds: 0.2))
      try send(.windowFocusLost, through: pump)
      #expect(!session.isActive)
      #expect(engine.play(data: makeToneWAV(frequency: 0, duration: 0.2, amplitude: -0.6)).isFinished)
      #expect(engine.voiceCensus().pausedBySession == 1 && engine.voiceCensus().audible == 0)
      #expect(output.waitForMore(seconds: 0.2))
      try send(.windowFocusGained, through: pump)
      #expect(session.isActive)
      #expect(waitUntil { voice.isFinished })
      #expect(engine.statistics.suppressed == 1)
    }
    #expect(capture.left.samples.allSatisfy { $0 >= 0 })  // the suppressed (negative) sound never played
    let segments = capture.left.segments(minimumGap: 4_800)
    try #require(segments.count == 2, "expected one gap, got \(segments)")
    // Every frame heard once, but for at most a couple of buffers at the pause (the ramp's silent
    // tail, and the queue's wake on a loaded machine).
    let skipped = 48_000 - (segments[0].count + segments[1].count)
    #expect(skipped >= -100 && skipped < 2_048)
    // Faded, not cut: the last 240 frames fall in steps of at most 1/240 of the level.
    #expect(capture.left.largestStep(in: (segments[0].upperBound - 400)..<segments[0].upperBound) < 0.004)
  }

  @Test("a quiet sound's pause and resume fades last the whole 5 ms, as a loud one's do")
  func quietFadesTakeTheDeclickTime() throws {
    // A constant 0.5 at the sound's volume 0.3 (0.15 heard): focus lost and gained.
    let session = AudioSession()
    var settings = SoundSettings()
    settings.volume = 0.3
    let capture = try captureDiskOutput(session: session) { engine, output in
      let pump = EventPump(sceneHeight: 100, session: session)
      let level = try Sound(
        data: makeFloatWAV(samples: [Float](repeating: 0.5, count: 24_000), sampleRate: 48_000, channels: 1),
        name: "level.wav", engine: engine, settings: settings)
      let voice = engine.play(level, loops: -1)
      #expect(waitUntil { voice.state == .playing })
      #expect(output.waitForMore(seconds: 0.2))
      try send(.windowFocusLost, through: pump)
      #expect(output.waitForMore(seconds: 0.2))
      try send(.windowFocusGained, through: pump)
      #expect(output.waitForMore(seconds: 0.2))
      voice.stop()
    }
    let left = capture.left.samples
    let heard: Float = 0.15
    let segments = capture.left.segments(minimumGap: 4_800)
    try #require(segments.count >= 2, "expected a gap, got \(segments)")
    // The fade out: from the last sample at the full level to silence.
    let out = segments[0]
    let lastFull = try #require(out.last { abs(left[$0] - heard) < 1e-5 })
    #expect(out.upperBound - lastFull >= 236, "faded out over \(out.upperBound - lastFull) frames")
    // The fade in: from the first sound to the first sample at the full level.
    let back = segments[1]
    let firstFull = try #require(back.first { abs(left[$0] - heard) < 1e-5 })
    #expect(firstFull - back.lowerBound >= 236, "faded in over \(firstFull - back.lowerBound) frames")
    #expect(capture.left.largestStep(in: out.lowerBound..<(firstFull + 1)) < heard / 200)
    // The stop at the end fades over the whole 5 ms too.
    let lastHeard = try #require(back.last { abs(left[$0] - heard) < 1e-5 })
    #expect(back.upperBound - lastHeard >= 236, "stopped over \(back.upperBound - lastHeard) frames")
  }

  @Test("minimise, background and focus events nest; observers see each transition in order")
  func nestedReasonsFromEvents() throws {
    let session = AudioSession()
    let engine = try AudioEngine(session: session)
    defer { engine.close() }
    let pump = EventPump(sceneHeight: 100, session: session)
    let log = EventLog()
    session.observe { transition in
      MainActor.preconditionIsolated()
      log.append("\(transition.reason) \(transition.isClearing ? "cleared" : "added")")
    }
    try send(.windowMinimized, .windowFocusLost, through: pump)
    try send(.windowFocusGained, through: pump)
    #expect(!session.isActive)
    try send(.appWillEnterBackground, .windowRestored, through: pump)
    #expect(!session.isActive)
    try send(.appDidEnterForeground, through: pump)
    #expect(session.isActive)
    #expect(
      log.entries == [
        "minimized added", "focusLost added", "focusLost cleared", "background added", "minimized cleared",
        "background cleared",
      ])
  }

  @Test(
    "device removed (pushed as an SDL event): the engine reopens and the sound carries on from where it was")
  func deviceRemovedReopens() throws {
    let second = temporaryFile("second.raw")
    defer { try? FileManager.default.removeItem(at: second) }
    let session = AudioSession()
    let ramp = makeRampWAV(from: 2_000, to: 30_000, duration: 1.0)
    let first = try captureDiskOutput(session: session) { engine, output in
      let pump = EventPump(sceneHeight: 100, session: session)
      let voice = engine.play(try engine.sound(data: ramp))
      #expect(waitUntil { voice.state == .playing })
      #expect(output.waitForMore(seconds: 0.3))
      let lost = try #require(engine.deviceID)
      try withEnvironment(["SDL_DISKAUDIOFILE": second.path]) {
        try send(.audioDeviceRemoved(deviceID: lost, isCapture: false), through: pump)
        #expect(session.isActive && !engine.isSilent && engine.deviceID != nil)
        #expect(voice.state == .playing)
        #expect(waitUntil { voice.isFinished })
        #expect(engine.statistics.started == 1)
      }
      engine.close()  // flush the second file before it is read
    }
    let valueAtLoss = first.left.peak
    let after = try DiskCapture(contentsOf: second, format: .float32)
    let start = try #require(after.left.samples.firstIndex { $0 != 0 })
    // Restored where it was (give or take the buffers mixed ahead of the disk writer), ramping in.
    let resumed = after.left.peak(in: start..<(start + 600))
    #expect(abs(resumed - valueAtLoss) < 0.05)
    #expect(resumed > 0.15)  // not restarted from the beginning
    #expect(after.left.peak > 0.88)  // and played to the end (0.915, limited to the -1 dBFS ceiling)
  }

  @Test("with no device to reopen the engine is silent; a device added (an SDL event) brings the voice back")
  func noDeviceThenRecovery() throws {
    let third = temporaryFile("third.raw")
    defer { try? FileManager.default.removeItem(at: third) }
    let session = AudioSession()
    _ = try captureDiskOutput(session: session) { engine, _ in
      let pump = EventPump(sceneHeight: 100, session: session)
      let voice = engine.play(try engine.sound(data: makeToneWAV(frequency: 440, duration: 0.1)), loops: -1)
      #expect(waitUntil { voice.state == .playing })
      let lost = try #require(engine.deviceID)
      try withEnvironment(["SDL_DISKAUDIOFILE": "/nonexistent-foley-dir/out.raw"]) {
        try send(.audioDeviceRemoved(deviceID: lost, isCapture: false), through: pump)
      }
      #expect(engine.isSilent && engine.deviceID == nil)
      #expect(session.state.inactiveReasons == [.deviceLost])
      #expect(engine.voiceCensus().waitingForDevice == 1)
      try withEnvironment(["SDL_DISKAUDIOFILE": third.path]) {
        try send(.audioDeviceAdded(index: 0, isCapture: false), through: pump)
        #expect(session.isActive && !engine.isSilent)
        #expect(voice.state == .playing && engine.voiceCensus().audible == 1)
        let output = DiskOutput(url: third, format: engine.deviceFormat)
        #expect(output.waitForMore(seconds: 0.3))
        engine.close()
      }
    }
    let recovered = try DiskCapture(contentsOf: third, format: .float32)
    let range = try #require(recovered.left.audibleRange())
    // Away from the ends (the ramp in after the restore, the halt at close): one voice, at 440 Hz
    // and its own level, continuous. Two copies, or a jump, would show in the level or the steps.
    let middle = (range.lowerBound + 1_200)..<(range.upperBound - 1_200)
    try #require(middle.count > 4_800, "recovered for \(range.count) frames only")
    let frequency = recovered.left.frequency(in: middle)
    let level = Float(Int16(0.5 * 32_767)) / 32_768
    if abs(frequency - 440) >= 3 {
      // Kept for a look: this failed once under load and was not reproduced.
      try? FileManager.default.copyItem(
        atPath: third.path, toPath: "/tmp/foley-recovered-\(UUID().uuidString).raw")
    }
    #expect(abs(frequency - 440) < 3, "\(frequency) Hz over \(middle)")
    #expect(abs(recovered.left.peak(in: middle) - level) < 0.01)
    // A 440 Hz sine at 0.5 moves at most 2π·440/48000·0.5 = 0.029 per sample.
    #expect(recovered.left.largestStep(in: middle) < 0.035)
  }

  @Test("10,000 focus flips while actions trigger sounds: nothing is audible while inactive")
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
    #expect(waitUntil { interrupter.isFinished })
    #expect(audibleWhileInactive == 0)
    #expect(session.isActive)
    scene.removeAllActions()
    scene.removeAllChildren()
    #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
    let stats = engine.statistics
    #expect(stats.requested >= 9_000)
    #expect(stats.suppressed > 0 && stats.started > 0)
    #expect(stats.requested == stats.started + stats.suppressed + stats.rejected + stats.failed)
    #expect(stats.activeVoices == 0)
  }
}
