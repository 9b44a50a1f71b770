import FoleyAudio
import FoleyTestSupport
import Foundation
import Testing

/// The inspector's snapshot against what SDL's disk driver wrote: its meters, its voices'
/// positions, its loudness and its spectrum are the output's own figures.
@MainActor
@Suite("Inspector", .serialized)
struct InspectorTests {
  static func decibels(_ value: Double) -> Double { 20 * log10(value) }

  /// How far the disk file's frames lag the mix clock, found where the one voice's first audible
  /// frame landed against the frame it was heard on (its mix frame plus the look-ahead): none,
  /// as the clock counts the device's frames from its first.
  static func fileOffset(of capture: DiskCapture, firstHeardAt mixFrame: Int) throws -> Int {
    let first = try #require(capture.left.samples.firstIndex { $0 != 0 })
    let offset = first - mixFrame
    #expect(offset == 0, "the first sound is heard \(offset) frames from where the clock puts it")
    return offset
  }

  func sound(
    _ engine: AudioEngine, frequency: Double, seconds: Double, category: SoundCategory = "sfx"
  ) throws -> Sound {
    var settings = SoundSettings()
    settings.category = category
    return try Sound(
      data: makeToneWAV(frequency: frequency, duration: seconds, amplitude: 0.5),
      name: "tone-\(Int(frequency))",
      engine: engine, settings: settings)
  }

  @Test("A bus meter's peak and RMS per channel are the output's over the same frames")
  func metersMatchOutput() throws {
    var snapshot: AudioSnapshot?
    var start = 0
    var latency = 0
    let capture = try captureDiskOutput { engine, output in
      let tone = try sound(engine, frequency: 441, seconds: 4)
      _ = engine.inspector.snapshot()  // starts copying
      // Left at full level, right at half (linear balance law).
      let voice = engine.play(tone, pan: -0.5)
      #expect(waitUntil { voice.startFrame != nil })
      start = voice.startFrame?.index ?? 0
      latency = engine.outputLatency.lookAheadFrames
      #expect(output.waitForMore(seconds: 0.6))
      snapshot = engine.inspector.snapshot(window: 0.25)
      // The file lags the mix by the look-ahead: it must still take in the window's frames.
      #expect(output.waitForMore(seconds: 0.3))
    }
    let taken = try #require(snapshot)
    // The tone starts at a zero crossing: its first audible sample is its second.
    let offset = try Self.fileOffset(of: capture, firstHeardAt: start + 1 + latency)
    let range = (Int(taken.meterFrames.lowerBound) + offset)..<(Int(taken.meterFrames.upperBound) + offset)
    #expect(range.count == 12_000)
    // A capture that ended short fails here rather than trapping on the slice below (it trapped
    // once under ThreadSanitizer, taking the whole test run down).
    try #require(
      range.lowerBound >= 0 && range.upperBound <= capture.left.count, "\(range) of \(capture.left.count)")
    for (channel, signal) in [capture.left, capture.right].enumerated() {
      let peak = Double(signal.peak(in: range))
      let rms = signal.rms(in: range)
      #expect(peak > 0.2)
      for bus in ["master", "sfx"] {
        let meter = try #require(taken.buses.first { $0.name == bus })
        #expect(abs(meter.peakDecibels[channel] - Self.decibels(peak)) < 0.01, "\(bus) \(channel) peak")
        // Whole blocks are counted; a steady tone's RMS does not care.
        #expect(abs(meter.rmsDecibels[channel] - Self.decibels(rms)) < 0.05, "\(bus) \(channel) rms")
        #expect(meter.isActive)
      }
    }
    #expect(abs(taken.buses[0].peakDecibels[0] - taken.buses[0].peakDecibels[1] - 6.02) < 0.05)
    #expect(taken.buses.first { $0.name == "reverb" }?.isActive == false)
    #expect(taken.droppedBlocks == 0)
  }

  @Test("A voice's position is the frames of it heard by the snapshot's frame")
  func voicePositionMatchesOutput() throws {
    var snapshot: AudioSnapshot?
    var latency = 0
    var start = 0
    let capture = try captureDiskOutput { engine, output in
      let level = try sound(engine, frequency: 0, seconds: 3)
      #expect(output.waitForMore(frames: 4_800))
      let voice = engine.play(level)
      #expect(waitUntil { voice.startFrame != nil })
      start = voice.startFrame?.index ?? 0
      #expect(output.waitForMore(seconds: 0.5))
      snapshot = engine.inspector.snapshot()
      latency = engine.outputLatency.lookAheadFrames
      #expect(output.waitForMore(seconds: 0.3))  // the file lags the mix by the look-ahead
    }
    let taken = try #require(snapshot)
    let voice = try #require(taken.voices.first)
    #expect(taken.voices.count == 1)
    #expect(voice.state == .playing && voice.sound == "tone-0" && voice.bus == "sfx" && voice.passesLeft == 0)
    let position = try #require(voice.position)
    let offset = try Self.fileOffset(of: capture, firstHeardAt: start + latency)
    try #require(
      Int(taken.frame) + offset <= capture.left.count, "\(taken.frame) + \(offset) of \(capture.left.count)")
    let heard = capture.left.samples[0..<(Int(taken.frame) + offset)].count { $0 != 0 }
    // What the lane has read, less what the limiter's look-ahead still holds.
    #expect(Int((position * 48_000).rounded()) - latency == heard)
    #expect(heard > 20_000)
    let age = try #require(voice.age)
    #expect(abs(age - position) < 0.001)
  }

  @Test("Momentary loudness and the spectrum read a steady tone as libebur128 and a sine say")
  func loudnessAndSpectrum() throws {
    var snapshot: AudioSnapshot?
    _ = try captureDiskOutput { engine, output in
      let tone = try sound(engine, frequency: 997, seconds: 4)
      _ = engine.inspector.snapshot()
      engine.play(tone)
      #expect(output.waitForMore(seconds: 1))
      snapshot = engine.inspector.snapshot(spectrumOf: "sfx")
    }
    let taken = try #require(snapshot)
    // A 997 Hz sine at half scale in both channels: 0 LUFS at full scale, so -6.02 LUFS.
    let sfx = try #require(taken.buses.first { $0.name == "sfx" })
    let momentary = try #require(sfx.momentaryLoudness)
    #expect(abs(momentary - -6.02) < 0.3, "momentary \(momentary)")
    #expect(sfx.shortTermLoudness == nil)  // needs 3 s
    let spectrum = try #require(taken.spectrum)
    #expect(spectrum.bus == "sfx" && spectrum.levels.count == spectrum.frequencies.count)
    let loudest = try #require(spectrum.levels.indices.max { spectrum.levels[$0] < spectrum.levels[$1] })
    let band = spectrum.frequencies[loudest]
    #expect(band > 900 && band < 1_100, "loudest band at \(band) Hz")
    #expect(abs(spectrum.levels[loudest] - -6.02) < 1.5, "sine reads \(spectrum.levels[loudest]) dB")
    let far = spectrum.frequencies.indices.filter { spectrum.frequencies[$0] > 4_000 }
    #expect(far.allSatisfy { spectrum.levels[$0] < spectrum.levels[loudest] - 40 })
  }

  @Test("Voices show their state, buses their settings and effects")
  func statesAndEffects() throws {
    var snapshot: AudioSnapshot?
    _ = try captureDiskOutput { engine, output in
      let tone = try sound(engine, frequency: 441, seconds: 4)
      try engine.bus("sfx").setEffects([FilterEffect(.lowPass, frequency: 800)])
      engine.bus("sfx").volume = 0.5
      let heard = engine.play(tone, loops: -1)
      let unheard = engine.play(tone, volume: 0)
      let paused = engine.play(tone)
      paused.pause()
      #expect(waitUntil { heard.startFrame != nil && unheard.isVirtual && paused.state == .paused })
      #expect(output.waitForMore(seconds: 0.1))
      snapshot = engine.inspector.snapshot()
    }
    let taken = try #require(snapshot)
    let states = Dictionary(grouping: taken.voices, by: \.state).mapValues(\.count)
    #expect(states == [.playing: 1, .virtual: 1, .paused: 1])
    #expect(taken.voices.first { $0.state == .playing }?.passesLeft == -1)
    #expect(taken.voices.first { $0.state == .virtual }.map { $0.gainDecibels <= -200 } == true)
    let sfx = try #require(taken.buses.first { $0.name == "sfx" })
    #expect(sfx.volume == 0.5 && !sfx.isMuted)
    #expect(sfx.effects.map(\.kind) == ["filter:lowPass"])
    #expect(sfx.effects.first?.parameters["frequency"].map { abs($0 - 800) < 1 } == true)
    #expect(taken.census.virtual == 1 && taken.census.audible == 1)
    // It is all plain data: it round-trips through JSON.
    let json = try JSONEncoder().encode(taken)
    #expect(try JSONDecoder().decode(AudioSnapshot.self, from: json) == taken)
  }
}
