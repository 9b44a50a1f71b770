import CFoleyAllocCounter
import Foley
import FoleyAudio
import FoleyAudioTesting
import Foundation
import Logging

/// The mix after the bus rework: 256 looping voices (process CPU, as a share of a core), the cost
/// of shaping 64 voices (a closed low-pass and a reverb send each, a sidechain compressor on their
/// bus, and then a rate other than 1; the master's night range mode; each voice's volume under a
/// tween; each voice's volume under a tween, an LFO and a game parameter's curve, with two mix
/// snapshots blending on their bus) against the same 64 plain in
/// the same run, the resampler's aliasing, and allocations inside the voice mixer's
/// render on SDL's audio thread while all of that plays.
@MainActor
enum ShapingBenchmarks {
  enum Shaping { case none, filterAndSend, filterSendAndRate, nightRange, volumeTween, grammar }

  /// Process CPU seconds over `seconds` with `voices` looping voices.
  static func mix(
    _ sound: Data, voices: Int, shaping: Shaping, seconds: Double, wideVectors: Bool = true, logger: Logger
  ) throws -> Double {
    var configuration = TriggerBenchmarks.configuration(channels: voices)
    configuration.allowsWideVectors = wideVectors
    let engine = try AudioEngine(configuration: configuration, session: AudioSession(), logger: logger)
    defer { engine.close() }
    if shaping == .filterAndSend || shaping == .filterSendAndRate {
      // The bus the voices sum into is compressed, keyed by another (silent) bus: the compressor's
      // cost is in the figure even when it has nothing to duck against.
      try engine.bus(.effects).setEffects([CompressorEffect(threshold: -30, ratio: 4, sidechain: .speech)])
    }
    if shaping == .nightRange { engine.dynamicRange = .night }
    if shaping == .grammar {
      // A parameter every voice follows and two snapshots on their bus, all moving through the
      // measurement: minute-long tweens of the parameter and of both intensities.
      try engine.defineParameter("speed", range: 0...1, default: 0)
      try engine.defineSnapshot(
        MixSnapshot("dim", buses: [.effects: .init(volumeDecibels: -6, lowPass: 2_000)]))
      try engine.defineSnapshot(
        MixSnapshot("duck", buses: [.effects: .init(volumeDecibels: -3)], mode: .blend, priority: 1))
      try engine.setParameter("speed", to: 1, tween: Tween(duration: 60))
      try engine.applySnapshot("dim", tween: Tween(duration: 60))
      try engine.applySnapshot("duck", intensity: 0.7, tween: Tween(duration: 60, easing: .smoothstep))
    }
    let decoded = try engine.sound(data: sound)
    for index in 0..<voices {
      let voice = engine.play(decoded, volume: 0.5, pan: MixBenchmarks.pan(index), loops: -1)
      switch shaping {
      case .none, .nightRange: break
      case .volumeTween:
        // A minute-long tween: every block of the measurement moves every voice's level.
        voice.setVolume(0.1, tween: Tween(duration: 60, easing: .smoothstep))
      case .grammar:
        voice.setVolume(0.1, tween: Tween(duration: 60, easing: .smoothstep))
        try voice.setModulators([
          .parameter(
            "speed", curve: try ParameterCurve([(0, -20), (0.5, -6), (1, 0)], interpolation: .smooth)),
          .lfo(.sine, rateHz: 4, depthDecibels: 6),
          // An envelope still in its decay through the measurement, and a follower of the bus
          // the voices sum into (its level from the block before).
          .envelope(attack: 0.05, decay: 60, sustainDecibels: -6, release: 1),
          .follower(of: .effects, curve: try ParameterCurve([(-60, 0), (0, -3)])),
        ])
      case .filterAndSend:
        voice.setLowPassCutoff(1_000)
        voice.setReverbSend(0.3)
      case .filterSendAndRate:
        voice.setLowPassCutoff(1_000)
        voice.setReverbSend(0.3)
        voice.setPlaybackRate(1.25)
      }
    }
    engine.waitUntilIdle()
    Clocks.sleep(seconds: 0.5)  // past the first buffers and the shapers' set-up
    let before = Clocks.processCPUNanoseconds
    Clocks.sleep(seconds: seconds)
    return Double(Clocks.processCPUNanoseconds - before) / 1e9
  }

  /// The largest component other than the resampled tone, in dBFS: a 10 kHz sine at -6 dBFS
  /// played at rate 1.5 on the embedded mixer (so 15 kHz), 16,384 samples, Blackman-Harris window.
  static func aliasing() throws -> Double {
    let mixer = EmbeddedMixer()
    var configuration = AudioConfiguration()
    configuration.limiter = nil
    let engine = try AudioEngine(embedded: mixer, configuration: configuration, session: AudioSession())
    defer { engine.close() }
    let frames = 48_000
    var samples = [Float](repeating: 0, count: frames)
    for index in 0..<frames {
      samples[index] = 0.5 * Float(sin(2 * Double.pi * 10_000 * Double(index) / 48_000))
    }
    let tone = try engine.sound(
      data: samples.withUnsafeBytes {
        WAVFile.data(
          format: RecordingFormat(sampleRate: 48_000, channels: 1, sampleFormat: .float32), samples: $0)
      })
    engine.play(tone, rate: 1.5)
    mixer.advance(seconds: 0.5)
    let output = mixer.takeOutput()
    let count = 16_384
    let left = (0..<count).map { Double(output[2 * (4_096 + $0)]) }
    return Spectrum.largestSpur(in: left, around: 15_000, sampleRate: 48_000)
  }

  static func figures(_ long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let seconds = quick ? 3.0 : 8.0
    let allocationsBefore = foley_realtime_allocations()
    let plain256 = try mix(long, voices: 256, shaping: .none, seconds: seconds, logger: logger)
    // The same with Swift's own 128-bit vectors (the path on a CPU without AVX), for the
    // difference the AVX sum makes, in the same run.
    let portable256 = try mix(
      long, voices: 256, shaping: .none, seconds: seconds, wideVectors: false, logger: logger)
    // The plain 64 and the two per-block rows (a tween; the grammar) in interleaved rounds, the
    // least of each: a difference of a fraction of a percent is under the noise of one round.
    var plainRounds: [Double] = []
    var tweenRounds: [Double] = []
    var grammarRounds: [Double] = []
    for _ in 0..<(quick ? 1 : 3) {
      plainRounds.append(try mix(long, voices: 64, shaping: .none, seconds: seconds, logger: logger))
      tweenRounds.append(try mix(long, voices: 64, shaping: .volumeTween, seconds: seconds, logger: logger))
      grammarRounds.append(try mix(long, voices: 64, shaping: .grammar, seconds: seconds, logger: logger))
    }
    let plain64 = plainRounds.min() ?? 0
    let tweened64 = tweenRounds.min() ?? 0
    let grammar64 = grammarRounds.min() ?? 0
    let shaped64 = try mix(long, voices: 64, shaping: .filterAndSend, seconds: seconds, logger: logger)
    let pitched64 = try mix(long, voices: 64, shaping: .filterSendAndRate, seconds: seconds, logger: logger)
    let night64 = try mix(long, voices: 64, shaping: .nightRange, seconds: seconds, logger: logger)
    let allocations = foley_realtime_allocations()
    return [
      "mix_cpu_percent_256": plain256 / seconds * 100,
      "mix_cpu_percent_256_portable": VoiceMixer.hasWideVectors ? portable256 / seconds * 100 : NSNull(),
      "mix_cpu_percent_64": plain64 / seconds * 100,
      "effects_cpu_percent_64": (shaped64 - plain64) / seconds * 100,
      "effects_and_rate_cpu_percent_64": (pitched64 - plain64) / seconds * 100,
      "night_range_cpu_percent": (night64 - plain64) / seconds * 100,
      "tween_cpu_percent_64": (tweened64 - plain64) / seconds * 100,
      "grammar_cpu_percent_64": (grammar64 - plain64) / seconds * 100,
      "resampler_alias_dbfs": try aliasing(),
      // -1: the counter is compiled out (a sanitizer build).
      "audio_thread_allocations": allocations < 0 ? -1 : allocations - allocationsBefore,
      "process_allocations_seen": foley_total_allocations(),
      "shaping_seconds": seconds,
    ]
  }
}

/// A direct DFT, enough for one measurement of 16,384 samples.
enum Spectrum {
  /// The loudest bin outside the main lobe around `frequency`, in dB relative to a full-scale sine.
  static func largestSpur(in samples: [Double], around frequency: Double, sampleRate: Double) -> Double {
    let count = samples.count
    // Blackman-Harris (4 terms): sidelobes below -92 dB, main lobe ±4 bins.
    let window = (0..<count).map { index -> Double in
      let x = 2 * Double.pi * Double(index) / Double(count - 1)
      return 0.35875 - 0.48829 * cos(x) + 0.14128 * cos(2 * x) - 0.01168 * cos(3 * x)
    }
    let gain = window.reduce(0, +) / 2  // a full-scale sine's peak magnitude
    let weighted = zip(samples, window).map(*)
    let toneBin = Int((frequency / sampleRate * Double(count)).rounded())
    var loudest = 0.0
    // Every other bin from 20 Hz to 23 kHz, a cosine table walked by index.
    let table = (0..<count).map {
      (cos(2 * Double.pi * Double($0) / Double(count)), sin(2 * Double.pi * Double($0) / Double(count)))
    }
    for bin in Int(20 / sampleRate * Double(count))..<Int(23_000 / sampleRate * Double(count))
    where abs(bin - toneBin) > 6 {
      var re = 0.0
      var im = 0.0
      var phase = 0
      for index in 0..<count {
        re += weighted[index] * table[phase].0
        im -= weighted[index] * table[phase].1
        phase = (phase + bin) & (count - 1)
      }
      loudest = max(loudest, (re * re + im * im).squareRoot())
    }
    return 20 * log10(max(loudest / gain, 1e-12))
  }
}
