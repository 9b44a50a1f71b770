import FoleyAudio
import FoleyMusic
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Shaping sound while it plays, read back from SDL's disk driver: real-time playback rate,
/// a voice's low-pass, bus filters and the reverb's tail.
@MainActor
@Suite("Shaping output (disk driver)", .serialized)
struct ShapingOutputTests {
  @Test("rate 2 doubles a tone's frequency and halves its length (0.1%)")
  func rateTwo() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.5, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, _ in
      let voice = engine.play(try engine.sound(data: tone), rate: 2)
      #expect(waitUntil { voice.isFinished })
    }
    let range = try #require(capture.left.audibleRange())
    let seconds = Double(range.count) / 48_000
    #expect(abs(seconds - 0.25) / 0.25 < 0.001, "lasted \(seconds) s")
    let inner = (range.lowerBound + 480)..<(range.upperBound - 480)
    let frequency = capture.left.frequency(in: inner)
    #expect(abs(frequency - 880) / 880 < 0.001, "heard \(frequency) Hz")
  }

  @Test("a glide from rate 1 to 2 rises steadily, without a step beyond the tone's own")
  func glide() throws {
    let tone = makeToneWAV(frequency: 300, duration: 3, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, output in
      let voice = engine.play(try engine.sound(data: tone))
      #expect(output.waitForMore(seconds: 0.3))
      voice.setPlaybackRate(2, tween: 0.6)
      #expect(waitUntil { voice.isFinished })
    }
    let range = try #require(capture.left.audibleRange())
    // Frequencies in 50 ms windows: never falling, from 300 Hz to 600 Hz.
    let windows = stride(from: range.lowerBound + 2_400, to: range.upperBound - 4_800, by: 2_400).map {
      capture.left.frequency(in: $0..<($0 + 2_400))
    }
    let falls = zip(windows, windows.dropFirst()).filter { $1 < $0 - 8 }
    #expect(falls.isEmpty, "falling windows: \(falls)")
    #expect(abs((windows.first ?? 0) - 300) < 10)
    #expect(abs((windows.last ?? 0) - 600) < 10)
    // A 600 Hz sine of 0.5 moves at most 0.5·2π·600/48000 = 0.039 per sample.
    #expect(capture.left.largestStep(in: range) < 0.045)
  }

  @Test("white noise through a voice's 1 kHz low-pass: -3 dB at the cutoff, 20 dB down two octaves up")
  func voiceLowPass() throws {
    let noise = whiteNoise(seconds: 2.5, seed: 7)
    let capture = try captureDiskOutput { engine, _ in
      let voice = engine.play(
        try engine.sound(data: makeFloatWAV(samples: noise, sampleRate: 48_000, channels: 1)))
      voice.setLowPassCutoff(1_000)
      #expect(waitUntil { voice.isFinished })
    }
    let range = try #require(capture.left.audibleRange(threshold: 0))
    let output = Array(capture.left[range])
    // Skip the first 0.2 s (the cutoff's de-click glide); the input is aligned by its start.
    let response = transfer(from: noise, to: output, skip: 9_600, at: [250, 1_000, 4_000])
    let passband = response[0]
    #expect(abs(passband) < 0.5, "passband \(passband) dB")
    // -3 dB at the cutoff; ±10% in frequency is about ±0.6 dB on a 12 dB/octave slope.
    #expect(abs(response[1] - passband + 3) < 0.7, "at 1 kHz: \(response[1] - passband) dB")
    #expect(response[2] - passband < -20, "at 4 kHz: \(response[2] - passband) dB")
  }

  @Test("a cutoff swept from 20 kHz to 500 Hz in 100 ms adds no sample step beyond the tone's own")
  func cutoffSweep() throws {
    let tone = makeToneWAV(frequency: 300, duration: 1, amplitude: 0.5)
    let capture = try captureDiskOutput { engine, output in
      let voice = engine.play(try engine.sound(data: tone))
      #expect(output.waitForMore(seconds: 0.3))
      voice.setLowPassCutoff(500, tween: 0.1)
      #expect(waitUntil { voice.isFinished })
    }
    let range = try #require(capture.left.audibleRange())
    // A 300 Hz sine of 0.5 moves at most 0.5·2π·300/48000 = 0.0196 per sample.
    let inner = (range.lowerBound + 48)..<(range.upperBound - 48)
    #expect(capture.left.largestStep(in: inner) < 0.021)
  }

  @Test(
    "a high-pass on a category's bus removes its low tone; another category's passes untouched and is metered"
  )
  func busFilter() throws {
    let low = makeToneWAV(frequency: 150, duration: 0.6, amplitude: 0.4)
    let capture = try captureDiskOutput { engine, output in
      try engine.bus(.effects).setEffects([FilterEffect(.highPass, frequency: 2_000)])
      var settings = SoundSettings()
      settings.category = "radio"
      let filtered = engine.play(try engine.sound(data: low))
      #expect(waitUntil { filtered.isFinished })
      let plain = engine.play(try Sound(data: low, engine: engine, settings: settings))
      // The meters: the radio bus and the master peak at the tone's 0.4 (-8 dBFS) while it plays.
      #expect(output.waitForMore(seconds: 0.2))
      let levels = engine.busLevels
      #expect(abs((levels["radio"] ?? -100) - 20 * log10(0.4)) < 0.2, "\(levels)")
      #expect(abs((levels["master"] ?? -100) - 20 * log10(0.4)) < 0.2, "\(levels)")
      #expect(waitUntil { plain.isFinished })
    }
    // The filtered play comes first, the plain one right after it: 0.6 s each.
    let range = try #require(capture.left.audibleRange(threshold: 0.0001))
    let plainPart = (range.upperBound - 26_400)..<(range.upperBound - 2_400)
    #expect(abs(capture.left.peak(in: plainPart) - 0.4) < 0.002)
    // Through the high-pass: 150 Hz is almost four octaves below 2 kHz, 45 dB down.
    let quiet = capture.left.peak(in: (range.lowerBound + 2_400)..<(range.lowerBound + 26_400))
    #expect(quiet < 0.4 * 0.01, "filtered peak \(quiet)")
  }

  @Test("the meters read a sound while it plays and fall to silence once nothing plays, each time")
  func metersFallToSilence() throws {
    let tone = makeToneWAV(frequency: 440, duration: 0.3, amplitude: 0.4)
    _ = try captureDiskOutput { engine, output in
      let sound = try engine.sound(data: tone)
      // Twice: the meters must show the second sound and fall again as they did the first's.
      // (The silent callbacks before the mix goes idle already store zeros, so this holds the
      // meters' behaviour, not the idle path's own zeroing, which a mutant of it still passes.)
      for round in 1...2 {
        let voice = engine.play(sound)
        #expect(
          waitUntil { abs((engine.busLevels["master"] ?? -.infinity) - 20 * log10(0.4)) < 0.2 },
          "round \(round): \(engine.busLevels)")
        #expect(waitUntil { voice.isFinished })
        #expect(
          waitUntil { engine.busLevels.values.allSatisfy { $0 == -.infinity } },
          "round \(round): \(engine.busLevels)")
        #expect(output.waitForMore(seconds: 0.1))
        #expect(
          engine.busLevels.values.allSatisfy { $0 == -.infinity }, "round \(round): \(engine.busLevels)")
      }
    }
  }

  @Test("the reverb's tail rings on after its voice ends, decays to exact zeros, then costs nothing")
  func reverbTail() throws {
    let burst = whiteNoise(seconds: 0.1, seed: 3).map { $0 * 0.5 }
    var idleBuses = -1
    let capture = try captureDiskOutput { engine, output in
      engine.reverb.apply(.room)
      let voice = engine.play(
        try engine.sound(data: makeFloatWAV(samples: burst, sampleRate: 48_000, channels: 1)))
      voice.setReverbSend(1)
      #expect(waitUntil { voice.isFinished })
      #expect(output.waitForMore(seconds: 0.2))
      #expect(engine.core.mixer.busesRun.load(ordering: .relaxed) >= 1)
      // The room's tail is well under 2 s; then the return bus stops running.
      #expect(waitUntil { engine.core.mixer.busesRun.load(ordering: .relaxed) == 0 })
      idleBuses = engine.core.mixer.busesRun.load(ordering: .relaxed)
      // No bus is counted as ringing any more, so the mix takes its idle path (read under the
      // audio lock: the count is the mixing thread's).
      #expect(engine.core.backend.withAudioLock { engine.core.mixer.ringingBuses } == 0)
      #expect(output.waitForMore(seconds: 0.1))
    }
    #expect(idleBuses == 0)
    let start = try #require(capture.left.audibleRange(threshold: 0)).lowerBound
    let dryEnd = start + burst.count
    let afterVoice = capture.left.rms(in: (dryEnd + 2_400)..<(dryEnd + 7_200))
    #expect(afterVoice > 0.001, "tail level \(afterVoice)")
    let last = capture.left.samples.lastIndex { $0 != 0 } ?? 0
    #expect(last > dryEnd + 4_800)
    #expect(last < capture.left.count - 2_400, "the output ends in exact zeros")
  }
}

extension ShapingOutputTests {
  @Test("a category's bus sends to the reverb: its voices ring on; another category's stop dead")
  func busSend() throws {
    let burst = makeFloatWAV(samples: whiteNoise(seconds: 0.1, seed: 5), sampleRate: 48_000, channels: 1)
    var dryEnd = 0
    let capture = try captureDiskOutput { engine, output in
      try engine.bus("hall").setReverbSend(1)
      var settings = SoundSettings()
      settings.category = "hall"
      let dry = engine.play(try engine.sound(data: burst))
      #expect(waitUntil { dry.isFinished })
      #expect(output.waitForMore(seconds: 0.3))
      dryEnd = output.framesWritten
      let wet = engine.play(try Sound(data: burst, engine: engine, settings: settings))
      #expect(waitUntil { wet.isFinished })
      #expect(waitUntil { !engine.isReverbRinging })
    }
    let segments = capture.left.segments(minimumGap: 2_400, threshold: 0)
    try #require(segments.count == 2, "\(segments)")
    // The plain burst stops with its samples; the one on the sending bus rings on.
    #expect(segments[0].count < 4_800 + 200 && segments[0].upperBound < dryEnd)
    #expect(segments[1].count > 4_800 + 9_600, "\(segments[1].count) frames")
  }
}

extension ShapingOutputTests {
  @Test("music at rate 1.5: its tone is heard a fifth up and its track ends in two thirds of the time")
  func musicRate() throws {
    let folder = temporaryFile("music-rate")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let track = folder.appendingPathComponent("tone.wav")
    try makeToneWAV(frequency: 400, duration: 0.9, amplitude: 0.4).write(to: track)
    var events: [MusicEvent] = []
    let capture = try captureDiskOutput { engine, _ in
      let music = engine.music
      music.observe { events.append($0) }
      music.setPlaybackRate(1.5)
      #expect(music.playbackRate == 1.5)
      music.play(Track(url: track))
      #expect(
        waitUntil {
          music.deliverEvents(); return events.contains(.finished)
        })
    }
    let range = try #require(capture.left.audibleRange())
    #expect(abs(Double(range.count) / 48_000 - 0.6) < 0.01, "\(Double(range.count) / 48_000) s")
    let inner = (range.lowerBound + 2_400)..<(range.upperBound - 2_400)
    #expect(abs(capture.left.frequency(in: inner) - 600) < 3)
  }
}

/// The transfer function in dB at `frequencies`, from the cross-spectrum of input and output over
/// Hann-windowed blocks of 4,800 samples (10 Hz bins), after skipping `skip` samples of both.
func transfer(from input: [Float], to output: [Float], skip: Int, at frequencies: [Double]) -> [Double] {
  let block = 4_800
  let count = min(input.count, output.count)
  return frequencies.map { frequency in
    var crossRe = 0.0
    var crossIm = 0.0
    var inputPower = 0.0
    var start = skip
    while start + block <= count {
      var (xr, xi, yr, yi) = (0.0, 0.0, 0.0, 0.0)
      for index in 0..<block {
        let window = 0.5 - 0.5 * cos(2 * .pi * Double(index) / Double(block))
        let phase = 2 * .pi * frequency * Double(index) / 48_000
        let (c, s) = (cos(phase), -sin(phase))
        let x = Double(input[start + index]) * window
        let y = Double(output[start + index]) * window
        xr += x * c
        xi += x * s
        yr += y * c
        yi += y * s
      }
      // Y·conj(X)
      crossRe += yr * xr + yi * xi
      crossIm += yi * xr - yr * xi
      inputPower += xr * xr + xi * xi
      start += block
    }
    let magnitude = (crossRe * crossRe + crossIm * crossIm).squareRoot() / inputPower
    return 20 * log10(magnitude)
  }
}
