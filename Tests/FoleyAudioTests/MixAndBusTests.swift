import FoleyAudio
import FoleyMusic
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// The float mix, the master limiter and the category buses, sample by sample on the embedded
/// mixer. (The limiter on SDL's disk driver is in `PlaybackOutputTests`.)
@MainActor
@Suite("Mix, limiter and buses (embedded mixer)")
struct MixAndBusTests {
  static let ceiling = Float(pow(10, -1.0 / 20))

  @Test("64 starts of a 0.8-peak sound in one frame: nothing beyond the ceiling, nothing at full scale")
  func limiterHoldsTheCeiling() throws {
    let audio = try EmbeddedAudio()
    let hit = try audio.engine.sound(data: makeToneWAV(frequency: 110, duration: 0.3, amplitude: 0.8))
    for _ in 0..<64 { audio.engine.play(hit) }
    audio.advance(seconds: 0.5)
    #expect(audio.engine.statistics.started == 64)
    let peak = max(audio.left.peak, audio.right.peak)
    #expect(peak <= Self.ceiling)
    #expect(peak > Self.ceiling * 0.99)  // the stack really was limited, not silenced
    // 64 × 0.8 needs about 35 dB of reduction to fit under -1 dBFS.
    #expect(audio.engine.masterMeter.maximumGainReductionDecibels < -34)
    // Smooth: the limited output moves no faster than the loud sine itself would.
    #expect(audio.left.largestStep < 0.05)
    // And it lets go completely: after the release, a quiet sound's samples are its own again.
    audio.advance(seconds: 1.5)
    audio.engine.play(try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.3)))
    audio.advance(seconds: 0.1)
    #expect(audio.left[audio.frames - 1] == Float(Int16(0.3 * 32767)) / 32_768)
  }

  @Test("below its threshold the limiter is transparent: the output samples equal the unlimited mix")
  func limiterIsTransparent() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.3, amplitude: 0.3)
    func mix(limiter: Bool) throws -> (Signal, Int) {
      let audio = try EmbeddedAudio(limiter: limiter)
      audio.engine.play(try audio.engine.sound(data: tone))
      audio.advance(seconds: 0.4)
      #expect(audio.engine.masterMeter.maximumGainReductionDecibels == 0)
      return (audio.left, audio.engine.outputLatency.lookAheadFrames)
    }
    let (limited, latency) = try mix(limiter: true)
    let (unlimited, none) = try mix(limiter: false)
    #expect(none == 0)
    #expect(latency == 96)  // 2 ms at 48 kHz: the look-ahead, stated as latency
    #expect(Array(limited.samples[latency...]) == Array(unlimited.samples.prefix(limited.count - latency)))
    #expect(limited.samples.prefix(latency).allSatisfy { $0 == 0 })
  }

  /// An engine playing a constant 0.5 looped on the music bus, panned hard left, and on the
  /// effects bus, panned hard right: each bus's gain is read off its own channel.
  static func musicLeftEffectsRight() throws -> EmbeddedAudio {
    let audio = try EmbeddedAudio(limiter: false)
    var music = SoundSettings()
    music.category = .music
    music.pan = -1  // left only
    var effect = SoundSettings()
    effect.pan = 1  // right only
    let level = makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.5)
    audio.engine.play(try Sound(data: level, name: "music", engine: audio.engine, settings: music), loops: -1)
    audio.engine.play(
      try Sound(data: level, name: "effect", engine: audio.engine, settings: effect), loops: -1)
    return audio
  }

  @Test("a category's bus volume ramps its voices, sample by sample, and leaves the others alone")
  func busVolumeRamps() throws {
    let audio = try Self.musicLeftEffectsRight()
    audio.advance(seconds: 0.05)
    let start = audio.frames
    audio.engine.bus(.music).setVolume(0.5, tween: 0.1)
    #expect(audio.engine.bus(.music).volume == 0.5)
    audio.advance(seconds: 0.2)
    let left = audio.left
    let right = audio.right
    let full = left[start - 1]
    // A straight line from full to half level over 0.1 s (4,800 frames), no steps.
    #expect(abs(left[start + 2_400] - full * 0.75) < 0.001)
    #expect(abs(left[start + 4_800] - full * 0.5) < 0.001)
    #expect(left.largestStep(in: start..<(start + 6_000)) <= full * 0.5 / 4_800 * 1.01)
    // To the sample, across buffer edges and the loop's seam (every 4,800 frames, mid-buffer):
    // frame k of the fade is at 1 − 0.5 × k / 4,800 of full level, then it holds at half.
    let offBy = (0..<6_000).map { frame in
      abs(left[start + frame] - full * (1 - 0.5 * Float(min(frame, 4_800)) / 4_800))
    }
    #expect(offBy.max()! < 1e-6, "worst at frame \(offBy.firstIndex(of: offBy.max()!)!)")
    #expect(right.samples[start..<audio.frames].allSatisfy { abs($0 - full) < 1e-6 })

    audio.engine.bus(.effects).isMuted = true
    audio.advance(seconds: 0.05)
    #expect(audio.right[audio.frames - 1] == 0)
    #expect(audio.engine.bus(.effects).isMuted && audio.engine.bus(.effects).volume == 1)
    audio.engine.bus(.effects).isMuted = false
    audio.advance(seconds: 0.05)
    #expect(abs(audio.right[audio.frames - 1] - full) < 1e-6)
    #expect(audio.right.largestStep <= full / 240 * 1.01)  // muting and unmuting ramp too
  }

  @Test("the master volume and mute ramp the whole mix")
  func masterVolume() throws {
    let audio = try EmbeddedAudio(limiter: false)
    audio.engine.play(
      try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.5)), loops: -1)
    audio.advance(seconds: 0.05)
    let full = audio.left[audio.frames - 1]
    audio.engine.masterVolume = 0.5
    audio.advance(seconds: 0.05)
    #expect(abs(audio.left[audio.frames - 1] - full * 0.5) < 1e-5)
    audio.engine.isMuted = true
    audio.advance(seconds: 0.05)
    #expect(audio.left[audio.frames - 1] == 0)
    #expect(audio.engine.masterVolume == 0.5)
    #expect(audio.left.largestStep <= full / 240 * 1.01)
  }

  @Test("in 16-bit mode the sum is limited in float before it is rounded; without a limiter it pins")
  func sixteenBitSaturates() throws {
    var configuration = AudioConfiguration()
    configuration.sampleFormat = .signed16
    configuration.limiter = nil
    let sixteen = try EmbeddedAudio(configuration: configuration)
    let float = try EmbeddedAudio(limiter: false)
    for audio in [sixteen, float] {
      let level = try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.8))
      audio.engine.play(level)
      audio.engine.play(level)
      audio.advance(seconds: 0.05)
    }
    #expect(sixteen.left.peak <= 1)  // pinned at full scale
    #expect(abs(float.left.peak - 1.6) < 0.001)  // the true sum, for the limiter to bring down
    // With the limiter, a 16-bit mix stays under the ceiling: it never reached full scale.
    var limited = AudioConfiguration()
    limited.sampleFormat = .signed16
    let audio = try EmbeddedAudio(configuration: limited)
    let level = try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.8))
    audio.engine.play(level)
    audio.engine.play(level)
    audio.advance(seconds: 0.05)
    let ceiling = Float(pow(10, -1.0 / 20))
    #expect(audio.left.peak <= ceiling + 1.0 / 32_768 && audio.left.peak > ceiling - 0.01)
  }

  @Test(
    "a bus handle: two handles reach one bus, settings read back, bad values are refused and change nothing")
  func busHandle() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let engine = audio.engine
    let music = engine.bus(.music)
    #expect(music == engine.bus(.music) && music != engine.bus(.effects))
    #expect(music.volume == 1 && !music.isMuted && !music.isSoloed && music.effects.isEmpty)
    engine.bus(.music).volume = 0.25
    #expect(music.volume == 0.25)
    music.volume = .nan
    #expect(music.volume == 1, "NaN is full volume, as documented")
    music.volume = 7
    #expect(music.volume == 1)
    let lowPass = FilterEffect(.lowPass, frequency: 1_000)
    try music.setEffects([lowPass])
    #expect(music.effects.count == 1 && music.effects.first === lowPass)
    try engine.bus("stingers").route(to: .music)
    #expect(engine.bus("stingers").parent == music && music.parent == nil)
    #expect(throws: AudioEffectError.loop(.music, into: "stingers")) { try music.route(to: "stingers") }
    #expect(music.parent == nil)
    try music.setLoudnessTarget(-16)
    #expect(throws: AudioEffectError.self) { try music.setLoudnessTarget(3) }
    #expect(throws: AudioEffectError.self) { try music.setLoudnessTarget(.nan) }
    #expect(music.loudnessTarget == -16)
    try music.setMaximumAudibleVoices(4)
    #expect(throws: AudioEffectError.self) { try music.setMaximumAudibleVoices(0) }
    #expect(music.maximumAudibleVoices == 4)
    #expect(music.sessionPolicy == nil && music.effectiveSessionPolicy == engine.sessionPolicy)
    music.sessionPolicy = .duck(decibels: -12)
    #expect(music.effectiveSessionPolicy == .duck(decibels: -12))
    #expect(music.level == -.infinity, "nothing mixed on it yet")
  }

  @Test("solo: while one bus is soloed the others ramp to silence, sample by sample, and ramp back after")
  func soloRamps() throws {
    let audio = try Self.musicLeftEffectsRight()
    audio.advance(seconds: 0.05)
    let full = audio.left[audio.frames - 1]
    #expect(full > 0.1)
    let start = audio.frames
    audio.engine.bus(.music).setSoloed(true, duration: 0.1)
    audio.advance(seconds: 0.2)
    #expect(
      audio.left.samples[start..<audio.frames].allSatisfy { abs($0 - full) < 1e-6 },
      "the soloed bus untouched")
    #expect(abs(audio.right[start + 2_400] - full * 0.5) < 0.001, "halfway down mid-fade")
    #expect(audio.right[audio.frames - 1] == 0)
    #expect(audio.right.largestStep(in: start..<audio.frames) <= full / 4_800 * 1.01)
    audio.engine.bus(.music).isSoloed = false
    audio.advance(seconds: 0.05)
    #expect(abs(audio.right[audio.frames - 1] - full) < 1e-6)
  }
}
