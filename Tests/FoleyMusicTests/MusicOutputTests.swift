internal import CFoleyCodecs
import FoleyAudio
import FoleyMusic
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Music through real SDL_mixer channels, read back from SDL's disk driver: crossfades, loop
/// seams and gapless changes of track, compared sample by sample with what the decoders give.
@MainActor
@Suite("Music output (disk driver)", .serialized)
struct MusicOutputTests {
  /// The whole track as Foley's decoder gives it, first channel, at the file's own rate.
  static func decoded(_ url: URL) throws -> [Float] {
    var info = foley_info()
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let source = try #require(foley_source_open_file(url.path, &info, &status, &message, message.count))
    defer { foley_source_close(source) }
    let channels = Int(info.channels)
    var buffer = [Float](repeating: 0, count: 4_096 * channels)
    var samples: [Float] = []
    while true {
      let got = Int(foley_source_read(source, &buffer, 4_096))
      guard got > 0 else { break }
      samples += stride(from: 0, to: got * channels, by: channels).map { buffer[$0] }
    }
    return samples
  }

  @Test(
    "a tween: Tween(duration: both tracks heard at once), summed power level within 1 dB, the old one gone after"
  )
  func crossfadeKeepsPowerLevel() throws {
    let amplitude = 0.4
    let low = makeToneWAV(frequency: 440, duration: 4, amplitude: amplitude)
    let high = makeToneWAV(frequency: 660, duration: 4, amplitude: amplitude)
    var fadeStartedAt = 0
    var heardUntil = 0
    let capture = try captureDiskOutput { engine, output in
      let music = engine.music
      music.play(Track(data: low, name: "low.wav"))
      #expect(waitUntil { (music.currentTime ?? 0) >= 1 })
      fadeStartedAt = output.framesWritten
      music.play(Track(data: high, name: "high.wav"), tween: 1)
      #expect(waitUntil { music.nowPlaying?.track.name == "high.wav" && (music.currentTime ?? 0) >= 1.6 })
      #expect(music.underrunFrames == 0)
      heardUntil = output.framesWritten
    }
    let signal = capture.left
    let window = 2_400  // 50 ms: whole cycles of both tones
    let reference = amplitude * amplitude / 2
    let windows = stride(from: max(0, fadeStartedAt - 24_000), to: signal.count - window, by: window).map {
      start -> (start: Int, low: Double, high: Double, total: Double) in
      let range = start..<(start + window)
      return (
        start, signal.power(atFrequency: 440, in: range), signal.power(atFrequency: 660, in: range),
        pow(signal.rms(in: range), 2)
      )
    }
    // The fade: the windows with both tones above 1% of full power. On sine and cosine curves
    // both are above 1% for the middle 87% of the fade (from asin(0.1) to acos(0.1)).
    let fading = windows.filter { $0.low > 0.01 * reference && $0.high > 0.01 * reference }
    let fadeSeconds = Double(fading.count * window) / 48_000
    #expect(abs(fadeSeconds - 0.87) <= 0.06, "both tones above 1% for \(fadeSeconds) s")
    // Both tones at once in the middle of it, about equally loud.
    let middle = try #require(fading.min { abs($0.low - $0.high) < abs($1.low - $1.high) })
    #expect(middle.low > 0.3 * reference && middle.high > 0.3 * reference)
    // Summed power stays within 1 dB of either track alone, all the way through.
    let fadeStart = try #require(windows.first { $0.high > 1e-4 * reference }).start
    for entry in windows where entry.start >= fadeStart && entry.start < fadeStart + 48_000 {
      let decibels = 10 * log10(entry.total / reference)
      #expect(abs(decibels) < 1, "at frame \(entry.start): \(decibels) dB")
    }
    // After the fade the outgoing tone is gone (below -60 dB). Only windows written before the
    // engine began to close count: one that holds the end of the sound holds the 660 Hz tone cut
    // short, whose spectrum spreads to 440 Hz (seen twice under ThreadSanitizer: 4e-5 of full power
    // at 440 Hz in a last window 98.5% full).
    let after = windows.filter {
      $0.start > fadeStart + 48_000 + window && $0.start + window <= heardUntil && $0.total > 0.5 * reference
    }
    #expect(after.count >= 8)
    for entry in after where entry.low >= 1e-6 * reference {
      // Say what the window and its neighbours held (shares of one tone's full power), to tell a
      // glitch from a track playing on.
      let around = windows.filter { abs($0.start - entry.start) <= 2 * window }.map {
        "frame \($0.start): 440 Hz \($0.low / reference), 660 Hz \($0.high / reference), all \($0.total / reference)"
      }
      Issue.record(
        "440 Hz still at frame \(entry.start) (fade from \(fadeStart)):\n\(around.joined(separator: "\n"))")
    }
  }

  @Test("a queued pair with crossfadeDuration: both tracks play, overlapping by the crossfade, power steady")
  func queuedPairCrossfades() throws {
    // Two 3 s tones queued with a 1 s crossfade sound for 3 + 3 - 1 = 5 s: the second starts
    // fading in 1 s before the first ends, both are heard mid-fade, and the summed power holds.
    let amplitude = 0.4
    let low = makeToneWAV(frequency: 440, duration: 3, amplitude: amplitude)
    let high = makeToneWAV(frequency: 660, duration: 3, amplitude: amplitude)
    var events: [MusicEvent] = []
    var finishedAt = 0
    let capture = try captureDiskOutput { engine, output in
      let music = engine.music
      music.crossfadeDuration = 1
      music.observe { events.append($0) }
      music.play([Track(data: low, name: "low.wav"), Track(data: high, name: "high.wav")])
      #expect(
        waitUntil(timeout: 60) {
          music.deliverEvents()
          return events.contains(.finished)
        })
      finishedAt = output.framesWritten
    }
    let started = events.compactMap { event -> String? in
      if case .trackChanged(let now) = event { return now.track.name }
      return nil
    }
    #expect(started == ["low.wav", "high.wav"], "tracks heard: \(started)")
    let signal = capture.left
    let window = 2_400  // 50 ms: whole cycles of both tones
    let reference = amplitude * amplitude / 2
    let windows = stride(from: 0, to: min(signal.count, finishedAt) - window, by: window).map {
      start -> (start: Int, low: Double, high: Double, total: Double) in
      let range = start..<(start + window)
      return (
        start, signal.power(atFrequency: 440, in: range), signal.power(atFrequency: 660, in: range),
        pow(signal.rms(in: range), 2)
      )
    }
    // Sound from the first window with the low tone to the last with the high one: 5 s.
    let first = try #require(windows.first { $0.low > 0.5 * reference })
    let last = try #require(windows.last { $0.high > 0.5 * reference })
    let heardSeconds = Double(last.start + window - first.start) / 48_000
    #expect(abs(heardSeconds - 5) <= 0.15, "heard for \(heardSeconds) s, not 3 + 3 - 1")
    // Both tones at once in the middle of the fade, each above a third of its full power.
    let both = windows.filter { $0.low > 0.3 * reference && $0.high > 0.3 * reference }
    #expect(!both.isEmpty, "no window holds both tracks")
    // The summed power within 1 dB of one tone alone from the first full window to the last.
    for entry in windows where entry.start > first.start && entry.start < last.start {
      let decibels = 10 * log10(entry.total / reference)
      #expect(abs(decibels) < 1, "at frame \(entry.start): \(decibels) dB")
    }
  }

  @Test("loop seams and changes of track are gapless and exact in WAV, FLAC, OGG Vorbis, Opus and MP3")
  func loopSeamsInEveryFormat() throws {
    // The same 1.5 s chirp in each format, its loop region 0.5 s ..< 1.2 s from the tags (FLAC,
    // Vorbis, Opus) or given (WAV, MP3), each played with one more pass of the loop, as a
    // gapless queue. Lossless formats must come out exact; lossy ones, after the seek back to
    // the loop start, within a sixth of their codec noise (0.006 to 0.015 on this chirp) of the
    // continuous decode, and at exactly the same sample positions.
    let formats: [(file: String, region: Range<Double>?, tolerance: Float)] = [
      ("loop-chirp.wav", 0.5..<1.2, 1e-6), ("loop-chirp.flac", nil, 1e-6), ("loop-chirp.ogg", nil, 1e-3),
      ("loop-chirp.opus", nil, 1e-3), ("loop-chirp.mp3", 0.5..<1.2, 1e-3),
    ]
    var expected: [Float] = []
    var seams: [(at: Int, what: String, tolerance: Float)] = []
    for format in formats {
      let source = try Self.decoded(fixture(format.file))
      try #require(source.count == 72_000, "\(format.file) decodes to \(source.count) frames")
      seams.append((expected.count, "start of \(format.file)", format.tolerance))
      expected += source[0..<57_600]
      seams.append((expected.count, "loop seam of \(format.file)", format.tolerance))
      expected += source[24_000..<72_000]
    }
    var events: [MusicEvent] = []
    let capture = try captureDiskOutput { engine, _ in
      let music = engine.music
      music.observe { events.append($0) }
      music.play(formats.map { Track(url: fixture($0.file), loopCount: 1, loopRegion: $0.region) })
      #expect(
        waitUntil(timeout: 60) {
          music.deliverEvents(); return events.contains(.finished)
        })
      #expect(music.underrunFrames == 0)
    }
    let failures = events.filter { if case .failed = $0 { true } else { false } }
    #expect(failures.isEmpty, "\(failures)")
    #expect(events.filter { if case .looped = $0 { true } else { false } }.count == formats.count)
    let signal = capture.left
    let firstAudible = try #require(signal.audibleRange(threshold: 0.001)).lowerBound
    let start = firstAudible + signal.alignment(of: expected[0..<2_400], at: firstAudible, within: 200).lag
    try #require(start + expected.count <= signal.count)
    for seam in seams.dropFirst() {
      // Around each seam the output matches the expected run at lag 0: not one sample missing,
      // repeated or inserted.
      let around = (seam.at - 1_200)..<(seam.at + 1_200)
      let (lag, error) = signal.alignment(of: expected[around], at: start + around.lowerBound, within: 64)
      #expect(lag == 0, "\(seam.what): off by \(lag) frames")
      #expect(error <= seam.tolerance, "\(seam.what): differs by \(error)")
    }
    // Nothing after the last sample.
    let after = (start + expected.count + 200)..<signal.count
    #expect(after.isEmpty || signal.peak(in: after) < 1e-4)
  }

  @Test(
    "seek on the device: after the 5 ms de-click fade the output is the track from the new time, in WAV, FLAC, OGG Vorbis, Opus and MP3",
    arguments: [
      ("loop-chirp.wav", Float(1e-6)), ("loop-chirp.flac", 1e-6), ("loop-chirp.ogg", 1e-3),
      ("loop-chirp.opus", 1e-3), ("loop-chirp.mp3", 1e-3),
    ])
  func seekInEveryFormat(file: String, tolerance: Float) throws {
    // The chirp (1.5 s at 48 kHz) plays from its start; once some of it has been heard, a seek to
    // 0.8 s. Lossless formats must come out exact after the fade; lossy ones within a sixth of
    // their codec noise of the continuous decode (the decoder has to converge after its seek).
    let source = try Self.decoded(fixture(file))
    try #require(source.count == 72_000, "\(file) decodes to \(source.count) frames")
    let target = 38_400
    var events: [MusicEvent] = []
    let capture = try captureDiskOutput { engine, _ in
      let music = engine.music
      music.observe { events.append($0) }
      music.play(Track(url: fixture(file)))
      #expect(waitUntil(timeout: 30) { (music.currentTime ?? 0) > 0.15 })
      music.seek(to: Double(target) / 48_000)
      #expect(
        waitUntil(timeout: 60) {
          music.deliverEvents(); return events.contains(.finished)
        })
      #expect(music.underrunFrames == 0)
    }
    let signal = capture.left
    let firstAudible = try #require(signal.audibleRange(threshold: 0.001)).lowerBound
    let start = firstAudible + signal.alignment(of: source[0..<2_400], at: firstAudible, within: 200).lag
    // Up to the seek the output is the track from its start; the first sample that differs is
    // where the seek began.
    let played = try #require(
      (start..<min(signal.count, start + target)).first { abs(signal[$0] - source[$0 - start]) > 0.01 })
    #expect(played - start > 4_800, "the seek came before anything was heard")
    #expect(played - start < target - 2_400, "the seek came too late to tell")
    // Well after the fade, find the new time in the output (the chirp matches only itself) …
    let probe = target + 600
    let (lag, error) = signal.alignment(of: source[probe..<(probe + 2_400)], at: played + 600, within: 1_200)
    #expect(error <= tolerance, "\(file): after the seek the output differs by \(error)")
    let landed = played + 600 + lag - 600  // where the output is at `target`
    // … then from the end of the 5 ms fade-in to the end of the track, every sample is the
    // track's own at that position: nothing skipped, repeated or inserted.
    let rest = (target + 240)..<72_000
    try #require(landed + 240 >= 0 && landed + 72_000 - target <= signal.count)
    let worst = rest.map { abs(signal[landed + $0 - target] - source[$0]) }.max() ?? 0
    #expect(worst <= tolerance, "\(file): from \(target + 240) on, the output differs by \(worst)")
    // The fade-in is linear from the new position: its j-th sample has gain (j + 1) / 240. That
    // pins the landing to the sample: a seek n frames off would read (j + 1 - n) / 240.
    let fade = (0..<240).filter { abs(source[target + $0]) > 0.1 }
    let offsets = fade.map { Double($0 + 1) - 240 * Double(signal[landed + $0] / source[target + $0]) }
    let offset = offsets.reduce(0, +) / Double(max(1, offsets.count))
    #expect(fade.count > 100 && abs(offset) < 0.5, "\(file): the seek landed \(offset) frames off \(target)")
  }

  @Test("focus lost pauses streamed music on the device; it resumes with the next unheard sample")
  func focusOnTheDevice() throws {
    let (bytes, values) = makeRampWAV(from: 0.05, frames: 192_000, step: 3e-6)
    let session = AudioSession()
    let capture = try captureDiskOutput(session: session) { engine, output in
      let music = engine.music
      music.play(Track(data: bytes, name: "ramp.wav"))
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.5 })
      session.handle(.focusLost)
      #expect(waitUntil { engine.voiceCensus().pausedBySession == 1 })
      #expect(output.waitForMore(seconds: 0.3))
      session.handle(.focusGained)
      #expect(waitUntil { (music.currentTime ?? 0) >= 1.5 })
      #expect(music.underrunFrames == 0)
    }
    let signal = capture.left
    let audible = signal.segments(minimumGap: 4_800, threshold: 1e-7)
    try #require(audible.count == 2, "\(audible)")
    // Where the first run was at full gain last, and where the second is at full gain first.
    let lastFull = try #require(values.firstIndex(of: signal[audible[0].upperBound - 300]))
    let firstFull = try #require(values.firstIndex(of: signal[audible[1].lowerBound + 300]))
    // `lastFull` is 60 frames before the last frame F at full gain. The ramp down is heard on
    // F+1 ... F+239 (gain 1 falls by 1/240 a frame, and the 240th frame is at 0), and the ramp up
    // starts with F+240, the first frame scaled to zero, and `firstFull` is 300 frames into it:
    // 60 + 240 + 300 = 600. Nothing the mixer played at zero gain while the pause took hold is
    // lost.
    #expect(firstFull - lastFull == 600, "resumed \(firstFull - lastFull - 600) frames off")
  }
}
