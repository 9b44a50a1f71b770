import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Music on the embedded mixer: real decoders, real SDL converter, real rings and stream effects,
/// with time advanced by hand, so every sample position is exact and repeatable. (What SDL_mixer
/// itself does with streamed voices is checked on the disk driver in `MusicOutputTests`.)
@MainActor
@Suite("Music (embedded mixer)", .serialized)
struct MusicLogicTests {
  /// A float WAV whose every frame has its own value (both channels alike): `frames` frames from
  /// `start`, rising by `step`.
  static func ramp(
    from start: Float, frames: Int, step: Float = 1e-5, sampleRate: Int = 48_000
  ) -> (Data, [Float]) {
    makeRampWAV(from: start, frames: frames, step: step, sampleRate: sampleRate)
  }

  /// Records the player's events, delivering them as the mix advances.
  final class EventLog {
    var events: [MusicEvent] = []
    var finished: Bool { events.contains(.finished) }
    var titles: [String] {
      events.compactMap { if case .trackChanged(let now) = $0 { now.title } else { nil } }
    }
  }

  static func log(_ player: MusicPlayer) -> EventLog {
    let log = EventLog()
    player.observe { log.events.append($0) }
    return log
  }

  /// The first frame of `signal` equal to `value`.
  static func index(of value: Float, in signal: Signal) -> Int? {
    signal.samples.firstIndex(of: value)
  }

  @Test("a track is heard sample for sample, and the queue's next track follows without a gap")
  func gaplessQueue() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let (first, firstValues) = Self.ramp(from: 0.1, frames: 24_000)
    let (second, secondValues) = Self.ramp(from: -0.4, frames: 30_000)
    let music = audio.engine.music
    let log = Self.log(music)
    music.play([Track(data: first, name: "first.wav"), Track(data: second, name: "second.wav")])
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.finished
      }))
    #expect(log.titles == ["first.wav", "second.wav"])
    let start = try #require(Self.index(of: 0.1, in: audio.left))
    let heard = Array(audio.left.samples[start..<(start + 54_000)])
    #expect(heard == firstValues + secondValues)
    #expect(audio.left.samples[(start + 54_000)...].allSatisfy { $0 == 0 })
    #expect(music.underrunFrames == 0)
    #expect(audio.engine.statistics.activeVoices == 0)
  }

  @Test("a resampled track keeps its last milliseconds (the resampler is flushed at its end)")
  func resampledTailIsKept() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let music = audio.engine.music
    let log = Self.log(music)
    // 1 s of a DC level at 8 kHz and at 44.1 kHz, one after the other: 2 s at 48 kHz.
    let low = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5, sampleRate: 8_000, channels: 1)
    let cd = makeToneWAV(frequency: 0, duration: 1, amplitude: -0.5, sampleRate: 44_100, channels: 1)
    music.play([Track(data: low, name: "8k.wav"), Track(data: cd, name: "44k.wav")])
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.finished
      }))
    let positive = audio.left.samples.filter { $0 > 0.25 }.count
    let negative = audio.left.samples.filter { $0 < -0.25 }.count
    #expect(abs(positive - 48_000) <= 8, "8 kHz: \(positive) frames")
    #expect(abs(negative - 48_000) <= 8, "44.1 kHz: \(negative) frames")
  }

  @Test("seeking plays the track exactly from the new time, after a de-click fade")
  func seekIsExact() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let (bytes, values) = Self.ramp(from: 0.05, frames: 96_000)
    let music = audio.engine.music
    music.play(Track(data: bytes, name: "ramp.wav"))
    audio.advance(seconds: 0.3)
    music.seek(to: 1.25)
    audio.advance(seconds: 0.3)
    let target = values[60_000]
    let landed = try #require(Self.index(of: values[60_000 + 240], in: audio.left))
    // From the end of the 5 ms fade-in on, every sample is the track's own.
    #expect(Array(audio.left.samples[landed..<(landed + 4_800)]) == Array(values[60_240..<65_040]))
    // The fade-in leads up to it from the target time.
    let fadeStart = landed - 240
    #expect(audio.left[fadeStart] < target && audio.left[fadeStart] > 0)
    #expect(abs(music.currentTime! - (1.25 + Double(audio.frames - fadeStart) / 48_000)) < 0.001)
    #expect(music.underrunFrames == 0)
  }

  @Test("loop points: the loop region plays its passes seamlessly, then the rest of the track")
  func loopRegionPasses() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let (bytes, values) = Self.ramp(from: 0.2, frames: 48_000)
    let music = audio.engine.music
    let log = Self.log(music)
    music.play(Track(data: bytes, name: "loop.wav", loopCount: 2, loopRegion: 0.25..<0.75))
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.finished
      }))
    let expected = Array(values[0..<36_000] + values[12_000..<36_000] + values[12_000..<48_000])
    let start = try #require(Self.index(of: 0.2, in: audio.left))
    #expect(Array(audio.left.samples[start..<(start + expected.count)]) == expected)
    let passes = log.events.compactMap { if case .looped(_, let pass) = $0 { pass } else { nil } }
    #expect(passes == [1, 2])
    #expect(music.underrunFrames == 0)
  }

  @Test("focus lost pauses the music and it resumes where it was; unfocused starts wait paused")
  func focusPausesMusic() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let (bytes, values) = Self.ramp(from: 0.1, frames: 96_000)
    let music = audio.engine.music
    music.play(Track(data: bytes, name: "ramp.wav"))
    audio.advance(seconds: 0.2)
    let lastSample = try #require(audio.left.samples.last)
    let lastBefore = try #require(values.firstIndex(of: lastSample))
    audio.session.handle(.focusLost)
    audio.advance(seconds: 0.5)
    let silentFrom = audio.frames - 12_000
    #expect(audio.left.samples[silentFrom...].allSatisfy { $0 == 0 })
    let pausedTime = try #require(music.currentTime)
    audio.session.handle(.focusGained)
    audio.advance(seconds: 0.2)
    // The 5 ms ramp down was heard; the ramp up continues with the very next sample: nothing the
    // mixer played at zero gain while the pause took hold is lost.
    let resumed = try #require(audio.left.samples[silentFrom...].firstIndex { $0 != 0 })
    let steady = try #require(values.firstIndex(of: audio.left[resumed + 300]))
    #expect(steady - 300 - lastBefore == 240, "resumed at \(steady - 300), paused after \(lastBefore)")
    #expect(abs(pausedTime - Double(lastBefore + 240) / 48_000) < 1e-9)
    // (Gain 1 ramps to 0 in 240 steps: frames 1...239 after the last full one are heard faded,
    // the 240th is scaled to zero, so it was not heard, and the resume takes it up.)
    #expect(music.underrunFrames == 0)
  }

  @Test("music asked for while the window is unfocused starts when focus returns")
  func startWhileUnfocused() throws {
    let audio = try EmbeddedAudio(limiter: false)
    audio.session.handle(.focusLost)
    let (bytes, values) = Self.ramp(from: 0.1, frames: 48_000)
    let music = audio.engine.music
    music.play(Track(data: bytes, name: "ramp.wav"))
    audio.advance(seconds: 0.2)
    #expect(audio.left.peak == 0)
    #expect(audio.engine.voiceCensus().pausedBySession == 1)
    audio.session.handle(.focusGained)
    audio.advance(seconds: 0.2)
    // From its first sample, ramped in over 5 ms.
    let start = try #require(audio.left.samples.firstIndex { $0 != 0 })
    #expect(audio.left[start + 300] == values[300])
  }

  @Test("a lost device keeps the music where it was; the new device continues it")
  func deviceRestore() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let (bytes, values) = Self.ramp(from: 0.1, frames: 96_000)
    let music = audio.engine.music
    music.play(Track(data: bytes, name: "ramp.wav"))
    audio.advance(seconds: 0.3)
    let lastBefore = try #require(audio.left.samples.last)
    audio.mixer.isDeviceAvailable = false
    audio.engine.audioDeviceRemoved(deviceID: try #require(audio.engine.deviceID), isCapture: false)
    audio.advance(seconds: 0.2)
    audio.mixer.isDeviceAvailable = true
    audio.engine.audioDeviceAdded(index: 0, isCapture: false)
    let resumedAt = audio.frames
    audio.advance(seconds: 0.2)
    let index = try #require(values.firstIndex(of: lastBefore))
    // The session's pause for the lost device never reached the mix: the new device takes up the
    // next sample, ramping in over 5 ms.
    #expect(audio.left.samples[resumedAt + 300] == values[index + 1 + 300])
    #expect(music.underrunFrames == 0)
  }

  @Test("a bad track in the queue fails with a typed error and the next one plays")
  func badTrackIsSkipped() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let (good, _) = Self.ramp(from: 0.3, frames: 12_000)
    let music = audio.engine.music
    let log = Self.log(music)
    music.play([
      Track(data: Data("not audio at all, just text".utf8), name: "bad.ogg"),
      Track(url: URL(fileURLWithPath: "/nonexistent/missing.ogg")),
      Track(data: good, name: "good.wav"),
    ])
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.finished
      }))
    let failures = log.events.compactMap {
      if case .failed(let track, let error) = $0 { (track.name, error.code) } else { nil }
    }
    #expect(failures.map(\.0) == ["bad.ogg", "missing.ogg"])
    #expect(failures.map(\.1) == [.undecodable, .unreadable])
    #expect(log.titles == ["good.wav"])
    #expect(Self.index(of: 0.3, in: audio.left) != nil)
  }

  @Test("repeat, shuffle and skipping move through the queue as a player's do")
  func queueModes() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let tracks = (0..<3).map { index in
      Track(data: Self.ramp(from: 0.1 * Float(index + 1), frames: 4_800).0, name: "t\(index).wav")
    }
    let music = audio.engine.music
    let log = Self.log(music)
    music.repeatMode = .all
    music.play(tracks)
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.titles.count >= 7
      }))
    #expect(log.titles.prefix(7) == ["t0.wav", "t1.wav", "t2.wav", "t0.wav", "t1.wav", "t2.wav", "t0.wav"])
    // A mode applies to what is decoded from now on; half a second (five of these short tracks)
    // is already decoded.
    music.repeatMode = .one
    let before = log.titles.count
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.titles.count >= before + 9
      }))
    let repeated = Array(log.titles.suffix(3))
    #expect(Set(repeated).count == 1)
    music.skipToNext()
    audio.advance(seconds: 0.05)
    music.deliverEvents()
    #expect(music.nowPlaying?.title != repeated[0])
    let skippedTo = try #require(music.currentIndex)
    music.skipToPrevious()
    audio.advance(seconds: 0.05)
    #expect(music.currentIndex == (skippedTo + 2) % 3)
    music.repeatMode = .off
    music.isShuffled = true
    music.deliverEvents()
    log.events.removeAll()
    music.play(tracks)
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.finished
      }))
    #expect(log.titles.first == "t0.wav")  // the track asked for comes first
    #expect(Set(log.titles) == ["t0.wav", "t1.wav", "t2.wav"] && log.titles.count == 3)
    #expect(music.underrunFrames == 0)
  }

  @Test("stop with a fade ends the music on a cosine; pause holds it; nowPlaying reads the tags")
  func stopPauseAndNowPlaying() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let music = audio.engine.music
    let log = Self.log(music)
    music.play(Track(url: fixture("loop-chirp.ogg")))
    audio.advance(seconds: 0.1)
    let now = try #require(music.nowPlaying)
    #expect(now.format == "OGG Vorbis")
    #expect(abs(now.duration! - 1.5) < 0.001)
    #expect(now.loopRegion == 0.5..<1.2)
    music.pause()
    audio.advance(seconds: 0.1)
    let pausedAt = music.currentTime
    audio.advance(seconds: 0.2)
    #expect(music.currentTime == pausedAt)
    #expect(audio.left.samples.suffix(4_800).allSatisfy { $0 == 0 })
    music.resume()
    audio.advance(seconds: 0.1)
    music.stop(tween: 0.2)
    #expect(
      audio.advance(until: {
        music.deliverEvents(); return log.finished
      }))
    #expect(!music.isPlaying && music.nowPlaying == nil)
    #expect(audio.engine.statistics.activeVoices == 0)
  }

  @Test("a ten-minute track and ten minutes of loops stream in constant memory, without an underrun")
  func longStreamsStayBounded() throws {
    // 10 minutes at 8 kHz mono (9.6 MB of WAV): resampled to the mix's 48 kHz as it plays.
    let url = temporaryFile("ten-minutes.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    try makeToneWAV(frequency: 440, duration: 600, amplitude: 0.25, sampleRate: 8_000, channels: 1).write(
      to: url)
    let audio = try EmbeddedAudio(limiter: false)
    let music = audio.engine.music
    let log = Self.log(music)
    music.play(Track(url: url))
    var footprints: [Int] = []
    var lastSecond: [Float] = []
    for second in 0..<601 {
      audio.mixer.advance(seconds: 1)
      lastSecond = audio.mixer.takeOutput()
      if second % 60 == 0 {
        music.deliverEvents()
        let footprint = music.footprint
        footprints.append(footprint.ringBytes + footprint.segments)
        #expect(footprint.segments <= 2)
      }
      if second == 599 {
        let tone = Signal(interleaved: lastSecond, channel: 0)
        #expect(abs(tone.frequency(in: 0..<48_000) - 440) < 1)
        #expect(
          abs(tone.rms(in: 0..<48_000) - 0.25 / 2.squareRoot()) < 0.002, "rms \(tone.rms(in: 0..<48_000))")
      }
    }
    music.deliverEvents()
    #expect(log.finished && !music.isPlaying)
    #expect(Set(footprints.dropFirst().dropLast()).count == 1, "\(footprints)")
    #expect(music.underrunFrames == 0)

    // Ten minutes of a 0.5 s loop region: 1,200 loop events, delivered as they come.
    let (loop, _) = Self.ramp(from: 0.1, frames: 48_000)
    music.play(Track(data: loop, name: "loop.wav", loopCount: -1, loopRegion: 0.25..<0.75))
    var loops = 0
    var failures: [String] = []
    music.observe { event in
      switch event {
      case .looped: loops += 1
      case .failed(_, let error): failures.append("\(error)")
      default: break
      }
    }
    for _ in 0..<600 {
      audio.mixer.advance(seconds: 1)
      _ = audio.mixer.takeOutput()
      music.deliverEvents()
      #expect(music.footprint.segments <= 3)
    }
    #expect(loops >= 1_198 && loops <= 1_200, "\(loops) loops, failures \(failures)")
    #expect(failures.isEmpty)
    #expect(music.underrunFrames == 0)
  }

  @Test("music actions play, crossfade and stop the attached engine's music; the scene delivers its events")
  func musicActions() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let music = audio.engine.music
    let log = Self.log(music)
    let first = Track(data: makeToneWAV(frequency: 440, duration: 2), name: "first.wav")
    let second = Track(data: makeToneWAV(frequency: 660, duration: 2), name: "second.wav")
    scene.run(
      .sequence([
        .wait(forDuration: 0.1), .playMusic(first), .wait(forDuration: 0.3),
        .playMusic(second, tween: 0.2),
        .wait(forDuration: 0.5), .stopMusic(tween: 0.1),
      ]))
    audio.advance(seconds: 0.25, stepping: scene)
    #expect(music.nowPlaying?.title == "first.wav")
    audio.advance(seconds: 0.35, stepping: scene)
    #expect(music.nowPlaying?.title == "second.wav")
    #expect(audio.advance(until: { log.finished }, stepping: scene))  // delivered by the scene's updates
    #expect(log.titles == ["first.wav", "second.wav"])
    #expect(audio.engine.statistics.activeVoices == 0)
    // The crossfade: both tones at once for most of its 200 ms (50 ms windows).
    let signal = audio.left
    let both = stride(from: 0, to: signal.count - 2_400, by: 2_400).filter { start in
      let range = start..<(start + 2_400)
      return signal.power(atFrequency: 440, in: range) > 0.001
        && signal.power(atFrequency: 660, in: range) > 0.001
    }
    #expect((2...4).contains(both.count), "\(both.count) windows with both tones")
  }

  @Test("with a ducking policy, focus lost lowers the music by its decibels instead of pausing it")
  func duckingMusic() throws {
    let audio = try EmbeddedAudio(limiter: false)
    audio.engine.bus(.music).sessionPolicy = .duck(decibels: -12)
    let (bytes, values) = Self.ramp(from: 0.1, frames: 96_000, step: 1e-6)
    let music = audio.engine.music
    music.play(Track(data: bytes, name: "ramp.wav"))
    audio.advance(seconds: 0.2)
    let lastSample = try #require(audio.left.samples.last)
    let before = try #require(values.firstIndex(of: lastSample))
    audio.session.handle(.focusLost)
    audio.advance(seconds: 0.2)
    // Still moving through the track, 12 dB down, sample for sample.
    let gain = Float(pow(10, -12.0 / 20))
    let last = try #require(audio.left.samples.last)
    let expected = values[before + 9_600]
    #expect(abs(last - expected * gain) < 1e-5, "\(last) vs \(expected * gain)")
    #expect(audio.engine.voiceCensus().ducked == 1)
  }

  @Test("music voices are never stolen and do not count against the voice cap")
  func musicIsNeverStolen() throws {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 4
    let audio = try EmbeddedAudio(configuration: configuration, limiter: false)
    let music = audio.engine.music
    music.play(Track(data: makeToneWAV(frequency: 440, duration: 2), name: "music.wav"))
    audio.advance(seconds: 0.1)
    let hit = try audio.engine.sound(data: makeToneWAV(frequency: 880, duration: 1))
    for _ in 0..<10 { audio.engine.play(hit) }
    audio.advance(seconds: 0.1)
    #expect(audio.engine.statistics.stolen == 6)
    #expect(audio.engine.voiceCensus().audible == 5)  // four effects and the music
    #expect(music.isPlaying && music.nowPlaying?.title == "music.wav")
    #expect(audio.left.power(atFrequency: 440, in: (audio.frames - 2_400)..<audio.frames) > 0.1)
  }

  @Test("checked tracks' bytes are kept within their byte budget: the least recently asked-for go first")
  func checkedBytesAreBudgeted() throws {
    // Three tracks of 38,444 bytes each (0.1 s of float stereo) and room for two.
    let tracks = (0..<3).map { index in
      Track(data: Self.ramp(from: Float(index) * 0.1, frames: 4_800).0, name: "track-\(index)")
    }
    let size = Self.ramp(from: 0, frames: 4_800).0.count
    let checker = TrackChecker(isolated: false, timeout: 5, rememberedBytes: 2 * size + size / 2)
    for track in tracks {
      guard case .passed = checker.check(track, at: nil) else {
        Issue.record("\(track.name) did not pass")
        return
      }
    }
    #expect(!checker.remembers(tracks[0], at: nil))
    #expect(checker.remembers(tracks[1], at: nil) && checker.remembers(tracks[2], at: nil))
    // Asked for again, the first is checked again and the least recently asked-for now goes.
    _ = checker.check(tracks[0], at: nil)
    #expect(checker.remembers(tracks[0], at: nil) && checker.remembers(tracks[2], at: nil))
    #expect(!checker.remembers(tracks[1], at: nil))
  }
}

extension MusicLogicTests {
  @Test(
    "a queue's crossfade lasts its whole length when the filler is serviced late (every 0.2 s), starting on its frame"
  )
  func crossfadeKeepsLengthWhenServicedLate() throws {
    // Buffers of 0.2 s: the filler looks at the stream only every 9,600 frames, so a hand-over
    // decided when it looks would start the fade up to 0.2 s late and shorten it.
    let audio = try EmbeddedAudio(limiter: false, bufferFrames: 9_600)
    let frames = 139_000  // the fade's frame falls inside a buffer
    let first = makeFloatWAV(
      samples: [Float](repeating: 0.2, count: frames * 2), sampleRate: 48_000, channels: 2)
    let second = makeFloatWAV(
      samples: [Float](repeating: 0.4, count: frames * 2), sampleRate: 48_000, channels: 2)
    let music = audio.engine.music
    music.crossfadeDuration = 1
    let log = Self.log(music)
    music.play([Track(data: first, name: "first.wav"), Track(data: second, name: "second.wav")])
    for _ in 0..<100 where !log.finished {
      audio.advance(frames: 9_600)
      music.deliverEvents()
    }
    #expect(log.finished)
    #expect(log.titles == ["first.wav", "second.wav"])
    let samples = audio.left.samples
    let start = try #require(samples.firstIndex { $0 != 0 })
    // The first track alone, exactly, until one second before its end.
    let fadeStart = try #require(samples[start...].firstIndex { $0 != 0.2 })
    #expect(
      fadeStart - start == frames - 48_000,
      "the fade began \(fadeStart - start - (frames - 48_000)) frames off")
    // The first track's last sample is heard as it ends; then the second alone.
    let end = try #require(samples.lastIndex { $0 != 0 })
    #expect(end + 1 - start == 2 * frames - 48_000, "heard for \(end + 1 - start) frames")
    #expect(samples[(start + frames + 10)...end].allSatisfy { abs($0 - 0.4) < 1e-6 })
    #expect(music.underrunFrames == 0)
  }
}

extension MusicLogicTests {
  @Test("a track that is not there, with no observer of the music's events, is logged at error level by name")
  func missingTrackIsLogged() throws {
    let log = CapturedLog()
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession(), logger: log.logger)
    defer { engine.close() }
    let music = engine.music
    music.play(Track(named: "Music/not-there.ogg"))
    func logged() -> [String] { log.lines.filter { $0.level >= .error }.map(\.message) }
    for _ in 0..<20 where !logged().contains(where: { $0.contains("not-there.ogg") }) {
      engine.waitUntilIdle()
      mixer.advance(seconds: 0.05)
      music.deliverEvents()
    }
    #expect(logged().contains { $0.contains("not-there.ogg") && $0.contains("music") }, "logged: \(logged())")
    #expect(music.nowPlaying == nil)
    // With an observer, the failure is its to report: the log stays quiet about it.
    let observed = CapturedLog()
    let engine2 = try AudioEngine(embedded: EmbeddedMixer(), session: AudioSession(), logger: observed.logger)
    defer { engine2.close() }
    let events = Self.log(engine2.music)
    engine2.music.play(Track(named: "Music/not-there.ogg"))
    for _ in 0..<20 where !events.events.contains(where: { if case .failed = $0 { true } else { false } }) {
      engine2.waitUntilIdle()
      engine2.music.deliverEvents()
    }
    #expect(events.events.contains { if case .failed = $0 { true } else { false } })
    #expect(!observed.lines.contains { $0.message.contains("not-there.ogg") })
  }

}
