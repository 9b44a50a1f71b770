import FoleyAudio
import FoleyCore
import FoleyTestSupport
import Foundation
import Testing

/// A voice's pan moved along a tween, read back sample by sample from SDL's disk driver: a
/// constant (DC) mono sound, so each ear's sample is the sound's level times that ear's gain on
/// the pan law.
@MainActor
@Suite("Pan tweens (disk driver)", .serialized)
struct PanTweenOutputTests {
  /// Both ears' gains on the balance law an unplaced voice pans on.
  static func balance(_ pan: Float) -> (left: Float, right: Float) { (min(1, 1 - pan), min(1, 1 + pan)) }

  @Test(
    "a pan tween follows the pan law along its curve from its frame, full in both ears at the centre; a second takes over from where it stands and holds at its end",
    arguments: [Easing.easeIn, .easeOut(power: 3), .smoothstep])
  func panFollowsTheLaw(easing: Easing) throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var start = 0
    let first = 12_000
    let second = first + 18_000  // three quarters of the way through the first
    let capture = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: dc)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, pan: -1, loops: -1, start: .frame(AudioFrame(start)))
      // Hard left to hard right over 0.5 s from `first`; then, three quarters of the way, 0.25 s
      // back to -0.5.
      voice.setPan(1, tween: Tween(duration: 0.5, easing: easing, start: .frame(AudioFrame(start + first))))
      voice.setPan(-0.5, tween: Tween(duration: 0.25, start: .frame(AudioFrame(start + second))))
      #expect(voice.pan == -0.5)  // the value asked for, not where the mix is
      #expect(waitUntil { engine.audioFrame.index > start + second + 24_000 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let left = capture.left.samples
    let right = capture.right.samples
    let level = TweenOutputTests.level
    let onset = try #require(capture.left.audibleRange()?.lowerBound)
    #expect(left.count > onset + second + 20_000)
    guard left.count > onset + second + 20_000 else { return }
    // Hard left until the tween's frame.
    #expect(abs(left[onset + first - 1] - level) < 1e-6 && right[onset + first - 1] == 0)
    // On the law, every sample, until the second tween takes over.
    var worst: Float = 0
    var centre = 0
    for frame in 0..<18_000 {
      let pan = -1 + 2 * Float(easing.apply(Double(frame) / 24_000))
      if centre == 0, pan >= 0 { centre = frame }
      let (l, r) = Self.balance(pan)
      worst = max(
        worst, abs(left[onset + first + frame] - level * l), abs(right[onset + first + frame] - level * r))
    }
    #expect(worst < 1e-3, "\(easing): the output left the pan law by \(worst)")
    // Crossing the centre, both ears at full level: the law's, not a dip between two gain pairs.
    #expect(
      abs(left[onset + first + centre] - level) < 2e-3, "\(easing): left \(left[onset + first + centre])")
    #expect(
      abs(right[onset + first + centre] - level) < 2e-3, "\(easing): right \(right[onset + first + centre])")
    // The second starts where the first had got to and reaches -0.5 in 0.25 s, linearly.
    let reached = -1 + 2 * Float(easing.apply(0.75))
    for (offset, pan) in [(0, reached), (6_000, (reached - 0.5) / 2), (12_000, -0.5), (20_000, -0.5)] {
      let (l, r) = Self.balance(pan)
      #expect(abs(left[onset + second + offset] - level * l) < 1e-3, "\(easing) +\(offset): left")
      #expect(abs(right[onset + second + offset] - level * r) < 1e-3, "\(easing) +\(offset): right")
    }
    // No step anywhere: the largest change between two samples is the curve's own slope.
    let range = (onset + 1)..<(onset + second + 20_000)
    #expect(capture.left.largestStep(in: range) < 2e-4)
    #expect(capture.right.largestStep(in: range) < 2e-4)
  }
}

/// The pan tween's logic on the hand-driven mixer: the constant-power law of a placed voice, a
/// pan set at once during a tween, and a pause through one.
@MainActor
@Suite("Pan tweens (embedded mixer)")
struct PanTweenLogicTests {
  @Test("a placed mono voice's pan tween follows the constant-power law and composes with its moves")
  func placedVoiceKeepsItsPower() throws {
    let audio = try EmbeddedAudio()
    let space = audio.engine.space
    space.spatial.distanceModel = .linear(reference: 100, maximum: 1_000)
    let sound = try audio.engine.sound(
      data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5, channels: 1))
    let voice = space.play(sound, at: Point(x: 0, y: 0), loops: -1)
    space.update(deltaTime: 0.02)
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.1)
    let level = TweenOutputTests.level
    // Centred on constant power: cos(π/4) of the level in each ear.
    #expect(abs(audio.left.samples[audio.frames - 1] - level * 0.7071) < 1e-3)
    let before = audio.frames
    voice.setPan(1, tween: Tween(duration: 0.4))
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.15)
    // A quarter of the way: pan 0.25, angle 5π/16.
    let quarter = before + 4_800
    let (l, r) = (cos(Float.pi * 5 / 16), sin(Float.pi * 5 / 16))
    #expect(abs(audio.left.samples[quarter] - level * l) < 2e-3, "left \(audio.left.samples[quarter])")
    #expect(abs(audio.right.samples[quarter] - level * r) < 2e-3, "right \(audio.right.samples[quarter])")
    // A move half way down the distance model during the tween: both ears at half gain, the
    // tween going on.
    space.move(voice, to: Point(x: 0, y: 550))
    space.update(deltaTime: 0.02)
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.2)
    let half = before + 14_400  // pan 0.75, angle 7π/16
    let left = audio.left.samples[half]
    let right = audio.right.samples[half]
    #expect(abs(left - 0.5 * level * cos(Float.pi * 7 / 16)) < 2e-3, "left \(left)")
    #expect(abs(right - 0.5 * level * sin(Float.pi * 7 / 16)) < 2e-3, "right \(right)")
    // At its end: hard right.
    audio.advance(seconds: 0.2)
    #expect(abs(audio.left.samples[audio.frames - 1]) < 1e-4)
    #expect(abs(audio.right.samples[audio.frames - 1] - 0.5 * level) < 2e-3)
  }

  @Test(
    "a pan set at once during a tween ends the tween; a pause through one resumes where its clock has got to")
  func setAtOnceAndPause() throws {
    let audio = try EmbeddedAudio()
    let level = TweenOutputTests.level
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5))
    let voice = audio.engine.play(sound, pan: -1, loops: -1)
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.05)
    voice.setPan(1, tween: Tween(duration: 1))
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.1)
    voice.pan = -0.5
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.5)
    // Held at -0.5 long after the tween would have moved it on.
    #expect(abs(audio.left.samples[audio.frames - 1] - level) < 1e-4)
    #expect(abs(audio.right.samples[audio.frames - 1] - level * 0.5) < 1e-4)
    // Paused through the middle of a 0.4 s tween from -1 to 1, resumed after its end: at 1.
    voice.pan = -1
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.05)
    voice.setPan(1, tween: Tween(duration: 0.4))
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.1)
    voice.pause()
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.5)
    voice.resume()
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.1)
    #expect(abs(audio.left.samples[audio.frames - 1]) < 1e-4, "\(audio.left.samples[audio.frames - 1])")
    #expect(abs(audio.right.samples[audio.frames - 1] - level) < 1e-4)
  }
}
