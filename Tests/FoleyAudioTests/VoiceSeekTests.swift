import FoleyAudio
import FoleyCore
import FoleyTestSupport
import Foundation
import Testing

/// `Voice.seek(to:)` read back from SDL's disk driver, on a sound whose every sample says where
/// in it it is (a ramp from 0.1 to 0.9 over its one second).
@MainActor
@Suite("A voice's seek (disk driver)", .serialized)
struct VoiceSeekTests {
  static let ramp = makeFloatWAV(
    samples: (0..<48_000).map { 0.1 + 0.8 * Float($0) / 48_000 }, sampleRate: 48_000, channels: 1)

  /// The place in the sound (seconds) a sample of the ramp stands for.
  static func place(of sample: Float) -> Double { Double((sample - 0.1) / 0.8) }

  @Test("a seek before the voice plays starts it there")
  func seekBeforeItPlays() throws {
    let capture = try captureDiskOutput { engine, _ in
      let voice = engine.play(try engine.sound(data: Self.ramp), loops: -1)
      voice.seek(to: 0.5)
      #expect(waitUntil(timeout: 30) { (voice.currentTime ?? 0) > 0.7 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let onset = try #require(capture.left.audibleRange(threshold: 1e-4)?.lowerBound)
    let first = Self.place(of: capture.left.samples[onset])
    #expect(abs(first - 0.5) < 0.001, "it starts \(first) s into the sound")
  }

  @Test("a seek while it plays jumps back without a click, and the voice tells its new place")
  func seekWhileItPlays() throws {
    var toldAfter = 0.0
    let capture = try captureDiskOutput { engine, output in
      let voice = engine.play(try engine.sound(data: Self.ramp), loops: -1)
      #expect(waitUntil(timeout: 30) { (voice.currentTime ?? 0) > 0.3 })
      let before = voice.currentTime ?? 0
      voice.seek(to: 0.1)
      #expect(waitUntil(timeout: 30) { (voice.currentTime ?? 1) < before - 0.1 })
      toldAfter = voice.currentTime ?? -1
      #expect(output.waitForMore(seconds: 0.1))
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    #expect(toldAfter >= 0.1 && toldAfter < 0.6, "after the seek it says \(toldAfter) s")
    let samples = capture.left.samples
    let range = try #require(capture.left.audibleRange(threshold: 1e-4))
    // Where the ramp goes back: the dip between the fade out and the fade in (the ramp itself
    // never falls below 0.1), after 0.3 s of the sound and before its loop comes round.
    let start = range.lowerBound + 14_400
    let window = start..<min(range.upperBound, range.lowerBound + 47_000)
    let back = try #require(window.min { samples[$0] < samples[$1] })
    #expect(samples[back] < 0.01, "the seek's dip reaches \(samples[back])")
    // The old place faded out and the new faded in over 64 frames each: no step beyond a fade's.
    let steps = (back - 200..<back + 200).map { abs(samples[$0 + 1] - samples[$0]) }
    #expect(steps.max()! < 0.02, "the largest step across the seek is \(steps.max()!)")
    // After the fade-in, the sound from the place asked for, frame by frame.
    let settled = back + 100
    let reached = Self.place(of: samples[settled])
    #expect(reached > 0.1 && reached < 0.11, "64 frames after the jump it is \(reached) s in")
    #expect(
      abs(Double(samples[settled + 480] - samples[settled]) - 0.8 * 0.01) < 1e-4, "and it plays on at rate 1")
  }
}
