import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// The compressor's sidechain, the echo and doppler, read back from SDL's disk driver.
@MainActor
@Suite("Effects output (disk driver)", .serialized)
struct EffectsOutputTests {
  /// The level of `frequency` in `range` of `signal`, in dB (a single-bin DFT, Hann window).
  static func level(of frequency: Double, in range: Range<Int>, of signal: Signal) -> Double {
    var (re, im, weight) = (0.0, 0.0, 0.0)
    for (offset, index) in range.enumerated() {
      let window = 0.5 - 0.5 * cos(2 * .pi * Double(offset) / Double(range.count))
      let phase = 2 * .pi * frequency * Double(index) / 48_000
      re += Double(signal[index]) * window * cos(phase)
      im += Double(signal[index]) * window * sin(phase)
      weight += window
    }
    return 20 * log10(2 * (re * re + im * im).squareRoot() / weight)
  }

  @Test("a compressor keyed by the speech bus drops the music by its range while speech plays, then recovers")
  func sidechainDucking() throws {
    var music = SoundSettings()
    music.category = .music
    var speech = SoundSettings()
    speech.category = .speech
    var marks: [String: Int] = [:]
    let capture = try captureDiskOutput { engine, output in
      let duck = CompressorEffect(
        threshold: -40, ratio: 20, attack: 0.005, release: 0.08, range: 12, sidechain: .speech)
      try engine.bus(.music).setEffects([duck])
      let bed = try Sound(
        data: makeToneWAV(frequency: 200, duration: 1, amplitude: 0.3), engine: engine, settings: music)
      let line = try Sound(
        data: makeToneWAV(frequency: 1_000, duration: 0.6, amplitude: 0.5), engine: engine, settings: speech)
      let voice = engine.play(bed, loops: -1)
      #expect(output.waitForMore(seconds: 0.5))
      marks["before"] = output.framesWritten
      let spoken = engine.play(line)
      #expect(output.waitForMore(seconds: 0.4))
      marks["during"] = output.framesWritten
      #expect(duck.gainReduction > 11 && duck.gainReduction < 12.5, "reduction \(duck.gainReduction) dB")
      #expect(waitUntil { spoken.isFinished })
      #expect(output.waitForMore(seconds: 0.6))
      marks["after"] = output.framesWritten
      voice.stop()
    }
    func window(_ name: String) throws -> Range<Int> {
      let end = try #require(marks[name]) - 2_400
      return (end - 9_600)..<end
    }
    let before = Self.level(of: 200, in: try window("before"), of: capture.left)
    let during = Self.level(of: 200, in: try window("during"), of: capture.left)
    let after = Self.level(of: 200, in: try window("after"), of: capture.left)
    #expect(abs(before - during - 12) < 1, "dropped \(before - during) dB")
    #expect(abs(before - after) < 0.5, "recovered to \(after - before) dB")
    // The speech itself is not touched by the music's compressor.
    let speechLevel = Self.level(of: 1_000, in: try window("during"), of: capture.left)
    #expect(abs(speechLevel - 20 * log10(0.5)) < 0.5)
  }

  @Test("an echo repeats a burst every delay time, each repeat lower, then rings out to exact zeros")
  func echo() throws {
    // 20 ms of 1 kHz under a Hann window: nothing sharp for the loop's filter to ring on.
    var shaped = [Float](repeating: 0, count: 960)
    for index in shaped.indices {
      let time = Double(index)
      let window = 0.5 - 0.5 * cos(2 * Double.pi * time / 960)
      shaped[index] = Float(0.5 * window * sin(2 * Double.pi * 1_000 * time / 48_000))
    }
    let burst = makeFloatWAV(samples: shaped, sampleRate: 48_000, channels: 1)
    var quietAfter = -1
    let capture = try captureDiskOutput { engine, output in
      try engine.bus("echoes").setEffects([
        DelayEffect(time: 0.1, feedback: 0.5, wet: 1, dry: 1, damping: 20_000)
      ])
      var settings = SoundSettings()
      settings.category = "echoes"
      let voice = engine.play(try Sound(data: burst, engine: engine, settings: settings))
      #expect(waitUntil { voice.isFinished })
      #expect(waitUntil { engine.core.mixer.busesRun.load(ordering: .relaxed) == 0 })
      quietAfter = engine.core.mixer.busesRun.load(ordering: .relaxed)
      #expect(output.waitForMore(seconds: 0.1))
    }
    #expect(quietAfter == 0)
    let start = try #require(capture.left.audibleRange(threshold: 0.01)).lowerBound
    let peaks = (0..<4).map { capture.left.peak(in: (start + $0 * 4_800)..<(start + $0 * 4_800 + 960)) }
    // The dry burst, the first repeat at the wet level (1), then each repeat × the feedback.
    #expect(abs(peaks[0] - 0.5) < 0.01)
    #expect(abs(peaks[1] - 0.5) < 0.01, "\(peaks)")
    for index in 2..<4 {
      #expect(abs(peaks[index] / peaks[index - 1] - 0.5) < 0.03, "repeat \(index): \(peaks)")
    }
    // Nothing between the repeats, and nothing at all once it has rung out.
    #expect(capture.left.peak(in: (start + 1_100)..<(start + 4_700)) < 0.002)
    let last = capture.left.samples.lastIndex { $0 != 0 } ?? 0
    #expect(last < capture.left.count - 2_400)
  }

  @Test("doppler: a source approaching at v sounds at f·c/(c−v), within 0.5%")
  func doppler() throws {
    let tone = makeToneWAV(frequency: 500, duration: 1, amplitude: 0.4, channels: 1)
    let marks = Locked<[String: Int]>([:])
    let capture = try captureDiskOutput { engine, output in
      let scene = Scene(size: Size(width: 100, height: 100))
      let listener = Node()
      scene.addChild(listener)
      scene.listener = listener
      var spatial = SpatialAudio()
      spatial.distanceModel = .none
      spatial.speedOfSound = 1_000
      engine.attach(to: scene, positional: true, spatial: spatial)
      let source = AudioNode(data: tone, name: "tone.wav")
      source.position = Point(x: 0, y: 3_000)
      let done = Locked(false)
      scene.addChild(source)
      // 200 points a second towards the listener for 3 s.
      source.run(.move(by: Vector(dx: 0, dy: -600), duration: 3))
      scene.run(
        .sequence([
          .wait(forDuration: 2), .run { marks.withLock { $0["moving"] = output.framesWritten } },
          .wait(forDuration: 1.2),
          .run { done.withLock { $0 = true } },
        ]))
      #expect(waitUntil(stepping: scene, timeout: 30) { done.withLock { $0 } })
    }
    let end = try #require(marks.withLock { $0["moving"] }) - 2_400
    let heard = capture.left.frequency(in: (end - 19_200)..<end)
    let expected = 500 * 1_000 / (1_000 - 200.0)
    #expect(abs(heard - expected) / expected < 0.005, "heard \(heard) Hz, expected \(expected)")
  }

  @Test("a bus routed into another: the parent's volume and effects reach its voices; a loop is refused")
  func nestedBuses() throws {
    let low = makeToneWAV(frequency: 150, duration: 0.4, amplitude: 0.4)
    var marks: [Int] = []
    let capture = try captureDiskOutput { engine, output in
      var settings = SoundSettings()
      settings.category = "radio"
      let sound = try Sound(data: low, engine: engine, settings: settings)
      engine.bus("world").volume = 0.5
      try engine.bus("radio").route(to: "world")
      #expect(throws: AudioEffectError.loop("world", into: "radio")) {
        try engine.bus("world").route(to: "radio")
      }
      #expect(throws: AudioEffectError.loop("radio", into: "radio")) {
        try engine.bus("radio").route(to: "radio")
      }
      let halved = engine.play(sound)
      #expect(waitUntil { halved.isFinished })
      #expect(output.waitForMore(seconds: 0.2))
      marks.append(output.framesWritten)
      try engine.bus("world").setEffects([FilterEffect(.highPass, frequency: 2_000)])
      let filtered = engine.play(sound)
      #expect(waitUntil { filtered.isFinished })
      #expect(output.waitForMore(seconds: 0.2))
      marks.append(output.framesWritten)
      try engine.bus("radio").route(to: nil)
      let direct = engine.play(sound)
      #expect(waitUntil { direct.isFinished })
    }
    let range = try #require(capture.left.audibleRange(threshold: 0.0001))
    let halved = capture.left.peak(in: range.lowerBound..<marks[0])
    // Inside the filtered play, past its onset (a high-pass rings briefly on a tone's first cycle).
    let filtered = capture.left.peak(in: (marks[0] + 2_400)..<(marks[0] + 16_800))
    let direct = capture.left.peak(in: marks[1]..<range.upperBound)
    #expect(abs(halved - 0.2) < 0.002, "through the parent at 0.5: \(halved)")
    #expect(filtered < 0.2 * 0.01, "through the parent's high-pass: \(filtered)")
    #expect(abs(direct - 0.4) < 0.002, "back on the master: \(direct)")
  }

  @Test(
    "a soloed bus: only it and the buses routed into it are heard; the others come back when the solo ends")
  func soloedBus() throws {
    // Three looping tones on three buses, each on its own frequency: "speech" (440 Hz), "radio"
    // (660 Hz, routed into "speech") and "world" (300 Hz).
    let tones: [(SoundCategory, Double)] = [("speech", 440), ("radio", 660), ("world", 300)]
    var marks: [Int] = []
    let capture = try captureDiskOutput { engine, output in
      try engine.bus("radio").route(to: "speech")
      for (category, frequency) in tones {
        var settings = SoundSettings()
        settings.category = category
        let tone = makeToneWAV(frequency: frequency, duration: 0.5, amplitude: 0.2)
        engine.play(try Sound(data: tone, engine: engine, settings: settings), loops: -1)
      }
      #expect(output.waitForMore(seconds: 0.5))
      marks.append(output.framesWritten)
      engine.bus("speech").isSoloed = true
      #expect(engine.bus("speech").isSoloed && !engine.bus("world").isSoloed)
      #expect(output.waitForMore(seconds: 0.5))
      marks.append(output.framesWritten)
      engine.bus("speech").isSoloed = false
      #expect(output.waitForMore(seconds: 0.5))
      marks.append(output.framesWritten)
      engine.stopAllVoices()
    }
    let signal = capture.left
    // Windows well inside each stretch (the queue and the ramps take a few milliseconds).
    func power(_ frequency: Double, after mark: Int) -> Double {
      signal.power(atFrequency: frequency, in: (mark + 7_200)..<(mark + 16_800))
    }
    let before = (power(440, after: marks[0] - 19_200), power(660, after: marks[0] - 19_200))
    let world = power(300, after: marks[0] - 19_200)
    #expect(before.0 > 1e-3 && before.1 > 1e-3 && world > 1e-3, "all three heard first")
    #expect(power(440, after: marks[0]) > 0.5 * before.0, "the soloed bus plays on")
    #expect(power(660, after: marks[0]) > 0.5 * before.1, "a bus routed into the soloed one plays on")
    #expect(power(300, after: marks[0]) < 1e-6 * world, "the other bus falls silent")
    #expect(power(300, after: marks[1]) > 0.5 * world, "and comes back when the solo ends")
  }
}
