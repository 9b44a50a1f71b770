import FoleyAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Choosing and switching the output device: each voice continues at the frame it had reached.
@MainActor
@Suite("Output devices", .serialized)
struct DeviceSwitchTests {
  /// The ramp rises 28,000/48,000 of a 16-bit step per frame: where it resumes shows exactly.
  static let perFrame: Float = 28_000 / 48_000 / 32_768

  @Test("a switch moves the voice to the other device at the frame it reached; a bad name changes nothing")
  func switchLogic() throws {
    let audio = try EmbeddedAudio(limiter: false)
    audio.mixer.outputDeviceNames = ["Speakers", "Headphones"]
    #expect(
      audio.engine.outputDevices == [
        AudioDevice(name: "Speakers", isDefault: true), AudioDevice(name: "Headphones", isDefault: false),
      ])
    #expect(audio.engine.outputDeviceName == nil)
    let voice = audio.engine.play(
      try audio.engine.sound(data: makeRampWAV(from: 2_000, to: 30_000, duration: 1)))
    audio.advance(seconds: 0.3)
    let switchFrame = audio.frames
    let lastBefore = audio.left[switchFrame - 1]
    try audio.engine.switchOutput(to: "Headphones")
    #expect(audio.engine.outputDeviceName == "Headphones" && audio.mixer.openedDeviceName == "Headphones")
    // A name nobody lists: refused before anything is touched.
    #expect(throws: AudioDeviceError.notFound("Bluetooth", available: ["Speakers", "Headphones"])) {
      try audio.engine.switchOutput(to: "Bluetooth")
    }
    audio.advance(seconds: 0.2)
    // A listed device that does not open: the output goes back to the headphones, still playing.
    audio.mixer.refusedDeviceNames = ["Speakers"]
    let secondFrame = audio.frames
    let beforeSecond = audio.left[secondFrame - 1]
    #expect(throws: AudioDeviceError.self) { try audio.engine.switchOutput(to: "Speakers") }
    #expect(audio.engine.outputDeviceName == "Headphones" && audio.mixer.openedDeviceName == "Headphones")
    #expect(audio.session.isActive && voice.state == .playing)
    #expect(audio.advance(until: { voice.isFinished }))
    // Past each de-click ramp (240 frames) the ramp carries on exactly where it was.
    #expect(abs(audio.left[switchFrame + 240] - (lastBefore + 241 * Self.perFrame)) < 2 * Self.perFrame)
    #expect(abs(audio.left[secondFrame + 240] - (beforeSecond + 241 * Self.perFrame)) < 2 * Self.perFrame)
    #expect(audio.left.segments().count == 1)
    #expect(audio.engine.statistics.started == 1)
  }

  @Test("a real switch between two opens of the disk driver: the output continues across the two files")
  func diskSwitch() throws {
    let first = temporaryFile("switch-a.raw")
    let second = temporaryFile("switch-b.raw")
    defer {
      try? FileManager.default.removeItem(at: first)
      try? FileManager.default.removeItem(at: second)
    }
    var configuration = AudioConfiguration()
    configuration.limiter = nil  // its look-ahead would hold back the last 2 ms at the switch
    try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": first.path]) {
      let engine = try AudioEngine(configuration: configuration, session: AudioSession())
      defer { engine.close() }
      #expect(engine.outputDevices.count <= 1)
      let voice = engine.play(try engine.sound(data: makeRampWAV(from: 2_000, to: 30_000, duration: 1)))
      let output = DiskOutput(url: first, format: engine.deviceFormat)
      #expect(output.waitForMore(seconds: 0.3))
      // The disk driver writes where SDL_DISKAUDIOFILE says when it opens: the second open, a new file.
      setenv("SDL_DISKAUDIOFILE", second.path, 1)
      try engine.switchOutput(to: nil)
      #expect(waitUntil { voice.isFinished })
    }
    let before = try DiskCapture(contentsOf: first, format: .float32).left
    let after = try DiskCapture(contentsOf: second, format: .float32).left
    let last = try #require(before.samples.last { $0 != 0 })
    let resumed = try #require(after.audibleRange()).lowerBound
    // The second device starts where the first stopped: after the 240-frame ramp-in, the ramp is
    // exactly one frame on per frame.
    #expect(
      abs(after[resumed + 240] - (last + 241 * Self.perFrame)) < 3 * Self.perFrame,
      "\(last) → \(after[resumed + 240])")
    #expect(before.samples.filter { $0 != 0 }.count + after.samples.filter { $0 != 0 }.count > 47_000)
  }
}
