import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// What reaches the speakers, read back from SDL's disk driver: real SDL, real SDL_mixer, real
/// time. Tests wait for conditions (a voice finished, frames written), never for a fixed time.
@MainActor
@Suite("Playback output (disk driver)", .serialized)
struct PlaybackOutputTests {
  @Test("a 440 Hz tone played by an action appears at the right frequency, level and length")
  func toneFromAction() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.3, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, _ in
      #expect(engine.deviceFormat.sampleRate == 48_000)
      #expect(engine.deviceFormat.sampleFormat == .float32)
      #expect(engine.deviceFormat.channels == 2)
      let scene = Scene()
      engine.attach(to: scene)
      let sprite = SpriteNode(size: Size(width: 1, height: 1))
      scene.addChild(sprite)
      var done = false
      sprite.run(.playSound(data: tone, name: "tone.wav", waitForCompletion: true)) { done = true }
      #expect(waitUntil(stepping: scene) { done })
      #expect(engine.statistics.started == 1)
    }
    let range = try #require(capture.left.audibleRange())
    #expect(abs(Double(range.count) / 48_000 - 0.3) < 0.002)
    #expect(abs(capture.left.frequency(in: range) - 440) < 2)
    #expect(abs(capture.left.peak - 0.5) < 0.001)
    #expect(capture.right == capture.left)  // centred
  }

  @Test("two overlapped plays of one sound sum exactly in the float mix")
  func overlappedPlaysSum() throws {
    // A constant level sums to exactly twice itself wherever the plays overlap, even when the two
    // starts land in different mixer buffers.
    let level = makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.25)
    let capture = try captureDiskOutput { engine, _ in
      let first = engine.play(data: level)
      let second = engine.play(data: level)
      #expect(waitUntil { first.isFinished && second.isFinished })
      #expect(engine.statistics.started == 2 && engine.statistics.peakVoices == 2)
      #expect(engine.statistics.decodes == 1)
    }
    let single = Float(Int16(0.25 * 32767)) / 32_768
    #expect(abs(capture.left.peak - 2 * single) < 1e-5)
  }

  @Test(
    "at the cap with every channel ramping out, the newest plays take the channels cut for them, to their end"
  )
  func cutAtTheCap() throws {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 2
    // Quiet enough that all 22 at once stay below the limiter's ceiling.
    let level = makeToneWAV(frequency: 0, duration: 0.3, amplitude: 0.02)
    let capture = try captureDiskOutput(configuration: configuration) { engine, _ in
      let sound = try engine.sound(data: level)
      // Two play, sixteen steal into the channels kept for ramping out, and the last four each
      // cut the voice ramping out longest and start on its channel.
      let voices = (0..<22).map { _ in engine.play(sound) }
      #expect(waitUntil { voices.allSatisfy { $0.isFinished } })
      let statistics = engine.statistics
      #expect(statistics.started == 22 && statistics.stolen == 20 && statistics.rejected == 0)
    }
    // The newest two started within a buffer of each other; past every ramp, until the first of
    // them ends, both are heard whole: the constant level twice over, every sample.
    let single = Float(Int16(0.02 * 32767)) / 32_768
    let range = try #require(capture.left.audibleRange())
    let bothPlaying = (range.upperBound - 9_600)..<(range.upperBound - 600)
    #expect(capture.left.samples[bothPlaying].allSatisfy { abs($0 - 2 * single) < 1e-6 })
    #expect(abs(Double(range.count) / 48_000 - 0.3) < 0.02, "heard for \(Double(range.count) / 48_000) s")
  }

  @Test("64 starts of a 0.8-peak sound in one frame never clip; a quiet tone passes untouched")
  func limiterOnTheDevice() throws {
    let capture = try captureDiskOutput { engine, output in
      let hit = try engine.sound(data: makeToneWAV(frequency: 110, duration: 0.3, amplitude: 0.8))
      let voices = (0..<64).map { _ in engine.play(hit) }
      #expect(waitUntil { voices.allSatisfy { $0.isFinished } })
      // The limiter recovers from 35 dB of reduction with an 80 ms time constant: give it 1.5 s.
      #expect(output.waitForMore(seconds: 1.5))
      let quiet = engine.play(
        try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.3)))
      #expect(waitUntil { quiet.isFinished })
      #expect(engine.masterMeter.maximumGainReductionDecibels < -30)
    }
    let segments = capture.left.segments(minimumGap: 2_400, threshold: 0.001)
    try #require(segments.count == 2, "\(segments)")
    let ceiling = Float(pow(10, -1.0 / 20))
    #expect(capture.left.peak(in: segments[0]) <= ceiling)
    #expect(capture.left.peak(in: segments[0]) > ceiling * 0.98)
    // Below the ceiling the samples are the sound's own (16-bit source, exactly).
    #expect(abs(capture.left.peak(in: segments[1]) - Float(Int16(0.3 * 32767)) / 32_768) < 1e-6)
  }

  @Test("a stopped voice ramps down instead of clicking")
  func stopIsRamped() throws {
    let tone = makeToneWAV(frequency: 440, duration: 2, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, output in
      let voice = engine.play(data: tone)
      #expect(waitUntil { voice.state == .playing })
      #expect(output.waitForMore(seconds: 0.1))
      voice.stop()
      #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
      #expect(voice.isFinished && engine.statistics.activeVoices == 0)
    }
    let range = try #require(capture.left.audibleRange())
    #expect(Double(range.count) / 48_000 < 1.5)  // it did stop, before the tone's 2 s
    // A 440 Hz sine at half scale moves at most 2π·440/48000·0.5 ≈ 0.029 per sample; a hard cut
    // would jump by up to 0.5.
    #expect(capture.left.largestStep < 0.032)
  }

  @Test("nothing plays while the session is inactive; the action completes and counts as suppressed")
  func inactiveSessionIsSilent() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.2)
    let session = AudioSession()
    session.deactivate(reason: .focusLost)
    let log = EventLog()
    let capture = try captureDiskOutput(session: session) { engine, output in
      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      node.run(.sequence([.playSound(data: tone, waitForCompletion: true), .run { log.append("done") }]))
      #expect(waitUntil(stepping: scene) { log.entries == ["done"] })
      #expect(output.waitForMore(seconds: 0.3))
      #expect(engine.statistics.suppressed == 1 && engine.statistics.started == 0)
      #expect(engine.statistics.decodes == 0)
    }
    #expect(capture.left.audibleRange() == nil)
    #expect(capture.left.count > 0)
  }

  @Test("changeVolume(to:) lowers the node's playing voices")
  func changeVolume() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.8, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, _ in
      let scene = Scene()
      engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      var done = false
      node.run(
        .group([
          .playSound(data: tone, waitForCompletion: true),
          .sequence([.wait(forDuration: 0.3), .changeVolume(to: 0.25, duration: 0)]),
        ])
      ) { done = true }
      #expect(waitUntil(stepping: scene) { done })
    }
    let range = try #require(capture.left.audibleRange())
    let early = capture.left.peak(in: range.lowerBound..<(range.lowerBound + 4_800))
    let late = capture.left.peak(in: (range.upperBound - 4_800)..<range.upperBound)
    #expect(abs(late / early - 0.25) < 0.01)
  }
}
