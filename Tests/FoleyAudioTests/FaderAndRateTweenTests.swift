import FoleyAudio
import FoleyCore
import FoleyTestSupport
import Foundation
import Testing

/// Tweens beyond a voice's volume: a bus's fader, the master's, a voice's playback rate, each
/// eased and started on a frame of the engine's clock, read back from SDL's disk driver.
@MainActor
@Suite("Faders and rates along tweens (disk driver)", .serialized)
struct FaderAndRateTweenTests {
  @Test("a bus's volume and the master's follow their easing from their frames, to the sample")
  func busAndMasterFaders() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var start = 0
    let busFrom = 9_600  // the bus's tween starts 0.2 s after the sound, and lasts 1 s
    let masterFrom = busFrom + 48_000 + 9_600  // the master's 0.2 s after that, and lasts 0.5 s
    let capture = try captureDiskOutput { engine, _ in
      var settings = SoundSettings()
      settings.category = .music
      let sound = try Sound(data: dc, engine: engine, settings: settings)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      engine.bus(.music).setVolume(
        0.25, tween: Tween(duration: 1, easing: .easeIn, start: .frame(AudioFrame(start + busFrom))))
      engine.setMasterVolume(
        0.5, tween: Tween(duration: 0.5, easing: .smoothstep, start: .frame(AudioFrame(start + masterFrom))))
      #expect(engine.bus(.music).volume == 0.25 && engine.masterVolume == 0.5)
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + masterFrom + 24_000 + 9_600 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
      engine.setMasterVolume(1)
    }
    let samples = capture.left.samples
    let onset = try #require(capture.left.audibleRange(threshold: 1e-4)?.lowerBound)
    try #require(samples.count > onset + masterFrom + 24_000 + 4_800)
    let full = TweenOutputTests.level
    // Untouched until the bus's frame, to the sample.
    #expect(abs(samples[onset + busFrom - 1] - full) < 1e-6)
    for fraction in [0.1, 0.3, 0.5, 0.7, 0.9] {
      let frame = onset + busFrom + Int(fraction * 48_000)
      let meant = full * Float(1 - 0.75 * Easing.easeIn.apply(fraction))
      #expect(
        abs(samples[frame] - meant) < full * 1e-3, "bus at \(fraction): \(samples[frame]), meant \(meant)")
    }
    #expect(abs(samples[onset + masterFrom - 1] - full * 0.25) < 1e-5)
    for fraction in [0.25, 0.5, 0.75] {
      let frame = onset + masterFrom + Int(fraction * 24_000)
      let meant = full * 0.25 * Float(1 - 0.5 * Easing.smoothstep.apply(fraction))
      #expect(
        abs(samples[frame] - meant) < full * 1e-3, "master at \(fraction): \(samples[frame]), meant \(meant)")
    }
    #expect(abs(samples[onset + masterFrom + 24_000 + 2_400] - full * 0.125) < 1e-5)
    // No zipper: no step between samples beyond the steepest part of either curve.
    #expect(capture.left.largestStep(in: (onset + 10)..<(onset + masterFrom + 24_000)) < full * 1e-4)
  }

  @Test("a voice's rate eases from its frame: 500 Hz held, then along ease-out to 1,000 Hz")
  func rateEasesFromAFrame() throws {
    let tone = makeToneWAV(frequency: 500, duration: 1, amplitude: 0.4)
    var start = 0
    let from = 24_000  // the tween starts 0.5 s after the sound and lasts 1 s
    let capture = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: tone)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      voice.setPlaybackRate(
        2, tween: Tween(duration: 1, easing: .easeOut, start: .frame(AudioFrame(start + from))))
      #expect(voice.playbackRate == 2)
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + from + 48_000 + 24_000 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let onset = try #require(capture.left.audibleRange()?.lowerBound)
    func heard(at frame: Int) -> Double {
      capture.left.frequency(in: (onset + frame - 960)..<(onset + frame + 960))
    }
    #expect(abs(heard(at: from - 2_400) - 500) < 5, "before: \(heard(at: from - 2_400)) Hz")
    // Half way along ease-out the rate is 1 + 0.75 (a straight line would be at 1.5).
    #expect(abs(heard(at: from + 24_000) - 875) < 15, "half way: \(heard(at: from + 24_000)) Hz")
    #expect(abs(heard(at: from + 48_000 + 12_000) - 1_000) < 5, "after: \(heard(at: from + 60_000)) Hz")
  }

  @Test("a voice stopped along ease-in from a frame: held until it, down the curve, then silent and let go")
  func easedStopFromAFrame() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var start = 0
    let from = 9_600  // the stop's fade starts 0.2 s after the sound, and lasts 0.5 s
    var census = VoiceCensus()
    let capture = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: dc)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      voice.stop(tween: Tween(duration: 0.5, easing: .easeIn, start: .frame(AudioFrame(start + from))))
      #expect(waitUntil { voice.isFinished })
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + from + 24_000 + 9_600 })
      #expect(waitUntil { engine.statistics.activeVoices == 0 })
      census = engine.voiceCensus()
    }
    let samples = capture.left.samples
    let onset = try #require(capture.left.audibleRange(threshold: 1e-4)?.lowerBound)
    let full = TweenOutputTests.level
    #expect(abs(samples[onset + from - 1] - full) < 1e-6, "held until the frame")
    for fraction in [0.25, 0.5, 0.75] {
      let frame = onset + from + Int(fraction * 24_000)
      let meant = full * Float(1 - Easing.easeIn.apply(fraction))
      #expect(abs(samples[frame] - meant) < full * 1e-3, "at \(fraction): \(samples[frame]), meant \(meant)")
    }
    #expect(samples[(onset + from + 24_000)...].allSatisfy { $0 == 0 }, "silent after the curve")
    #expect(census.audible == 0 && census.virtual == 0)
  }

  @Test(
    "a play that starts on a frame and fades in along smoothstep: silent before, then the curve, to the sample"
  )
  func playStartsOnAFrameAndFadesIn() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var start = 0
    let capture = try captureDiskOutput { engine, output in
      let sound = try engine.sound(data: dc)
      #expect(output.waitForMore(seconds: 0.1))
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(
        sound, loops: -1, start: .frame(AudioFrame(start)), fadeIn: Tween(duration: 0.5, easing: .smoothstep))
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + 24_000 + 9_600 })
      #expect(voice.startFrame == AudioFrame(start))
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let samples = capture.left.samples
    let onset = try #require(capture.left.audibleRange(threshold: 1e-7)?.lowerBound)
    let full = TweenOutputTests.level
    for fraction in [0.1, 0.25, 0.5, 0.75, 0.9] {
      let frame = onset - 1 + Int(fraction * 24_000)
      let meant = full * Float(Easing.smoothstep.apply(fraction))
      #expect(abs(samples[frame] - meant) < full * 1e-3, "at \(fraction): \(samples[frame]), meant \(meant)")
    }
    #expect(abs(samples[onset + 24_000 + 100] - full) < 1e-6, "at its volume after the fade")
  }
}
