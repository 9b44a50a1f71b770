import CFoleySDL2
import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// A virtual SDL joystick (`SDL_JoystickAttachVirtualEx`) whose rumble callback records what it
/// is sent, with the mixer's frame and the disk driver's written frames at that moment.
@MainActor
final class RumbleRecorder {
  struct Call {
    var low: UInt16
    var high: UInt16
    /// What `stamp` returned when the call came.
    var frame: Int
  }

  private(set) var calls: [Call] = []
  var stamp: () -> Int = { 0 }
  private var index: Int32 = -1

  init() throws {
    try #require(SDL_InitSubSystem(UInt32(SDL_INIT_JOYSTICK)) == 0, "\(String(cString: SDL_GetError()))")
    var description = SDL_VirtualJoystickDesc()
    description.version = UInt16(SDL_VIRTUAL_JOYSTICK_DESC_VERSION)
    description.type = UInt16(SDL_JOYSTICK_TYPE_GAMECONTROLLER.rawValue)
    description.naxes = 2
    description.nbuttons = 4
    description.userdata = Unmanaged.passUnretained(self).toOpaque()
    description.Rumble = { userdata, low, high in
      // SDL calls it on the thread that asked for the rumble: the game's, the main actor.
      MainActor.assumeIsolated {
        let recorder = Unmanaged<RumbleRecorder>.fromOpaque(userdata!).takeUnretainedValue()
        recorder.calls.append(Call(low: low, high: high, frame: recorder.stamp()))
      }
      return 0
    }
    index = SDL_JoystickAttachVirtualEx(&description)
    try #require(index >= 0, "\(String(cString: SDL_GetError()))")
  }

  /// Detaches the joystick (after the haptics let go of it).
  func detach() {
    if index >= 0 { SDL_JoystickDetachVirtual(index) }
    index = -1
    SDL_QuitSubSystem(UInt32(SDL_INIT_JOYSTICK))
  }
}

/// Rumble from sound: the motors follow a sound's low and high bands from the frame it starts,
/// scaled by its distance, stop when it ends, and stay still while the session is inactive.
@MainActor
@Suite("Haptics from sound", .serialized)
struct HapticsTests {
  /// 0.3 s of 50 Hz, then 0.3 s of 2 kHz, each at 0.5 (peak -6 dBFS: a motor at full).
  static func rumbleSound() -> Data {
    var samples: [Int16] = []
    for frame in 0..<28_800 {
      let frequency = frame < 14_400 ? 50.0 : 2_000.0
      samples.append(Int16(0.5 * 32_767 * sin(2 * .pi * frequency * Double(frame) / 48_000)))
    }
    return makeWAV(samples: samples, sampleRate: 48_000, channels: 1)
  }

  static var rumbling: SoundSettings {
    var settings = SoundSettings()
    settings.rumble = 1
    return settings
  }

  @Test("the heavy motor follows the low band, the light one the high band, from the start frame to the end")
  func followsTheEnvelope() throws {
    let recorder = try RumbleRecorder()
    defer { recorder.detach() }
    let audio = try EmbeddedAudio()
    recorder.stamp = { audio.engine.audioFrame.index }
    try audio.engine.haptics.useAllControllers()
    defer { audio.engine.haptics.releaseControllers() }
    let sound = try Sound(
      data: Self.rumbleSound(), name: "rumble.wav", engine: audio.engine, settings: Self.rumbling)
    audio.advance(seconds: 0.05)
    let voice = audio.engine.play(sound)
    // The motors at each update, by frame (SDL passes on only changes to the joystick).
    var motors: [(frame: Int, low: Double, high: Double)] = []
    for _ in 0..<100 {
      audio.advance(seconds: 0.01)
      audio.engine.haptics.update()
      let now = audio.engine.haptics.motors
      motors.append((audio.engine.audioFrame.index, now.low, now.high))
    }
    #expect(voice.isFinished)
    let start = try #require(voice.startFrame?.index)
    let first = try #require(recorder.calls.first)
    // Sent at the first update once the mixer passed the start: within one 10 ms step of it.
    #expect(
      first.frame > start && first.frame <= start + 480 + 512, "start \(start), first rumble \(first.frame)")
    let during = motors.filter { $0.frame > start + 2_400 && $0.frame < start + 12_000 }
    #expect(during.count >= 15 && during.allSatisfy { $0.low > 0.95 && $0.high < 0.1 }, "\(during)")
    let later = motors.filter { $0.frame > start + 16_800 && $0.frame < start + 26_400 }
    #expect(later.count >= 15 && later.allSatisfy { $0.high > 0.95 && $0.low < 0.1 }, "\(later)")
    // And the joystick was sent each: the heavy motor, then the light one.
    #expect(recorder.calls.contains { $0.low > 62_000 && $0.high < 6_500 && $0.frame < start + 14_400 })
    #expect(recorder.calls.contains { $0.high > 62_000 && $0.low < 6_500 && $0.frame > start + 14_400 })
    let last = try #require(recorder.calls.last)
    #expect(last.low == 0 && last.high == 0 && last.frame >= start + 28_800, "\(last)")
  }

  @Test("nothing rumbles while the session is inactive or the player turned rumble off")
  func inactiveSessionStaysStill() throws {
    let recorder = try RumbleRecorder()
    defer { recorder.detach() }
    let audio = try EmbeddedAudio()
    try audio.engine.haptics.useAllControllers()
    defer { audio.engine.haptics.releaseControllers() }
    let sound = try Sound(
      data: Self.rumbleSound(), name: "rumble.wav", engine: audio.engine, settings: Self.rumbling)
    let voice = audio.engine.play(sound, loops: -1)
    audio.advance(seconds: 0.05)
    audio.engine.haptics.update()
    #expect(recorder.calls.last.map { $0.low > 0 } == true)
    audio.session.deactivate(reason: .focusLost)
    let heard = recorder.calls.count
    for _ in 0..<20 {
      audio.advance(seconds: 0.01)
      audio.engine.haptics.update()
    }
    // One stop, then nothing.
    #expect(
      recorder.calls.count == heard + 1 && recorder.calls.last.map { $0.low == 0 && $0.high == 0 } == true)
    audio.session.activate(reason: .focusLost)
    audio.advance(seconds: 0.05)
    audio.engine.haptics.update()
    #expect(recorder.calls.last.map { $0.low > 0 } == true)
    audio.engine.haptics.isEnabled = false
    audio.engine.haptics.update()
    let off = recorder.calls.count
    #expect(recorder.calls.last.map { $0.low == 0 && $0.high == 0 } == true)
    for _ in 0..<10 {
      audio.advance(seconds: 0.01)
      audio.engine.haptics.update()
    }
    #expect(recorder.calls.count == off)
    voice.stop()
  }

  @Test("on the device: a rumbling sound 300 points away starts its rumble as it is heard, at a third")
  func onTheDevice() throws {
    let recorder = try RumbleRecorder()
    defer { recorder.detach() }
    var buffer = 0
    let capture = try captureDiskOutput { engine, output in
      recorder.stamp = { output.framesWritten }
      try engine.haptics.useAllControllers()
      defer { engine.haptics.releaseControllers() }
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene, positional: true)
      let node = Node()
      node.position = Point(x: 700, y: 300)
      scene.addChild(node)
      let sound = try Sound(
        data: Self.rumbleSound(), name: "rumble.wav", engine: engine, settings: Self.rumbling)
      node.run(.playSound(sound))
      #expect(waitUntil(stepping: scene) { recorder.calls.contains { $0.low == 0 && $0.high == 0 } })
      buffer = engine.deviceFormat.bufferFrames
    }
    let heard = try #require(
      capture.left.audibleRange(threshold: 0.001) ?? capture.right.audibleRange(threshold: 0.001))
    let first = try #require(recorder.calls.first)
    // The rumble is sent once the mixer has mixed the sound's first frame; the device plays it a
    // buffer later. Measured as frames written when the rumble came against the first audible
    // frame: a buffer early at most, and late only by the game's update (generous under load).
    #expect(
      first.frame >= heard.lowerBound - 2 * buffer,
      "rumble at \(first.frame), heard at \(heard.lowerBound)")
    #expect(first.frame <= heard.lowerBound + 4_800, "rumble at \(first.frame), heard at \(heard.lowerBound)")
    // The default inverse model at 300 points: a third of full.
    let strong = recorder.calls.map(\.low).max() ?? 0
    #expect(abs(Double(strong) / 65_535 - 1.0 / 3) < 0.03, "\(strong)")
  }
}
