import FoleyAudio
import FoleyCore
import FoleyTestSupport
import Foundation
import Testing

/// Game parameters, modulators and mix snapshots, read back from SDL's disk driver.
@MainActor
@Suite("Parameters, modulators and snapshots (disk driver)", .serialized)
struct ParameterOutputTests {
  @Test("a looping sound's volume follows a parameter's curve while the parameter is tweened 0 → 1 over 4 s")
  func volumeFollowsAParameterCurve() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var start = 0
    let lead = 4_800  // the tween starts 0.1 s after the sound
    let curve = try ParameterCurve([(0, -30), (0.5, -6), (1, 0)])
    let capture = try captureDiskOutput { engine, _ in
      try engine.defineParameter("speed", range: 0...1, default: 0)
      let sound = try engine.sound(data: dc)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      try voice.setModulators([.parameter("speed", curve: curve)])
      try engine.setParameter(
        "speed", to: 1, tween: Tween(duration: 4, start: .frame(AudioFrame(start + lead))))
      #expect(engine.parameter("speed") == 1)
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + lead + 4 * 48_000 + 9_600 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let samples = capture.left.samples
    let onset = try #require(capture.left.audibleRange(threshold: 1e-4)?.lowerBound)
    let end = onset + lead + 4 * 48_000 + 4_800
    try #require(samples.count > end)
    func heard(_ frame: Int) -> Double { 20 * log10(Double(samples[frame] / TweenOutputTests.level)) }
    // At rest the curve's first point (-30 dB); then five points along the tween; then its last.
    #expect(abs(heard(onset + lead / 2) - -30) < 1, "before the tween: \(heard(onset + lead / 2)) dB")
    for fraction in [0.1, 0.3, 0.5, 0.7, 0.9] {
      let frame = onset + lead + Int(fraction * 4 * 48_000)
      let meant = curve.value(at: fraction)
      #expect(abs(heard(frame) - meant) < 1, "at \(fraction): \(heard(frame)) dB, the curve says \(meant) dB")
      #expect(
        abs(heard(frame) - meant) < 0.05, "at \(fraction): \(heard(frame)) dB, the curve says \(meant) dB")
    }
    #expect(abs(heard(end)) < 0.01, "after the tween: \(heard(end)) dB")
    // Smooth: no jump between samples beyond the steepest part of the curve (24 dB over 2 s).
    #expect(capture.left.largestStep(in: (onset + 10)..<end) < TweenOutputTests.level * 0.001)
  }

  @Test("an LFO of 4 Hz and 6 dB on a tone's volume gives a 4 Hz envelope 6 dB deep")
  func lfoOnATone() throws {
    let tone = makeToneWAV(frequency: 1_000, duration: 1, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, _ in
      let voice = engine.play(try engine.sound(data: tone), loops: -1)
      try voice.setModulators([.lfo(.sine, rateHz: 4, depthDecibels: 6)])
      #expect(waitUntil(timeout: 30) { voice.isPlaying })
      let started = engine.audioFrame.index
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > started + 3 * 48_000 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let onset = try #require(capture.left.audibleRange()?.lowerBound)
    // The envelope: the level of each 5 ms (five whole cycles of the tone) over two seconds.
    let envelope = capture.left.levels(from: onset + 4_800, to: onset + 4_800 + 96_000, window: 240)
    try #require(envelope.count == 400)
    let depth = envelope.max()! - envelope.min()!
    #expect(abs(depth - 6) < 1, "the envelope swings \(depth) dB")
    // Its strongest component between 1 and 10 Hz (200 envelope points a second).
    let mean = envelope.reduce(0, +) / Double(envelope.count)
    func strength(_ hertz: Double) -> Double {
      var (re, im) = (0.0, 0.0)
      for (index, value) in envelope.enumerated() {
        let phase = 2 * .pi * hertz * Double(index) / 200
        re += (value - mean) * cos(phase)
        im += (value - mean) * sin(phase)
      }
      return re * re + im * im
    }
    let candidates = stride(from: 1.0, through: 10, by: 0.5)
    let strongest = candidates.max { strength($0) < strength($1) }!
    #expect(strongest == 4, "the envelope's rate: \(strongest) Hz")
  }

  @Test(
    "a snapshot taking a bus down 12 dB and low-passing it at 800 Hz glides in over its tween without a step, and released, gives the bus back"
  )
  func snapshotOnABus() throws {
    // 200 Hz and 5 kHz at once: each band read apart.
    let music = makeTonesWAV([(200, 0.3), (5_000, 0.3)], duration: 1)
    var start = 0
    var applied = 0
    var released = 0
    let capture = try captureDiskOutput { engine, _ in
      try engine.defineSnapshot(
        MixSnapshot("muffled", buses: [.music: .init(volumeDecibels: -12, lowPass: 800)]))
      var settings = SoundSettings()
      settings.category = .music
      let sound = try Sound(data: music, engine: engine, settings: settings)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      applied = start + 48_000
      try engine.applySnapshot("muffled", tween: Tween(duration: 0.5, start: .frame(AudioFrame(applied))))
      #expect(engine.activeSnapshots == ["muffled": 1])
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > applied + 48_000 })
      released = engine.audioFrame.index + 4_800
      try engine.releaseSnapshot("muffled", tween: Tween(duration: 0.5, start: .frame(AudioFrame(released))))
      #expect(engine.activeSnapshots.isEmpty)
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > released + 48_000 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let left = capture.left
    let onset = try #require(left.audibleRange()?.lowerBound)
    // The sound's first sample is the clock's frame `start`.
    let at = onset + applied - start
    let back = onset + released - start
    try #require(left.count > back + 48_000, "captured \(left.count) frames")
    let move = SnapshotMove(left, at: at, back: back)
    #expect(abs(move.lowDrop - 12) < 1, "the music went down \(move.lowDrop) dB")
    #expect(move.highBeyondLow >= 15, "its band above 3 kHz went down \(move.highBeyondLow) dB more")
    // The music's level in 10 ms windows while the snapshot comes in: no step over 0.5 dB, and
    // the move lasting 0.4 to 0.6 s.
    #expect(move.largestStep <= 0.5, "a step of \(move.largestStep) dB in 10 ms")
    #expect(move.seconds >= 0.4 && move.seconds <= 0.6, "the move took \(move.seconds) s")
    // Released, both bands within 0.5 dB of where they were.
    #expect(
      abs(move.lowBack) < 0.5 && abs(move.highBack) < 0.5, "back by \(move.lowBack), \(move.highBack) dB")
  }

  @Test("an unknown parameter or snapshot is refused with the nearest name; a curve out of order is refused")
  func refusals() throws {
    _ = try captureDiskOutput { engine, _ in
      try engine.defineParameter("speed", range: 0...1, default: 0)
      #expect(throws: ParameterError.unknownParameter("sped", suggestion: "speed")) {
        try engine.setParameter("sped", to: 1)
      }
      #expect(throws: ParameterError.unknownSnapshot("pause", suggestion: nil)) {
        try engine.applySnapshot("pause")
      }
      #expect(throws: ParameterError.self) { try ParameterCurve([(1, 0), (0, -30)]) }
      #expect(throws: ParameterError.self) { try engine.defineParameter("bad", range: 0...1, default: 2) }
      let voice = engine.play(try engine.sound(data: makeToneWAV(frequency: 0, duration: 0.1)))
      #expect(throws: ParameterError.unknownParameter("speeed", suggestion: "speed")) {
        try voice.setModulators([.parameter("speeed", curve: ParameterCurve([(0, 0), (1, 0)]))])
      }
      try engine.setParameter("speed", to: 7)
      #expect(engine.parameter("speed") == 1, "clamped into its range")
      // Defined again (a map's reload), an applied snapshot keeps its intensity.
      try engine.defineSnapshot(MixSnapshot("dim", buses: [.music: .init(volumeDecibels: -6)]))
      try engine.applySnapshot("dim", intensity: 0.5)
      try engine.defineSnapshot(MixSnapshot("dim", buses: [.music: .init(volumeDecibels: -9)]))
      #expect(engine.activeSnapshots == ["dim": 0.5])
      #expect(engine.snapshots["dim"]?.buses[.music]?.volumeDecibels == -9)
    }
  }
}

extension ParameterOutputTests {
  @Test("a snapshot's high-pass takes a bus's lows and leaves its mids, at every intensity it passes through")
  func snapshotHighPass() throws {
    let mix = makeTonesWAV([(60, 0.3), (1_000, 0.3)], duration: 1)
    var start = 0
    let capture = try captureDiskOutput { engine, _ in
      try engine.defineSnapshot(MixSnapshot("thin", buses: [.music: .init(highPass: 300)], mode: .blend))
      var settings = SoundSettings()
      settings.category = .music
      let sound = try Sound(data: mix, engine: engine, settings: settings)
      start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      let voice = engine.play(sound, loops: -1, start: .frame(AudioFrame(start)))
      try engine.applySnapshot(
        "thin", intensity: 1, tween: Tween(duration: 1, start: .frame(AudioFrame(start + 48_000))))
      #expect(waitUntil(timeout: 30) { engine.audioFrame.index > start + 3 * 48_000 })
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let signal = capture.left
    let onset = try #require(signal.audibleRange()?.lowerBound)
    func band(_ hertz: Double, _ second: Double) -> Double {
      let from = onset + Int(second * 48_000)
      return 10 * log10(signal.power(atFrequency: hertz, in: from..<(from + 4_800)))
    }
    let mids = [0.5, 1.25, 1.5, 1.75, 2.5].map { band(1_000, $0) - band(1_000, 0.5) }
    #expect(mids.allSatisfy { abs($0) < 0.5 }, "the 1 kHz band moved: \(mids)")
    #expect(band(60, 2.5) - band(60, 0.5) < -20, "the 60 Hz band: \(band(60, 2.5) - band(60, 0.5)) dB")
    #expect(signal.largestStep(in: (onset + 100)..<(onset + 2 * 48_000)) < 0.08)
  }
}

extension TweenLogicTests {
  @Test("a tween from a frame before the clock began starts at once, as any frame already mixed does")
  func tweenFromANegativeFrame() throws {
    let audio = try EmbeddedAudio()
    let voice = audio.engine.play(
      try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 1)), loops: -1)
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.05)
    voice.setVolume(0.25, tween: Tween(duration: 0.05, start: .frame(AudioFrame(-48_000))))
    audio.engine.waitUntilIdle()
    audio.advance(seconds: 0.2)
    let samples = audio.left.samples
    #expect(abs(samples[samples.count - 1] - TweenOutputTests.level * 0.25) < 1e-5, "\(samples.last ?? 0)")
  }
}
