import FoleyAudio
import FoleyAudioTesting
import FoleyRecording
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// The output device opened at the first sound (`AudioConfiguration.opensDeviceAtFirstSound`):
/// nothing opens before it, the first buffer after the opening carries it, and a device that
/// fails then fails as it would have at the start.
@MainActor
@Suite("Device opened at the first sound", .serialized)
struct DeviceAtFirstSoundTests {
  static var deferred: AudioConfiguration {
    var configuration = AudioConfiguration()
    configuration.opensDeviceAtFirstSound = true
    return configuration
  }

  @Test("no device until the first sound; then it opens, the sound starts on its first frame, and it stays")
  func opensAtTheFirstSound() throws {
    let audio = try EmbeddedAudio(configuration: Self.deferred, limiter: false)
    #expect(audio.engine.deviceID == nil && !audio.engine.isSilent && audio.engine.deviceError == nil)
    #expect(audio.engine.deviceFormat.driver == "embedded" && audio.engine.deviceFormat.sampleRate == 48_000)
    let level = try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.25))
    audio.advance(seconds: 0.05)
    #expect(audio.engine.deviceID == nil, "the device opened before any sound")
    let voice = audio.engine.play(level)
    audio.advance(seconds: 0.02)
    let opened = try #require(audio.engine.deviceID)
    #expect(!audio.engine.isSilent && voice.isPlaying)
    // The first frame the opened device mixed is the sound's, at its level (after the
    // de-click ramp in).
    let first = try #require(audio.left.samples.firstIndex { $0 != 0 })
    #expect(abs(audio.left[first + 300] - 0.25) < 0.001)
    // Later plays use the same device; nothing opens again.
    audio.engine.play(level)
    audio.engine.openDevice()
    audio.advance(seconds: 0.02)
    #expect(audio.engine.deviceID == opened)
    #expect(audio.engine.statistics.started == 2)
  }

  @Test("openDevice() and switchOutput(to:) open it before any sound")
  func opensWhenAsked() throws {
    let audio = try EmbeddedAudio(configuration: Self.deferred)
    audio.engine.openDevice()
    #expect(audio.engine.deviceID != nil && !audio.engine.isSilent)
    let other = try EmbeddedAudio(configuration: Self.deferred)
    other.mixer.outputDeviceNames = ["Speakers", "Headphones"]
    try other.engine.switchOutput(to: "Headphones")
    #expect(other.engine.deviceID != nil && other.mixer.openedDeviceName == "Headphones")
    // The device opened: the first sound does not open it again.
    other.engine.play(try other.engine.sound(data: makeToneWAV(frequency: 440, duration: 0.05)))
    other.advance(seconds: 0.02)
    #expect(other.mixer.openedDeviceName == "Headphones" && other.engine.statistics.started == 1)
  }

  @Test("a device that will not open at the first sound: the error, the sound counted, the session told")
  func failsVisibly() throws {
    let audio = try EmbeddedAudio(configuration: Self.deferred)
    audio.mixer.isDeviceAvailable = false
    #expect(!audio.engine.isSilent && audio.session.isActive)
    let voice = audio.engine.play(try audio.engine.sound(data: makeToneWAV(frequency: 440, duration: 0.05)))
    audio.advance(seconds: 0.02)
    #expect(voice.isFinished)
    #expect(audio.engine.isSilent && audio.engine.deviceID == nil)
    #expect(audio.engine.deviceFormat.driver == "none")
    #expect(audio.engine.deviceError?.operation == "Mix_OpenAudioDevice")
    #expect(audio.engine.statistics.suppressed == 1 && audio.engine.statistics.started == 0)
    #expect(waitUntil { audio.session.state.inactiveReasons == [.deviceLost] })
    // A device added later is opened, as for an engine that found none at the start.
    audio.mixer.isDeviceAvailable = true
    audio.engine.audioDeviceAdded(index: 0, isCapture: false)
    #expect(audio.engine.deviceID != nil && !audio.engine.isSilent && audio.engine.deviceError == nil)
    #expect(audio.session.isActive)
  }

  @Test("on SDL's disk driver nothing is written before the first sound, and the output begins with it")
  func diskOutputBeginsWithTheSound() throws {
    let url = temporaryFile("first-sound.raw")
    defer { try? FileManager.default.removeItem(at: url) }
    try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": url.path]) {
      var configuration = Self.deferred
      configuration.limiter = nil
      let engine = try AudioEngine(configuration: configuration, session: AudioSession())
      defer { engine.close() }
      #expect(engine.deviceFormat.driver == "disk" && !engine.isSilent && engine.deviceID == nil)
      let level = try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.25))
      // An open disk device would have written 4,800 frames by now.
      Thread.sleep(forTimeInterval: 0.1)
      #expect(!FileManager.default.fileExists(atPath: url.path), "the device opened before the first sound")
      let voice = engine.play(level)
      #expect(waitUntil { voice.isFinished })
      #expect(engine.deviceID != nil && !engine.isSilent)
    }
    let capture = try DiskCapture(contentsOf: url, format: .float32)
    let first = try #require(capture.left.samples.firstIndex { $0 != 0 })
    // SDL_mixer opens the device paused and unpauses it last; SDL's audio thread may make a
    // silent pass before that (one, unless a loaded machine holds the opening thread back for
    // a buffer's time). Opened with the engine, a tenth of a second (4,800 frames) of silence
    // would come first.
    #expect(first <= 4 * 512, "the sound began at frame \(first)")
    #expect(abs(capture.left[first + 1_000] - 0.25) < 0.001)
  }

  @Test("on real SDL, a device that fails at the first sound falls back to the dummy driver and says why")
  func diskFailureFallsBack() throws {
    try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/nonexistent-dir/out.raw"]) {
      let engine = try AudioEngine(configuration: Self.deferred, session: AudioSession())
      defer { engine.close() }
      #expect(!engine.isSilent && engine.deviceError == nil && engine.deviceFormat.driver == "disk")
      let voice = engine.play(data: makeToneWAV(frequency: 440, duration: 0.05))
      #expect(waitUntil { voice.isFinished })
      #expect(engine.isSilent && engine.deviceFormat.driver == "dummy")
      #expect(engine.deviceError?.operation == "Mix_OpenAudioDevice")
      #expect(engine.statistics.started == 1)
    }
  }
}
