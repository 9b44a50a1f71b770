import FoleyAudio
import FoleyMusic
import FoleySession
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// Loudness (BS.1770 / EBU R128, measured with libebur128) and normalisation to a bus's target,
/// checked on the disk driver's output by a BS.1770 meter written here (independent of
/// libebur128).
@MainActor
@Suite("Loudness", .serialized)
struct LoudnessTests {
  /// BS.1770-4 integrated loudness of interleaved stereo at 48 kHz: K-weighting, 400 ms blocks
  /// every 100 ms, the absolute (-70 LUFS) and relative (-10 LU) gates.
  static func integratedLoudness(left: [Float], right: [Float]) -> Double {
    func kWeighted(_ input: [Float]) -> [Double] {
      var output = [Double](repeating: 0, count: input.count)
      let stages: [([Double], [Double])] = [
        ([1.53512485958697, -2.69169618940638, 1.19839281085285], [-1.69065929318241, 0.73248077421585]),
        ([1.0, -2.0, 1.0], [-1.99004745483398, 0.99007225036621]),
      ]
      var signal = input.map(Double.init)
      for (b, a) in stages {
        var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
        for index in signal.indices {
          let x = signal[index]
          let y = b[0] * x + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
          (x2, x1, y2, y1) = (x1, x, y1, y)
          output[index] = y
        }
        signal = output
      }
      return signal
    }
    let (l, r) = (kWeighted(left), kWeighted(right))
    var blocks: [Double] = []
    var start = 0
    while start + 19_200 <= l.count {
      var sum = 0.0
      for index in start..<(start + 19_200) { sum += l[index] * l[index] + r[index] * r[index] }
      blocks.append(sum / 19_200)
      start += 4_800
    }
    let loudness = { (z: Double) in -0.691 + 10 * log10(z) }
    let absolute = blocks.filter { loudness($0) > -70 }
    guard !absolute.isEmpty else { return -.infinity }
    let relative = loudness(absolute.reduce(0, +) / Double(absolute.count)) - 10
    let gated = absolute.filter { loudness($0) > relative }
    return loudness(gated.reduce(0, +) / Double(gated.count))
  }

  static func noise(seconds: Double, amplitude: Float, seed: UInt64) -> Data {
    let mono = whiteNoise(seconds: seconds, seed: seed)
    var stereo = [Float](repeating: 0, count: mono.count * 2)
    for index in mono.indices {
      stereo[2 * index] = mono[index] * amplitude
      stereo[2 * index + 1] = mono[(index + 4_801) % mono.count] * amplitude
    }
    return makeFloatWAV(samples: stereo, sampleRate: 48_000, channels: 2)
  }

  @Test(
    "a 997 Hz sine at -6.02 dBFS in a mono file measures -9.03 LUFS (BS.1770's reference: -3.01 at full scale)"
  )
  func knownSine() throws {
    let audio = try EmbeddedAudio()
    let samples = (0..<96_000).map { Float(0.5 * sin(2 * Double.pi * 997 * Double($0) / 48_000)) }
    let sound = try audio.engine.sound(data: makeFloatWAV(samples: samples, sampleRate: 48_000, channels: 1))
    #expect(abs(sound.loudness.integrated - -9.03) < 0.05, "\(sound.loudness)")
    #expect(abs(sound.loudness.truePeak - -6.02) < 0.1)
    // A 0.1 s blip of the same sine, shorter than a gating block: its loudness over its length.
    let blip = try audio.engine.sound(
      data: makeFloatWAV(samples: Array(samples.prefix(4_800)), sampleRate: 48_000, channels: 1),
      name: "blip.wav")
    #expect(abs(blip.loudness.integrated - -9.03) < 0.3, "\(blip.loudness)")
    let silence = try audio.engine.sound(
      data: makeFloatWAV(samples: [Float](repeating: 0, count: 4_800), sampleRate: 48_000, channels: 1))
    #expect(silence.loudness.integrated == -.infinity && silence.loudness.gain(toReach: -20) == 0)
  }

  @Test(
    "a quiet sound normalised to -20 LUFS plays at -20 ± 0.5 LUFS, measured on the output by an independent meter"
  )
  func normalisedPlaysAtTarget() throws {
    var measuredInput = 0.0
    let capture = try captureDiskOutput { engine, _ in
      try engine.bus(.effects).setLoudnessTarget(-20)
      var settings = SoundSettings()
      settings.normalizesLoudness = true
      let sound = try Sound(
        data: Self.noise(seconds: 4, amplitude: 0.02, seed: 5), name: "quiet.wav", engine: engine,
        settings: settings)
      measuredInput = sound.loudness.integrated
      let voice = engine.play(sound)
      #expect(waitUntil { voice.isFinished })
    }
    #expect(measuredInput < -30, "the file is quiet: \(measuredInput) LUFS")
    let range = try #require(capture.left.audibleRange(threshold: 0))
    let output = Self.integratedLoudness(
      left: Array(capture.left.samples[range]), right: Array(capture.right.samples[range]))
    #expect(abs(output - -20) <= 0.5, "played at \(output) LUFS")
  }

  @Test(
    "a loud sound asked to reach -3 LUFS is held at a true peak of -1 dBTP (the limiter untouched); without the switch it plays as it is"
  )
  func truePeakCeiling() throws {
    var levels: [Double] = []
    var reductions: [Double] = []
    for normalizes in [true, false] {
      let capture = try captureDiskOutput { engine, _ in
        try engine.bus(.effects).setLoudnessTarget(-3)
        var settings = SoundSettings()
        settings.normalizesLoudness = normalizes
        // White noise peaking at 0.8 (-1.9 dBFS): -3 LUFS would need its peaks well over 0 dBFS.
        let sound = try Sound(
          data: Self.noise(seconds: 2, amplitude: 1.6, seed: 9), name: "loud.wav", engine: engine,
          settings: settings)
        #expect(sound.loudness.gain(toReach: -3) < -3 - sound.loudness.integrated)
        let voice = engine.play(sound)
        #expect(waitUntil { voice.isFinished })
        reductions.append(engine.masterMeter.maximumGainReductionDecibels)
      }
      // The output's true peak (4× oversampled: white noise peaks well between its samples).
      var interleaved = [Float](repeating: 0, count: capture.left.count * 2)
      for index in 0..<capture.left.count {
        interleaved[2 * index] = capture.left.samples[index]
        interleaved[2 * index + 1] = capture.right.samples[index]
      }
      let peak = interleaved.withUnsafeBufferPointer {
        Loudness.measure($0.baseAddress!, frames: capture.left.count, channels: 2, sampleRate: 48_000)?
          .truePeak
      }
      levels.append(peak ?? 0)
    }
    // Normalised: raised only until its true peak is -1 dBTP, and not by the limiter, which did
    // nothing; plain: as it is, its true peak above 0 dBTP (the limiter's to catch).
    #expect(abs(levels[0] - -1) < 0.15, "normalised true peak \(levels[0]) dBTP")
    #expect(reductions[0] > -0.05, "the limiter turned it down by \(reductions[0]) dB")
    #expect(levels[1] > levels[0] + 1, "plain true peak \(levels[1]) dBTP")
    #expect(throws: AudioEffectError.self) { try EmbeddedAudio().engine.bus(.music).setLoudnessTarget(5) }
  }

  @Test("the sound map's normalize switch and a bus's loudnessLufs: the event plays at the bus's target")
  func soundMapNormalises() throws {
    let folder = try makeToneFolder([:])
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.noise(seconds: 3, amplitude: 0.02, seed: 3).write(to: folder.appendingPathComponent("hum.wav"))
    let capture = try captureDiskOutput { engine, _ in
      let json = """
        { "version": 1, "events": { "hum": { "play": "hum.wav", "category": "machines", "normalize": true } },
          "mix": { "buses": { "machines": { "loudnessLufs": -24 } } } }
        """
      let map = try SoundMap(json: Data(json.utf8), relativeTo: folder, engine: engine, seed: 7)
      #expect(engine.bus(SoundCategory("machines")).loudnessTarget == -24)
      #expect(map.post("hum").count == 1)
      #expect(waitUntil { engine.statistics.started == 1 && engine.statistics.activeVoices == 0 })
    }
    let range = try #require(capture.left.audibleRange(threshold: 0))
    let output = Self.integratedLoudness(
      left: Array(capture.left.samples[range]), right: Array(capture.right.samples[range]))
    #expect(abs(output - -24) <= 0.5, "played at \(output) LUFS")
  }
}

extension LoudnessTests {
  @Test(
    "a quiet track with normalizesLoudness plays at the music bus's -16 LUFS target from its first block (disk driver)"
  )
  func musicNormalised() throws {
    let quiet = Self.noise(seconds: 4, amplitude: 0.02, seed: 12)
    let capture = try captureDiskOutput { engine, _ in
      try engine.bus(.music).setLoudnessTarget(-16)
      let music = engine.music
      music.normalizesLoudness = true
      music.play(Track(data: quiet, name: "quiet.wav"))
      #expect(waitUntil { music.nowPlaying?.loudness != nil && (music.currentTime ?? 0) > 3.5 })
      #expect((music.nowPlaying?.loudness?.integrated ?? 0) < -30)
    }
    let range = try #require(capture.left.audibleRange(threshold: 0))
    let heard = (range.lowerBound)..<(range.lowerBound + 48_000 * 3)
    let output = Self.integratedLoudness(
      left: Array(capture.left.samples[heard]), right: Array(capture.right.samples[heard]))
    #expect(abs(output - -16) <= 0.5, "played at \(output) LUFS")
    // From its first samples: the first 50 ms are as loud as the rest.
    let head = capture.left.rms(in: range.lowerBound..<(range.lowerBound + 2_400))
    let body = capture.left.rms(in: (range.lowerBound + 48_000)..<(range.lowerBound + 96_000))
    #expect(abs(20 * log10(head / body)) < 1, "the start is \(20 * log10(head / body)) dB off")
  }
}
