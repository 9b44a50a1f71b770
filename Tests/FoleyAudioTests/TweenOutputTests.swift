import FoleyAudio
import FoleyCore
import FoleyTestSupport
import Foundation
import Testing

/// A voice's volume moved along a tween, read back sample by sample from SDL's disk driver: a
/// constant (DC) sound, so every output sample is the sound's level times the voice's volume.
@MainActor
@Suite("Tweens (disk driver)", .serialized)
struct TweenOutputTests {
  /// The DC level of `makeToneWAV(frequency: 0, amplitude: 0.5)` as the mix reads it.
  static let level = Float(Int16(0.5 * 32_767)) / 32_768

  @Test(
    "a volume tween follows its curve sample by sample from its frame; a second takes over from where it stands; each holds at its end",
    arguments: [Easing.easeIn, .easeOut(power: 3), .smoothstep, .linear])
  func volumeFollowsTheCurve(easing: Easing) throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var start = 0
    let first = 12_000
    let second = first + 12_000  // half way through the first
    let capture = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: dc)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      // 1 → 0.25 (−12 dB) over 0.5 s from `first`; then, half way, 0.25 s back to 1.
      voice.setVolume(
        0.25, tween: Tween(duration: 0.5, easing: easing, start: .frame(AudioFrame(start + first))))
      voice.setVolume(
        1, tween: Tween(duration: 0.25, easing: .linear, start: .frame(AudioFrame(start + second))))
      #expect(voice.volume == 1)  // the value asked for, not where the mix is
      #expect(waitUntil { engine.audioFrame.index > start + second + 24_000 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let samples = capture.left.samples
    // The capture's first sample is not the clock's frame 0: frames are counted from the play's
    // first sample, which is `start` on the engine's clock.
    let onset = try #require(capture.left.audibleRange()?.lowerBound)
    #expect(samples.count > onset + second + 20_000)
    guard samples.count > onset + second + 20_000 else { return }
    // Full level until the first tween's frame.
    #expect(abs(samples[onset + first - 1] - Self.level) < 1e-6)
    // Along the curve, every sample, until the second tween takes over half way.
    var worst: Float = 0
    for frame in 0..<12_000 {
      let volume = 1 + (0.25 - 1) * Float(easing.apply(Double(frame) / 24_000))
      worst = max(worst, abs(samples[onset + first + frame] - Self.level * volume))
    }
    #expect(worst < 1e-5, "\(easing): the output left the curve by \(worst)")
    // Four points in decibels, as a designer would read them.
    for fraction in [0.1, 0.2, 0.3, 0.45] {
      let frame = Int(fraction * 24_000)
      let heard = 20 * log10(Double(samples[onset + first + frame] / Self.level))
      let meant = 20 * log10(1 + (0.25 - 1) * easing.apply(fraction))
      #expect(abs(heard - meant) < 0.05, "\(easing) at \(fraction): \(heard) dB, meant \(meant) dB")
    }
    // The second starts from where the first had got to, and reaches 1 in 0.25 s, linearly.
    let halfWay = 1 + (0.25 - 1) * Float(easing.apply(0.5))
    #expect(abs(samples[onset + second] - Self.level * halfWay) < 1e-5)
    #expect(abs(samples[onset + second + 6_000] - Self.level * (halfWay + (1 - halfWay) / 2)) < 1e-5)
    #expect(abs(samples[onset + second + 12_000] - Self.level) < 1e-5)
    #expect(abs(samples[onset + second + 20_000] - Self.level) < 1e-6)
    // No step anywhere: the largest change between two samples is the curve's own slope.
    let steepest = Self.level * 0.75 * 4 / 24_000
    #expect(capture.left.largestStep(in: (onset + 1)..<(onset + second + 20_000)) < steepest)
    #expect(capture.right == capture.left)
  }
}

/// The tween's logic on the hand-driven mixer: a voice not yet started when its tween is asked for.
@MainActor
@Suite("Tweens (embedded mixer)")
struct TweenLogicTests {
  @Test(
    "a tween asked for before the voice starts (its sound still decoding) runs from the start at the volume it left"
  )
  func tweenBeforeTheStart() throws {
    let audio = try EmbeddedAudio()
    // Bytes the engine has not seen: the play waits for their decode.
    let voice = audio.engine.play(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5), loops: -1)
    voice.setVolume(0.25, tween: Tween(duration: 0.1, easing: .linear))
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.3)
    let samples = audio.left.samples
    let onset = try #require(audio.left.audibleRange()?.lowerBound)
    let level = TweenOutputTests.level
    #expect(abs(samples[onset] - level) < 1e-4, "it starts at the volume it left: \(samples[onset])")
    #expect(abs(samples[onset + 2_400] - level * 0.625) < 1e-4, "half way: \(samples[onset + 2_400])")
    #expect(abs(samples[onset + 6_000] - level * 0.25) < 1e-5, "held at the end: \(samples[onset + 6_000])")
    #expect(voice.volume == 0.25)
    // A plain assignment before the start simply starts there.
    let other = audio.engine.play(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.4), loops: -1)
    other.volume = 0.5
    audio.engine.waitUntilIdle()
    let before = audio.frames
    audio.advance(seconds: 0.1)
    let both = audio.left.samples[before + 2_400]
    #expect(abs(both - level * 0.25 - Float(Int16(0.4 * 32_767)) / 32_768 * 0.5) < 1e-4, "\(both)")
  }

  @Test(
    "a voice tweened to silence is heard through its whole tween, and one scheduled later until its frame")
  func tweenToSilenceIsHeard() throws {
    let audio = try EmbeddedAudio()
    let level = TweenOutputTests.level
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5))
    let fading = audio.engine.play(sound, loops: -1)
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.1)
    let before = audio.frames
    fading.setVolume(0, tween: Tween(duration: 0.2))
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.4)
    var samples = audio.left.samples
    // Half way down, at half its level: the voice is not let go (made virtual) while it fades.
    #expect(abs(samples[before + 4_800] - level * 0.5) < 0.02, "\(samples[before + 4_800])")
    #expect(samples[before + 9_000] > 0)
    #expect(samples[before + 9_700..<audio.frames].allSatisfy { $0 == 0 })
    // A tween to silence that starts on a later frame: the level holds until that frame.
    let later = audio.engine.play(sound, loops: -1)
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.1)
    let start = audio.frames + 4_800
    later.setVolume(0, tween: Tween(duration: 0.1, start: .frame(AudioFrame(start))))
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.4)
    samples = audio.left.samples
    #expect(abs(samples[start - 1] - level) < 1e-4, "\(samples[start - 1])")
    #expect(abs(samples[start + 2_400] - level * 0.5) < 0.02, "\(samples[start + 2_400])")
    #expect(samples[start + 4_900..<audio.frames].allSatisfy { $0 == 0 })
  }
}

/// A voice's place in its sound, as the game reads it without waiting for the mix.
@MainActor
@Suite("Voice position (disk driver)", .serialized)
struct VoicePositionTests {
  @Test(
    "a voice's currentTime follows the mix's clock through its sound, wraps with its loops, and ends at its length"
  )
  func currentTimeFollowsTheMix() throws {
    _ = try captureDiskOutput { engine, _ in
      let sound = try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.5, amplitude: 0.5))
      let start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let looped = engine.play(sound, loops: 2, start: .frame(AudioFrame(start)))
      #expect(looped.currentTime == nil, "nothing mixed yet")
      let rate = Double(engine.deviceFormat.sampleRate)
      var checked = 0
      var wrapped = false
      var last = 0.0
      // While it plays: the clock's seconds since its start, within its pass, to a block (1,024
      // frames) and the callback that published it.
      while looped.isPlaying, checked < 400 {
        // The next read after the mix has moved on by half a block or more.
        let before = engine.audioFrame.index
        _ = waitUntil(timeout: 5) { engine.audioFrame.index >= before + 480 }
        guard let now = looped.currentTime else { continue }
        let mixed = Double(engine.audioFrame.index - start) / rate
        let expected = mixed.truncatingRemainder(dividingBy: 0.5)
        let gap = abs(now - expected)
        #expect(min(gap, 0.5 - gap) < 2_048 / rate + 0.001, "currentTime \(now), the clock says \(expected)")
        #expect(now >= 0 && now <= 0.5)
        if now < last { wrapped = true }
        last = now
        checked += 1
      }
      #expect(checked > 20 && wrapped, "read \(checked) times, wrapped: \(wrapped)")
      #expect(waitUntil { looped.isFinished })
      #expect(
        looped.currentTime.map { abs($0 - 0.5) < 0.001 } == true, "ended at \(looped.currentTime ?? -1)")
    }
  }
}
