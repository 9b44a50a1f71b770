import FoleyAudio
import FoleyScene
import FoleyTestSupport
import Foundation
import Testing

/// What reaches the speakers, read back from SDL's disk driver.
@MainActor
@Suite("Playback output (disk driver)", .serialized)
struct PlaybackOutputTests {
  @Test("a 440 Hz tone played by an action appears at the right frequency, level and length")
  func toneFromAction() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.3, amplitude: 0.5)
    let capture = try captureDiskOutput { engine in
      #expect(engine.deviceFormat.sampleRate == 48_000)
      #expect(engine.deviceFormat.sampleFormat == .signed16)
      #expect(engine.deviceFormat.channels == 2)
      let scene = Scene()
      engine.attach(to: scene)
      let sprite = SpriteNode(size: Size(width: 1, height: 1))
      scene.addChild(sprite)
      sprite.run(.playSound(data: tone, name: "tone.wav"))
      runFor(0.6, stepping: scene)
      #expect(engine.statistics.started == 1)
    }
    let range = try #require(capture.audibleRange())
    #expect(abs(Double(range.count) / 48_000 - 0.3) < 0.005)
    #expect(abs(capture.frequency(in: range) - 440) < 2)
    #expect(abs(Double(capture.peak) - 0.5 * 32767) < 0.02 * 32767)
    #expect(capture.right == capture.left)  // centred
  }

  @Test("two overlapped plays of one sound sum")
  func overlappedPlaysSum() throws {
    // A constant level sums to exactly twice itself wherever the plays overlap, even when the two
    // starts land in different mixer buffers (a sine's phase offset would change the sum).
    let tone = makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.25)
    let single = try captureDiskOutput { engine in
      engine.play(data: tone)
      runFor(0.4)
    }
    let double = try captureDiskOutput { engine in
      engine.play(data: tone)
      engine.play(data: tone)
      runFor(0.4)
      #expect(engine.statistics.started == 2)
      #expect(engine.statistics.peakVoices == 2)
      #expect(engine.statistics.decodes == 1)
    }
    #expect(abs(Double(double.peak) / Double(single.peak) - 2) < 0.02)
  }

  @Test("a stopped voice ramps down instead of clicking")
  func stopIsRamped() throws {
    let tone = makeToneWAV(frequency: 440, duration: 2, amplitude: 0.5)
    let capture = try captureDiskOutput { engine in
      let voice = engine.play(data: tone)
      runFor(0.25)
      voice.stop()
      runFor(0.2)
      #expect(voice.isFinished)
      #expect(engine.statistics.activeVoices == 0)
    }
    let range = try #require(capture.audibleRange())
    #expect(Double(range.count) / 48_000 < 0.6)  // it did stop, long before the tone's 2 s
    // A 440 Hz sine at half scale moves at most 2π·440/48000·16384 ≈ 944 per sample; a hard cut
    // would jump by up to 16384.
    #expect(capture.largestStep < 1_100)
  }

  @Test("pause and resume keep the tone continuous and click-free")
  func pauseResume() throws {
    let tone = makeToneWAV(frequency: 440, duration: 1, amplitude: 0.5)
    let capture = try captureDiskOutput { engine in
      let voice = engine.play(data: tone)
      runFor(0.2)
      voice.pause()
      runFor(0.2)
      #expect(voice.state == .paused)
      voice.resume()
      runFor(1.1)
      #expect(voice.isFinished)
    }
    let range = try #require(capture.audibleRange())
    let audible = capture.left[range].filter { abs(Int($0)) > 64 }.count
    // All of the tone was heard (minus the ramps' quiet edges and the sine's own zero region).
    #expect(Double(range.count) / 48_000 > 1.15)
    #expect(Double(audible) / 48_000 > 0.9)
    #expect(capture.largestStep < 1_100)
  }

  @Test("nothing plays while the session is inactive; the action completes and counts as suppressed")
  func inactiveSessionIsSilent() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.2)
    let session = AudioSession()
    session.deactivate(reason: .focusLost)
    let log = EventLog()
    let capture = try captureDiskOutput(session: session) { engine in
      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      node.run(.sequence([.playSound(data: tone, waitForCompletion: true), .run { log.append("done") }]))
      runFor(0.3, stepping: scene)
      #expect(log.entries == ["done"])
      #expect(engine.statistics.suppressed == 1)
      #expect(engine.statistics.started == 0)
      #expect(engine.statistics.decodes == 0)
    }
    #expect(capture.audibleRange() == nil)
    #expect(!capture.left.isEmpty)
  }

  @Test("changeVolume(to:) lowers the node's playing voices")
  func changeVolume() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.8, amplitude: 0.5)
    let capture = try captureDiskOutput { engine in
      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      node.run(
        .sequence([.playSound(data: tone), .wait(forDuration: 0.3), .changeVolume(to: 0.25, duration: 0)]))
      runFor(1.0, stepping: scene)
    }
    let range = try #require(capture.audibleRange())
    let early = capture.left[range.lowerBound..<(range.lowerBound + 4_800)].map { abs(Int($0)) }.max() ?? 0
    let late = capture.left[(range.upperBound - 4_800)..<range.upperBound].map { abs(Int($0)) }.max() ?? 0
    #expect(abs(Double(late) / Double(early) - 0.25) < 0.03)
  }
}
