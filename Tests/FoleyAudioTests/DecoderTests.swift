import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// Every format Foley decodes, through each format's own library, and the typed errors for bytes
/// that are not a sound. Heard through the embedded mixer.
@MainActor
@Suite("Decoding")
struct DecoderTests {
  /// Frequency from the first to the last rising zero crossing in `samples`, each placed between
  /// its two samples by linear interpolation: precise to well under a part per million over
  /// seconds of a pure tone.
  static func preciseFrequency(_ samples: ArraySlice<Float>, sampleRate: Double) -> Double {
    var crossings: [Double] = []
    var index = samples.startIndex + 1
    while index < samples.endIndex {
      let (before, after) = (Double(samples[index - 1]), Double(samples[index]))
      if before < 0, after >= 0 { crossings.append(Double(index - 1) + before / (before - after)) }
      index += 1
    }
    guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) * sampleRate / (last - first)
  }

  @Test(
    "a sound decoded whole is resampled at exactly the right rate (a 1 kHz tone within 1 ppm)",
    arguments: [44_100, 22_050, 11_025, 32_000])
  func wholeSoundRateIsExact(rate: Int) throws {
    let audio = try EmbeddedAudio(limiter: false)
    let tone = makeToneWAV(frequency: 1_000, duration: 10, amplitude: 0.5, sampleRate: rate, channels: 1)
    let sound = try audio.engine.sound(data: tone, name: "tone-\(rate).wav")
    let voice = audio.engine.play(sound)
    #expect(audio.advance(until: { voice.isFinished }, limit: 12))
    let range = try #require(audio.left.audibleRange())
    let middle = audio.left[(range.lowerBound + 4_800)..<(range.upperBound - 4_800)]
    let heard = Self.preciseFrequency(middle, sampleRate: 48_000)
    let partsPerMillion = (heard / 1_000 - 1) * 1e6
    #expect(abs(partsPerMillion) < 1, "\(rate) Hz: heard \(heard) Hz, \(partsPerMillion) ppm")
  }

  @Test(
    "each format decodes to the tone it holds: 440 Hz, 0.25 s, at its level",
    arguments: [
      ("tone-s16.wav", "WAV", 1), ("tone-u8.wav", "WAV", 1), ("tone-s24.wav", "WAV", 1),
      ("tone-f32.wav", "WAV", 1),
      ("tone-ima-adpcm.wav", "WAV", 1), ("tone-ms-adpcm.wav", "WAV", 1), ("tone-ulaw.wav", "WAV", 1),
      ("tone-stereo-44k.wav", "WAV", 2), ("tone.aiff", "AIFF", 1), ("tone.ogg", "OGG Vorbis", 1),
      ("tone.flac", "FLAC", 1), ("tone.opus", "Opus", 1), ("tone.mp3", "MP3", 1),
    ])
  func decodes(file: String, format: String, channels: Int) throws {
    let audio = try EmbeddedAudio(limiter: false)
    let sound = try audio.engine.sound(data: Data(contentsOf: fixture(file)), name: file)
    #expect(sound.source.format == format)
    #expect(sound.source.channels == channels)
    // Gapless: encoder delay and padding are gone (ADPCM's last block may round up a little).
    #expect(
      abs(sound.duration - 0.25) < (file.contains("adpcm") ? 0.006 : 0.001), "duration \(sound.duration)")
    let voice = audio.engine.play(sound)
    #expect(audio.advance(until: { voice.isFinished }))
    let range = try #require(audio.left.audibleRange())
    #expect(range.lowerBound < 8, "the tone starts late: \(range)")  // no decoder or resampler delay
    let middle = (range.lowerBound + 1_200)..<(range.upperBound - 1_200)
    #expect(abs(audio.left.frequency(in: middle) - 440) < 2)
    #expect(abs(audio.left.peak(in: middle) - 0.5) < 0.03)
    #expect(audio.right.samples == audio.left.samples || channels == 2)  // mono plays in both ears
  }

  @Test("bad bytes throw a typed error naming the asset, with the decoder's reason")
  func badBytes() throws {
    let audio = try EmbeddedAudio()
    var header = makeToneWAV(frequency: 440, duration: 0.01)
    let silentHeader = makeWAV(samples: [], sampleRate: 48_000, channels: 1)
    // A WAV that declares 1 Hz: 8 KB of it would be 2 hours.
    header.replaceSubrange(24..<28, with: [1, 0, 0, 0])
    let cases: [(Data, SoundError.Code)] = [
      (Data(), .empty),
      (Data("not a sound at all, just text".utf8), .undecodable),
      (makeToneWAV(frequency: 440, duration: 0.1).prefix(30), .undecodable),
      (header, .undecodable),
      (silentHeader, .noSamples),
      (Data("MThd\0\0\0\u{6}\0\u{1}\0\u{1}\u{1}\u{e0}".utf8), .unsupportedFormat),
      (Data("Creative Voice File\u{1a}".utf8) + Data(count: 64), .unsupportedFormat),
    ]
    for (bytes, code) in cases {
      #expect {
        _ = try Sound(data: bytes, name: "bad.wav", engine: audio.engine)
      } throws: { error in
        guard let error = error as? SoundError else { return false }
        return error.code == code && error.asset == "bad.wav"
          && (code == .empty || code == .noSamples || !error.message.isEmpty)
      }
    }
  }

  @Test("a sound longer than maximumSoundDuration is refused before it is decoded")
  func tooLong() throws {
    var configuration = AudioConfiguration()
    configuration.maximumSoundDuration = 0.2
    let audio = try EmbeddedAudio(configuration: configuration)
    for file in ["tone-s16.wav", "tone.ogg", "tone.flac", "tone.mp3", "tone.opus"] {
      #expect {
        _ = try audio.engine.sound(data: Data(contentsOf: fixture(file)), name: file)
      } throws: { ($0 as? SoundError)?.code == .tooLong }
    }
  }

  @Test("a named sound stays inside the asset root: no absolute paths, no way out, no NUL, no empty name")
  func namesStayInsideTheRoot() throws {
    let root = temporaryFile("assets")
    let outside = temporaryFile("outside")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("sfx"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    defer {
      try? FileManager.default.removeItem(at: root)
      try? FileManager.default.removeItem(at: outside)
    }
    let tone = makeToneWAV(frequency: 440, duration: 0.05)
    try tone.write(to: root.appendingPathComponent("sfx/hit.wav"))
    try tone.write(to: outside.appendingPathComponent("secret.wav"))
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("sfx/link.wav"),
      withDestinationURL: outside.appendingPathComponent("secret.wav"))
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, assetRoots: [root])
    defer { engine.close() }
    #expect(try engine.sound(named: "sfx/hit.wav").duration > 0)
    #expect(try engine.sound(named: "sfx/../sfx/hit.wav").duration > 0)
    for name in [
      "", "/etc/passwd", outside.appendingPathComponent("secret.wav").path,
      "../\(outside.lastPathComponent)/secret.wav",
      "sfx/../../\(outside.lastPathComponent)/secret.wav", "sfx/link.wav", "sfx/hit.wav\0.png",
    ] {
      do {
        _ = try engine.sound(named: name)
        Issue.record("'\(name)' was loaded")
      } catch {
        #expect(error.code == .invalidName, "\(name): \(error)")
      }
    }
  }

  @Test("a named file that failed is tried again once it has changed (it may have appeared)")
  func missingFileRetried() throws {
    let root = temporaryFile("assets")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let engine = try AudioEngine(embedded: EmbeddedMixer(), assetRoots: [root])
    defer { engine.close() }
    #expect { try engine.sound(named: "late.wav") } throws: { ($0 as? SoundError)?.code == .unreadable }
    try makeToneWAV(frequency: 440, duration: 0.05).write(to: root.appendingPathComponent("late.wav"))
    #expect(try engine.sound(named: "late.wav").duration > 0)
  }

  @Test(
    "playSound(data:waitForCompletion:) knows its length from the header, before any engine decodes it",
    arguments: [
      "tone-s16.wav", "tone-u8.wav", "tone-f32.wav", "tone-ima-adpcm.wav", "tone-stereo-44k.wav", "tone.aiff",
      "tone.ogg",
      "tone.flac", "tone.opus", "tone.mp3",
    ])
  func durationFromHeader(file: String) throws {
    let action = Action.playSound(data: try Data(contentsOf: fixture(file)), waitForCompletion: true)
    #expect(
      abs(action.duration - 0.25) < (file.contains("adpcm") ? 0.006 : 0.002), "\(file): \(action.duration)")
    // Not waiting: instant.
    #expect(Action.playSound(data: try Data(contentsOf: fixture(file))).duration == 0)
    #expect(Action.playSound(data: Data("garbage".utf8), waitForCompletion: true).duration == 0)
  }

  @Test(
    "a decoder that crashes, hangs or eats memory is contained in its child process: the game goes on",
    arguments: [
      ("SEGV", SoundError.Code.decoderCrashed, 1.0), ("HANG", .decoderTimedOut, 1.0),
      // Eating memory until the service's limit stops it takes longer to end than a crash: under
      // ThreadSanitizer (whose allocator reports the exhaustion first) on a busy machine, more
      // than a second. The timeout is not what this case tests.
      ("HEAP", .decoderCrashed, 20.0),
    ])
  func decoderFaultsAreContained(fault: String, code: SoundError.Code, timeout: Double) throws {
    var configuration = AudioConfiguration()
    configuration.decodeTimeout = timeout
    let audio = try EmbeddedAudio(configuration: configuration)
    let bytes = Data("FOLEY-FAULT:\(fault)".utf8) + makeToneWAV(frequency: 440, duration: 0.1)
    withEnvironment(["FOLEY_DECODER_FAULTS": "1"]) {
      #expect {
        _ = try Sound(data: bytes, name: "broken.wav", engine: audio.engine)
      } throws: { ($0 as? SoundError)?.code == code && ($0 as? SoundError)?.asset == "broken.wav" }
      // The same bytes as an action: a counted failure, and the engine plays on.
      let scene = Scene()
      audio.engine.attach(to: scene)
      let node = Node()
      scene.addChild(node)
      node.run(.playSound(data: bytes + Data([1])))
      #expect(audio.advance(until: { audio.engine.statistics.failed == 1 }, stepping: scene))
    }
    let voice = audio.engine.play(try audio.engine.sound(data: makeToneWAV(frequency: 440, duration: 0.05)))
    #expect(audio.advance(until: { voice.isFinished }))
    #expect(audio.left.peak > 0.4)
  }
}
