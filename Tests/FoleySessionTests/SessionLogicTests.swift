internal import CFoleySDL2
import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// The session's rules on the embedded mixer, sample by sample. (The same transitions driven by
/// real SDL events are in `SessionEventTests`.)
@MainActor
@Suite("Session logic (embedded mixer)")
struct SessionLogicTests {
  @Test("focus lost pauses a sound within the ramp; focus gained resumes it where it paused")
  func focusCycle() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let ramp = makeRampWAV(from: 2_000, to: 30_000, duration: 1.0)
    let voice = audio.engine.play(try audio.engine.sound(data: ramp, name: "ramp.wav"))
    audio.advance(seconds: 0.3)
    let lossFrame = audio.frames
    audio.session.deactivate(reason: .focusLost)
    #expect(!audio.session.isActive)
    #expect(audio.engine.play(data: makeToneWAV(frequency: 0, duration: 0.2, amplitude: -0.6)).isFinished)
    audio.advance(seconds: 0.3)
    #expect(audio.engine.voiceCensus().pausedBySession == 1)
    #expect(audio.engine.voiceCensus().audible == 0)
    #expect(voice.state == .playing)  // the session's pause is not the game's
    audio.session.activate(reason: .focusLost)
    #expect(audio.advance(until: { voice.isFinished }))
    #expect(audio.engine.statistics.suppressed == 1)
    let left = audio.left
    // The suppressed sound (a negative level) never reached the output.
    #expect(left.samples.allSatisfy { $0 >= 0 })
    // Silence exactly one ramp (240 frames) after the focus went: its 240th frame is at zero.
    #expect(left[lossFrame + 238] > 0 && left[lossFrame + 239] == 0)
    let segments = left.segments(minimumGap: 4_800)
    try #require(segments.count == 2, "\(segments)")
    // Nothing repeated, and under one buffer skipped while the ramp's tail played silently.
    let skipped = 48_000 - (segments[0].count + segments[1].count)
    #expect(skipped >= 0 && skipped < 512)
  }

  @Test("a voice the game paused stays paused across a focus cycle; the others resume")
  func gamePausedVoiceStaysPaused() throws {
    let audio = try EmbeddedAudio()
    let loop = try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.1))
    let paused = audio.engine.play(loop, loops: -1)
    let playing = audio.engine.play(loop, loops: -1)
    paused.pause()
    audio.advance(seconds: 0.05)
    audio.session.deactivate(reason: .focusLost)
    #expect(audio.engine.voiceCensus().pausedBySession == 1)
    audio.advance(seconds: 0.05)
    audio.session.activate(reason: .focusLost)
    audio.advance(seconds: 0.05)
    #expect(paused.state == .paused && playing.state == .playing)
    let census = audio.engine.voiceCensus()
    #expect(census.audible == 1 && census.pausedByGame == 1 && census.pausedBySession == 0)
    paused.resume()
    audio.engine.waitUntilIdle()
    #expect(audio.engine.voiceCensus().audible == 2)
  }

  @Test("reasons nest, and observers see each transition in order on the main actor")
  func nestedReasons() throws {
    let audio = try EmbeddedAudio()
    let session = audio.session
    let log = EventLog()
    session.observe { transition in
      log.append("\(transition.reason) \(transition.isClearing ? "cleared" : "added") → \(transition.new)")
    }
    let voice = audio.engine.play(
      try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1)), loops: -1)
    audio.engine.waitUntilIdle()
    session.handle(.minimized)
    session.handle(.focusLost)
    session.handle(.focusGained)
    #expect(!session.isActive)  // still minimised
    #expect(audio.engine.voiceCensus().pausedBySession == 1)
    session.handle(.willEnterBackground)
    session.handle(.restored)
    #expect(!session.isActive)  // still in the background
    session.handle(.didEnterForeground)
    #expect(session.isActive)
    #expect(audio.engine.voiceCensus().audible == 1 && voice.state == .playing)
    session.deliverTransitions()
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

  @Test(
    "an interruption that ends without resuming leaves voices for the game; resumeAll and stopAll reach them")
  func interruptionWithoutResume() throws {
    let audio = try EmbeddedAudio()
    let scene = Scene()
    audio.engine.attach(to: scene)
    let node = Node()
    scene.addChild(node)
    let log = EventLog()
    let tone = makeToneWAV(frequency: 0, duration: 0.5, amplitude: 0.2)
    node.run(.sequence([.playSound(data: tone, waitForCompletion: true), .run { log.append("done") }]))
    let held = audio.engine.play(try audio.engine.sound(data: tone), loops: -1)
    audio.advance(seconds: 0.05, stepping: scene)
    audio.session.beginInterruption()
    audio.session.endInterruption(shouldResume: false)
    #expect(audio.session.isActive)
    #expect(held.state == .paused)
    #expect(audio.engine.voiceCensus().pausedByGame == 2)  // including the action's voice
    // The action's voice has no handle in the game's hands: the engine-wide calls reach it.
    audio.engine.resumeAllVoices()
    audio.engine.waitUntilIdle()
    #expect(audio.engine.voiceCensus().audible == 2)
    audio.session.beginInterruption()
    audio.session.endInterruption(shouldResume: false)
    audio.engine.stopAllVoices(tween: 0.01)
    #expect(audio.advance(until: { log.entries == ["done"] }, stepping: scene))
    #expect(held.isFinished)
    #expect(audio.engine.voiceCensus() == VoiceCensus())
  }

  @Test("music set to duck by 12 dB plays on at a quarter of its level while unfocused")
  func duckPolicy() throws {
    let audio = try EmbeddedAudio(limiter: false)
    audio.engine.bus(.music).sessionPolicy = .duck(decibels: -12)
    var settings = SoundSettings()
    settings.category = .music
    let music = try Sound(
      data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.5), name: "music", engine: audio.engine,
      settings: settings)
    let voice = audio.engine.play(music, loops: -1)
    audio.advance(seconds: 0.2)
    audio.session.deactivate(reason: .focusLost)
    #expect(audio.engine.voiceCensus().ducked == 1)
    // New music may start while unfocused; effects may not.
    #expect(!audio.engine.play(music).isFinished)
    #expect(audio.engine.play(data: makeToneWAV(frequency: 0, duration: 0.1)).isFinished)
    audio.advance(seconds: 0.2)
    let ducked = audio.left[(audio.frames - 100)..<audio.frames]
    audio.session.activate(reason: .focusLost)
    audio.advance(seconds: 0.2)
    voice.stop()
    audio.advance(seconds: 0.05)
    let level = 0.5 * Float(32_767) / 32_768
    // The second play of the music (0.1 s) has ended; the loop alone is ducked to 10^(-12/20).
    #expect(ducked.allSatisfy { abs($0 - level * Float(pow(10, -12.0 / 20))) < 1e-4 })
    #expect(abs(audio.left[audio.frames - 2_500] - level) < 1e-4)
    #expect(audio.left.segments().count == 1)  // one unbroken sound
  }

  @Test(
    "a playback-policy engine plays on unfocused; interruptions still silence it; the scene pauses with the session"
  )
  func playbackPolicyAndScenePause() throws {
    let audio = try EmbeddedAudio()
    audio.engine.sessionPolicy = .playback
    let scene = Scene()
    audio.engine.attach(to: scene, pausesSceneWhenInactive: true)
    let voice = audio.engine.play(
      try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1)), loops: -1)
    audio.engine.waitUntilIdle()
    audio.session.deactivate(reason: .focusLost)
    scene.update(deltaTime: 1 / 60)
    #expect(scene.isPaused)
    #expect(audio.engine.voiceCensus().audible == 1)
    audio.session.beginInterruption()
    #expect(audio.engine.voiceCensus().pausedBySession == 1)
    audio.session.endInterruption(shouldResume: true)
    audio.session.activate(reason: .focusLost)
    scene.update(deltaTime: 1 / 60)
    #expect(!scene.isPaused)
    #expect(voice.state == .playing)
  }

  @Test("device lost and reopened: the voice continues from the very next sample")
  func deviceRestorePosition() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let ramp = makeRampWAV(from: 2_000, to: 30_000, duration: 1.0)
    let voice = audio.engine.play(try audio.engine.sound(data: ramp))
    audio.advance(seconds: 0.4)
    let lossFrame = audio.frames
    let lastBefore = audio.left[lossFrame - 1]
    audio.engine.audioDeviceRemoved(deviceID: try #require(audio.engine.deviceID), isCapture: false)
    #expect(audio.session.isActive)
    #expect(voice.state == .playing)
    #expect(audio.advance(until: { voice.isFinished }))
    // Restored at the frame it had reached, ramping in over 240 frames: past the ramp it carries
    // on exactly (the ramp sound rises 28,000/48,000 per frame).
    let perFrame: Float = 28_000 / 48_000 / 32_768
    #expect(abs(audio.left[lossFrame + 240] - (lastBefore + 241 * perFrame)) < 2 * perFrame)
    #expect(audio.left.segments().count == 1)
    #expect(audio.engine.statistics.started == 1)
  }

  @Test("no device to reopen: the engine is silent and holds its voices; a device added brings them back")
  func noDeviceThenRecovery() throws {
    let audio = try EmbeddedAudio(limiter: false)
    var settings = SoundSettings()
    settings.maximumInstances = 1
    settings.policy = .reject
    let tone = try Sound(
      data: makeToneWAV(frequency: 440, duration: 0.1), name: "tone", engine: audio.engine, settings: settings
    )
    let voice = audio.engine.play(tone, loops: -1)
    let waiting = audio.engine.play(
      try audio.engine.sound(data: makeToneWAV(frequency: 220, duration: 0.1)), loops: -1)
    audio.advance(seconds: 0.1)
    audio.mixer.isDeviceAvailable = false
    audio.engine.audioDeviceRemoved(deviceID: try #require(audio.engine.deviceID), isCapture: false)
    #expect(audio.engine.isSilent && audio.engine.deviceID == nil)
    #expect(audio.session.state.inactiveReasons == [.deviceLost])
    #expect(audio.engine.voiceCensus().waitingForDevice == 2)
    #expect(audio.engine.play(tone).isFinished)  // suppressed, not queued
    // Sounds still decode without a device: decoding never needed one.
    #expect(throws: Never.self) { try audio.engine.sound(data: makeToneWAV(frequency: 330, duration: 0.1)) }
    // Stopping a voice that waits for the device frees its place in the sound's limit.
    voice.stop()
    audio.engine.waitUntilIdle()
    audio.mixer.isDeviceAvailable = true
    audio.engine.audioDeviceAdded(index: 0, isCapture: false)
    #expect(audio.session.isActive && !audio.engine.isSilent)
    #expect(waiting.state == .playing)
    let again = audio.engine.play(tone)
    audio.engine.waitUntilIdle()
    #expect(again.state == .playing)
    #expect(audio.engine.voiceCensus().audible == 2)
    #expect(audio.engine.statistics.suppressed == 1)
  }

  @Test("closing an engine whose device was lost clears its deviceLost reason from the shared session")
  func closeClearsDeviceLost() throws {
    let session = AudioSession()
    let audio = try EmbeddedAudio(session: session)
    audio.mixer.isDeviceAvailable = false
    audio.engine.audioDeviceRemoved(deviceID: try #require(audio.engine.deviceID), isCapture: false)
    #expect(session.state.inactiveReasons == [.deviceLost])
    audio.engine.close()
    #expect(session.isActive)
  }

  @Test("a host's loop hands events typed, or as SDL's bytes (checked for size)")
  func hostEntryPoints() throws {
    let session = AudioSession()
    session.handle(.focusLost)
    #expect(session.state.inactiveReasons == [.focusLost])
    session.handle(.focusGained)
    #expect(session.isActive)
    var event = SDL_Event()
    event.type = SDL_WINDOWEVENT.rawValue
    event.window.event = UInt8(SDL_WINDOWEVENT_MINIMIZED.rawValue)
    #expect(withUnsafeBytes(of: &event) { session.handleSDLEvent(bytes: $0) })
    #expect(session.state.inactiveReasons == [.minimized])
    // Too few bytes to be an SDL_Event: ignored, nothing read past them.
    let short = [UInt8](repeating: 0x20, count: 8)
    #expect(!short.withUnsafeBytes { session.handleSDLEvent(bytes: $0) })
    event.window.event = UInt8(SDL_WINDOWEVENT_RESTORED.rawValue)
    #expect(withUnsafeBytes(of: &event) { session.handleSDLEvent(bytes: $0) })
    #expect(session.isActive)
  }

  @Test("transitions made off the main thread never pile up unboundedly for a host that never drains them")
  func offMainTransitionsAreBounded() throws {
    let session = AudioSession()
    let log = EventLog()
    session.observe { _ in log.append("") }
    let worker = Thread {
      for _ in 0..<5_000 {
        session.deactivate(reason: .host("menu"))
        session.activate(reason: .host("menu"))
      }
    }
    worker.start()
    #expect(waitUntil { worker.isFinished })
    session.deliverTransitions()
    // 10,000 transitions: at most the limit are kept for observers, the rest counted as dropped.
    #expect(log.entries.count <= AudioSession.undeliveredLimit)
    #expect(log.entries.count + session.droppedTransitions == 10_000)
  }

  @Test("every voice has its own id, suppressed ones too")
  func suppressedVoicesHaveIds() throws {
    let audio = try EmbeddedAudio()
    audio.session.deactivate(reason: .focusLost)
    let voices = (0..<3).map { _ in audio.engine.play(data: makeToneWAV(frequency: 440, duration: 0.1)) }
    #expect(voices.allSatisfy { $0.isFinished && $0.id != 0 })
    #expect(Set(voices.map(\.id)).count == 3)
  }
}
