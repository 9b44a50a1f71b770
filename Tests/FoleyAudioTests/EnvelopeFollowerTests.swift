import FoleyAudio
import FoleyCore
import FoleyTestSupport
import Foundation
import Testing

/// The envelope and the follower modulators, read back from SDL's disk driver.
@MainActor
@Suite("Envelopes and followers (disk driver)", .serialized)
struct EnvelopeFollowerTests {
  @Test(
    "an envelope shapes a looping sound's start, sustains it, and on the stop fades it out over its release")
  func envelopeOnALoop() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    let envelope = Envelope(attack: 0.1, hold: 0.1, decay: 0.2, sustainDecibels: -12, release: 0.3)
    var stoppedAt = 0
    var start = 0
    let capture = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: dc)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      try voice.setModulators([.envelope(envelope)])
      stoppedAt = start + 48_000
      voice.stop(tween: Tween(duration: 0, start: .frame(AudioFrame(stoppedAt))))
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > stoppedAt + 48_000 })
      #expect(voice.isFinished)
    }
    let samples = capture.left.samples
    // The sound's first frame is `start`: the attack begins from silence there.
    let onset = try #require(capture.left.audibleRange(threshold: 1e-6)?.lowerBound)
    try #require(samples.count > onset + 96_000)
    let level = TweenOutputTests.level
    func gain(_ seconds: Double) -> Double { Double(samples[onset + Int(seconds * 48_000)] / level) }
    func decibels(_ seconds: Double) -> Double { 20 * log10(gain(seconds)) }
    #expect(abs(gain(0.05) - 0.5) < 0.01, "half way up the attack: \(gain(0.05))")
    #expect(abs(gain(0.15) - 1) < 0.001, "holding: \(gain(0.15))")
    #expect(abs(decibels(0.3) - -6) < 0.1, "half way down the decay: \(decibels(0.3)) dB")
    #expect(abs(decibels(0.7) - -12) < 0.05, "sustaining: \(decibels(0.7)) dB")
    let sustain = pow(10, -12.0 / 20)
    #expect(abs(gain(1.15) - sustain / 2) < 0.01, "half way through the release: \(gain(1.15))")
    let tail = samples[(onset + Int(1.31 * 48_000))..<(onset + Int(1.9 * 48_000))]
    #expect(tail.allSatisfy { $0 == 0 }, "silent after the release")
    // No click anywhere: the steepest move is the attack's (0.5 over 0.1 s).
    #expect(capture.left.largestStep(in: onset..<(onset + 96_000)) < level * 0.001)
  }

  @Test(
    "a follower takes a voice's volume down by its curve while another bus is loud, and gives it back after")
  func followerDucksUnderAnotherBus() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.25)
    let speech = makeToneWAV(frequency: 1_000, duration: 0.6, amplitude: 0.25)
    let curve = try ParameterCurve([(-40, 0), (-10, -12)])
    var start = 0
    let capture = try captureDiskOutput { engine, _ in
      var musicSettings = SoundSettings()
      musicSettings.category = .music
      var speechSettings = SoundSettings()
      speechSettings.category = .speech
      let bed = try Sound(data: dc, engine: engine, settings: musicSettings)
      let line = try Sound(data: speech, engine: engine, settings: speechSettings)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(bed, loops: -1, start: .frame(AudioFrame(start)))
      try voice.setModulators([.follower(of: .speech, curve: curve, attack: 0.02, release: 0.25)])
      engine.play(line, start: .frame(AudioFrame(start + 24_000)))
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + 3 * 48_000 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let signal = capture.left
    let onset = try #require(signal.audibleRange(threshold: 1e-4)?.lowerBound)
    try #require(signal.count > onset + 3 * 48_000)
    // The bed's level: the mean over ten whole cycles of the 1 kHz line, which cancels it.
    func bed(_ seconds: Double) -> Double {
      let from = onset + Int(seconds * 48_000)
      let mean = signal.samples[from..<(from + 480)].reduce(0, +) / 480
      return 20 * log10(Double(mean) / 0.25)
    }
    let expected = curve.value(at: 20 * log10(0.25))
    #expect(abs(bed(0.3)) < 0.1, "before the line: \(bed(0.3)) dB")
    #expect(abs(bed(0.9) - expected) < 1, "under the line: \(bed(0.9)) dB, the curve says \(expected) dB")
    #expect(abs(bed(2.8)) < 0.5, "after the line: \(bed(2.8)) dB")
  }

  @Test(
    "a follower of a bus the engine cannot give is refused with a typed error; an envelope clamps the numbers a game may pass"
  )
  func followerRefusals() throws {
    _ = try captureDiskOutput { engine, _ in
      let voice = engine.play(try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.5)), loops: -1)
      try voice.setModulators([.envelope(attack: 0.01, release: 0.05)])
      var thrown: ParameterError?
      for index in 0..<64 where thrown == nil {
        do {
          try voice.setModulators([
            .follower(of: SoundCategory("crowd-\(index)"), curve: ParameterCurve([(-40, 0), (0, -6)]))
          ])
        } catch let error as ParameterError {
          thrown = error
        }
      }
      guard case .tooMany = try #require(thrown) else {
        Issue.record("expected tooMany, got \(String(describing: thrown))")
        return
      }
      // Clamped, never a crash: numbers a game may pass.
      let wild = Envelope(attack: .nan, hold: -1, decay: .infinity, sustainDecibels: 99, release: 1e9)
      #expect(wild.attack == 0 && wild.hold == 0 && wild.decay == 0 && wild.sustainDecibels == 0)
      #expect(wild.release == 60)
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
  }
}
