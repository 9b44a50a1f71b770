internal import CFoleySDL2
internal import CFoleySDL2Mixer
import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleyRecording
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Opening and closing engines on real SDL: fallbacks without a device, sharing SDL with a host.
@MainActor
@Suite("Engine lifecycle (real SDL)", .serialized)
struct EngineLifecycleTests {
  @Test("with no usable device the engine runs silent on SDL's dummy driver and every API still works")
  func silentFallback() throws {
    try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/nonexistent-dir/out.raw"]) {
      let engine = try AudioEngine(session: AudioSession())
      defer { engine.close() }
      #expect(engine.isSilent)
      #expect(engine.deviceFormat.driver == "dummy")
      let voice = engine.play(data: makeToneWAV(frequency: 440, duration: 0.05))
      #expect(waitUntil { voice.isFinished })
      #expect(engine.statistics.started == 1)
    }
  }

  /// Music and a ringing reverb, then `close()`; the capture's end and its largest steps.
  private func closeWhilePlaying(
    fade: Double
  ) throws -> (
    end: Double, endStep: Float, ownStep: Float, isSounding: Bool
  ) {
    var configuration = AudioConfiguration()
    configuration.closeFadeDuration = fade
    var wasSounding = false
    let amplitude = 0.1
    let capture = try captureDiskOutput(configuration: configuration) { engine, output in
      engine.reverb.apply(.hall)
      engine.music.play(
        Track(data: makeToneWAV(frequency: 440, duration: 10, amplitude: amplitude), name: "tone.wav"))
      // A louder looping tone decoded in memory sounds to the end even when a busy machine starves
      // the music's stream, so the output at the close is loud in both halves of the test: any
      // millisecond of it has an RMS of at least 0.17.
      let hum = engine.play(
        try engine.sound(data: makeToneWAV(frequency: 330, duration: 1, amplitude: 0.5)), loops: -1)
      let burst = engine.play(try engine.sound(data: makeToneWAV(frequency: 880, duration: 0.2)))
      burst.setReverbSend(1)
      #expect(waitUntil { burst.isFinished && hum.isPlaying && (engine.music.currentTime ?? 0) > 0.5 })
      #expect(output.waitForMore(seconds: 0.1))
      wasSounding = engine.isSounding
    }
    let signal = capture.left
    let last = try #require(signal.samples.lastIndex { $0 != 0 })
    // A 330 Hz sine at 0.5 and a 440 Hz one at 0.1 (with a reverb tail under them) move at most
    // about 0.03 a sample.
    let ownStep = signal.largestStep(in: (last - 24_000)..<(last - 4_800))
    // The level of the last millisecond written: a ramp's end is near silence, a cut is not.
    let end = signal.rms(in: (last - 47)..<(last + 1))
    return (end, signal.largestStep(in: (last - 240)..<signal.count), ownStep, wasSounding)
  }

  @Test("close() fades music and a ringing reverb out: the output ends on a ramp, not a cut")
  func closeFadesOut() throws {
    let faded = try closeWhilePlaying(fade: 0.01)
    #expect(faded.isSounding)
    // The last 5 ms before silence: no step larger than the signal's own, and the last
    // millisecond written near silence (the ramp reached it).
    #expect(
      faded.endStep <= faded.ownStep * 1.05, "end step \(faded.endStep), the signal's own \(faded.ownStep)")
    #expect(faded.end < 0.05, "the last millisecond at \(faded.end) RMS")
    // Without the fade the same close cuts the tone mid-wave: the check above sees it.
    let cut = try closeWhilePlaying(fade: 0)
    #expect(cut.end > 0.1, "no fade, yet the last millisecond at \(cut.end) RMS")
  }

  @Test("when a host (here a recorder) holds SDL audio, a failed device leaves its driver alone")
  func fallbackKeepsOthersDevices() throws {
    let input = temporaryFile("in.raw")
    let take = temporaryFile("take.wav")
    try makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 10, sampleRate: 48_000, channels: 1, float: false
    )
    .write(to: input)
    defer {
      try? FileManager.default.removeItem(at: input)
      try? FileManager.default.removeItem(at: take)
    }
    try withEnvironment([
      "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILEIN": input.path,
      "SDL_DISKAUDIOFILE": "/nonexistent-dir/out.raw",
    ]) {
      let recorder = try AudioRecorder(url: take, session: nil)
      try recorder.record()
      #expect(waitUntil { recorder.currentTime > 0.1 })
      let session = AudioSession()
      let engine = try AudioEngine(session: session)
      #expect(engine.isSilent && engine.deviceFormat.driver == "none")
      #expect(session.state.inactiveReasons == [.deviceLost])
      let before = recorder.currentTime
      #expect(waitUntil { recorder.currentTime > before + 0.3 })  // the recorder's device kept going
      engine.close()
      #expect(session.isActive)  // closing cleared the reason the engine added
      #expect(recorder.stop().error == nil)
    }
  }

  @Test("a second engine cannot open while one is open; closing is idempotent")
  func singleEngine() throws {
    let engine = try AudioEngine(session: AudioSession())
    #expect(throws: AudioEngineError.alreadyOpen) { try AudioEngine(session: AudioSession()) }
    engine.close()
    engine.close()
    #expect(engine.isClosed)
    let late = engine.play(data: makeToneWAV(frequency: 440, duration: 0.05))
    engine.waitUntilIdle()
    #expect(late.isFinished)
    let again = try AudioEngine(session: AudioSession())
    again.close()
  }

  @Test("a host that already opened SDL_mixer gets a clear error instead of a shared or closed mixer")
  func hostOpenedMixer() throws {
    #expect(SDL_InitSubSystem(SDL_INIT_AUDIO) == 0)
    defer { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
    // Devices SDL still has open (it allows 16): a leak from an earlier test would show here.
    let openDevices = (1...32).filter { SDL_GetAudioDeviceStatus(SDL_AudioDeviceID($0)) != SDL_AUDIO_STOPPED }
    let opened = Mix_OpenAudio(48_000, UInt16(AUDIO_S16LSB), 2, 512)
    #expect(
      opened == 0,
      "Mix_OpenAudio: \(String(cString: SDL_GetError())); driver \(SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? "none"); SDL_AUDIODRIVER=\(String(cString: getenv("SDL_AUDIODRIVER") ?? strdup("unset"))); open devices \(openDevices)"
    )
    #expect(throws: AudioEngineError.mixerOpenedByHost) { try AudioEngine(session: AudioSession()) }
    Mix_CloseAudio()
    let engine = try AudioEngine(session: AudioSession())
    engine.close()
  }

  @Test("absurd configuration values are refused at the API, naming the value")
  func invalidConfiguration() throws {
    var configuration = AudioConfiguration()
    configuration.sampleRate = 1
    #expect { try AudioEngine(configuration: configuration) } throws: { "\($0)".contains("sampleRate 1") }
    configuration = AudioConfiguration()
    configuration.maximumChannels = 1_000_000
    #expect { try AudioEngine(configuration: configuration) } throws: { "\($0)".contains("maximumChannels") }
    configuration = AudioConfiguration()
    configuration.declickDuration = .infinity
    #expect { try AudioEngine(configuration: configuration) } throws: { "\($0)".contains("declickDuration") }
  }

  @Test("user values that would trap on the audio queue are clamped: huge loops, infinite fades")
  func extremeValuesAreClamped() throws {
    let audio = try EmbeddedAudio()
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 440, duration: 0.05))
    let forever = audio.engine.play(sound, loops: Int.max)
    audio.advance(seconds: 0.2)
    #expect(forever.state == .playing)
    forever.stop(tween: Tween(duration: .infinity))
    let nan = audio.engine.play(sound, volume: .nan, pan: .infinity)
    nan.stop(tween: Tween(duration: .nan))
    audio.advance(seconds: 0.1)
    #expect(nan.isFinished)
    // A number that is not finite is refused, not clamped: the defaults stand.
    #expect(nan.volume == 1 && nan.pan == 0)
  }
}
