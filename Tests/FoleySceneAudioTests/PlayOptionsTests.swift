import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// The options every way to start a sound takes (volume, pan, rate, start frame, fade-in), heard
/// through a scene's sound action and a sound map's post, as through `engine.play`.
@MainActor
@Suite("Play options on actions and posts (disk driver)", .serialized)
struct PlayOptionsTests {
  /// The DC level of `makeToneWAV(frequency: 0, amplitude: 0.5)` as the mix reads it.
  static let level = Float(Int16(0.5 * 32_767)) / 32_768

  @Test("a sound action with a volume, a start frame and a smoothstep fade-in: silent before, then the curve")
  func actionTakesThePlayOptions() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var start = 0
    let capture = try captureDiskOutput { engine, _ in
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      let sound = try engine.sound(data: dc)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.3)
      node.run(
        .playSound(
          sound, volume: 0.5, loops: -1, start: .frame(AudioFrame(start)),
          fadeIn: Tween(duration: 0.5, easing: .smoothstep)))
      scene.update(deltaTime: 1.0 / 60)
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + 24_000 + 9_600 })
      engine.stopAllVoices()
      #expect(waitUntil { engine.statistics.activeVoices == 0 })
    }
    let samples = capture.left.samples
    let onset = try #require(capture.left.audibleRange(threshold: 1e-7)?.lowerBound)
    let half = Self.level * 0.5
    for fraction in [0.25, 0.5, 0.75] {
      let frame = onset - 1 + Int(fraction * 24_000)
      let meant = half * Float(Easing.smoothstep.apply(fraction))
      #expect(abs(samples[frame] - meant) < half * 1e-3, "at \(fraction): \(samples[frame]), meant \(meant)")
    }
    #expect(abs(samples[onset + 24_000 + 100] - half) < 1e-5, "at half volume after the fade")
  }

  @Test(
    "a map's post takes a volume on top of the event's, and a rate: a 400 Hz tone heard at 600 Hz, 6 dB down")
  func postTakesThePlayOptions() throws {
    let folder = temporaryFile("post-options")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try makeToneWAV(frequency: 400, duration: 1, amplitude: 0.4).write(
      to: folder.appendingPathComponent("tone.wav"))
    let json = #"{"version": 1, "events": {"tone": {"play": "tone.wav", "volumeDb": -6}}}"#
    var heard = 0..<0
    var plain = 0..<0
    let capture = try captureDiskOutput { engine, output in
      let map = try SoundMap(json: Data(json.utf8), relativeTo: folder, engine: engine)
      let first = map.post("tone")
      #expect(first.count == 1)
      #expect(output.waitForMore(seconds: 0.3))
      var from = output.framesWritten
      #expect(output.waitForMore(seconds: 0.3))
      plain = from..<output.framesWritten
      engine.stopAllVoices()
      #expect(waitUntil { engine.statistics.activeVoices == 0 })
      let second = map.post("tone", volume: 0.5, rate: 1.5)
      #expect(second.count == 1)
      #expect(output.waitForMore(seconds: 0.2))
      from = output.framesWritten
      #expect(output.waitForMore(seconds: 0.3))
      heard = from..<output.framesWritten
      engine.stopAllVoices()
      #expect(waitUntil { engine.statistics.activeVoices == 0 })
    }
    let drop = 20 * log10(capture.left.rms(in: heard) / capture.left.rms(in: plain))
    #expect(abs(drop + 6.02) < 0.2, "the post's volume took it \(drop) dB further down")
    #expect(abs(capture.left.frequency(in: plain) - 400) < 2)
    #expect(
      abs(capture.left.frequency(in: heard) - 600) < 3, "heard at \(capture.left.frequency(in: heard)) Hz")
  }
}

extension PlayOptionsTests {
  @Test("an audio node comes in along play(fadeIn:) and goes along stop(tween:)")
  func audioNodeFadesInAndOut() throws {
    // Longer than the test: the node plays it once (not looped), and the stop comes first.
    let dc = makeToneWAV(frequency: 0, duration: 4, amplitude: 0.5)
    var stoppedAt = 0
    let capture = try captureDiskOutput { engine, output in
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene)
      let node = AudioNode(data: dc)
      node.autoplayLooped = false
      node.isPositional = false
      scene.addChild(node)
      node.play(fadeIn: Tween(duration: 0.5, easing: .smoothstep))
      scene.update(deltaTime: 1.0 / 60)
      #expect(output.waitForMore(seconds: 0.8))
      stoppedAt = output.framesWritten
      node.stop(tween: 0.3)
      #expect(output.waitForMore(seconds: 0.6))
      #expect(waitUntil { engine.statistics.activeVoices == 0 })
    }
    let samples = capture.left.samples
    let heard = try #require(capture.left.audibleRange(threshold: 1e-7))
    let onset = heard.lowerBound
    for fraction in [0.25, 0.5, 0.75] {
      let frame = onset - 1 + Int(fraction * 24_000)
      let meant = Self.level * Float(Easing.smoothstep.apply(fraction))
      #expect(
        abs(samples[frame] - meant) < Self.level * 1e-3, "at \(fraction): \(samples[frame]), meant \(meant)")
    }
    // The stop's tail: heard for about 0.3 s after it lands (the device's buffers on top).
    let tail = Double(heard.upperBound - stoppedAt) / 48_000
    #expect(tail > 0.2 && tail < 0.55, "heard \(tail) s after the stop")
  }
}
