import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// The music's clock: tempo maps (logic), and sounds and stingers started on exact frames of the
/// output, read back from SDL's disk driver sample by sample.
@MainActor
@Suite("Music clock", .serialized)
struct MusicClockTests {
  // MARK: - Tempo maps

  @Test("120 bpm in 4/4: every beat of 100 bars on its frame at 48 kHz, bars and beats counted from 1")
  func steadyTempo() throws {
    let map = try TempoMap(bpm: 120, meter: .init(4, 4))
    for beat in 0..<400 {
      #expect(Int((map.seconds(ofBeat: beat) * 48_000).rounded()) == beat * 24_000)
      let (bar, inBar) = map.barAndBeat(ofBeat: beat)
      #expect(bar == beat / 4 + 1 && inBar == beat % 4 + 1)
    }
    #expect(map.musicalTime(at: 5.25).description == "3:3.50")
    #expect(map.next(.bar, atOrAfter: 2.01) == 4)
    #expect(map.next(.bar, atOrAfter: 4) == 4)
    #expect(map.next(.beat, atOrAfter: 4.2) == 4.5)
  }

  @Test("an offset, a pickup and a change to 3/4 at 90 bpm: bars move with the meter")
  func meterChange() throws {
    let map = try TempoMap(
      bpm: 120, meter: .init(4, 4), offset: 1, changes: [.init(bar: 3, bpm: 90, meter: .init(3, 4))],
      cues: ["drop": 7])
    // Pickup: half a second before the first downbeat is beat 4 of bar 0.
    #expect(map.musicalTime(at: 0.5).bar == 0 && map.musicalTime(at: 0.5).beat == 4)
    // Bars 1 and 2 take 2 s each; bar 3 starts at 5 s and has 3 beats of 2/3 s.
    #expect(map.next(.bar, atOrAfter: 3.1) == 5)
    #expect(abs(map.next(.bar, atOrAfter: 5.1)! - 7) < 1e-9)
    #expect(map.musicalTime(at: 6.4).bar == 3 && map.musicalTime(at: 6.4).beat == 3)
    #expect(map.next(.cue("drop"), atOrAfter: 2) == 7)
    #expect(map.next(.cue("drop"), atOrAfter: 7.5) == nil)
    // Bar 3 starts on beat 8 (two bars of four), bar 5 six beats (two bars of three) later.
    #expect([1, 2, 3, 4, 5].map(map.firstBeat(ofBar:)) == [0, 4, 8, 11, 14])
    #expect(map.seconds(ofBeat: map.firstBeat(ofBar: 4)) == 7)
    #expect(map.firstBeat(ofBar: 0) == -4 && map.firstBeat(ofBar: .max) > 0)
  }

  @Test(
    "a grid of 3 steps to the beat: the next step is a third of a beat on, across a change of tempo; one that rounds onto the time counts"
  )
  func gridSteps() throws {
    let map = try TempoMap(bpm: 120, changes: [.init(bar: 2, bpm: 60)], grid: 3)
    // Bar 1: beats of 0.5 s, steps of 1/6 s.
    #expect(abs(map.next(.grid, atOrAfter: 0.01)! - 1.0 / 6) < 1e-9)
    #expect(abs(map.next(.grid, atOrAfter: 0.2)! - 2.0 / 6) < 1e-9)
    #expect(abs(map.next(.grid, atOrAfter: 0.4)! - 0.5) < 1e-9)
    #expect(abs(map.next(.grid, atOrAfter: 1.0 / 6)! - 1.0 / 6) < 1e-9)
    // Bar 2 (from 2 s): beats of 1 s, steps of 1/3 s.
    #expect(abs(map.next(.grid, atOrAfter: 2.1)! - (2 + 1.0 / 3)) < 1e-9)
    #expect(abs(map.next(.grid, atOrAfter: 2.9)! - 3) < 1e-9)
    #expect(map.next(.grid, atOrAfter: .nan) == nil)
    #expect(try TempoMap(bpm: 120).grid == 4)
    #expect(throws: TempoMapError.badGrid(0)) { try TempoMap(bpm: 120, grid: 0) }
    #expect(throws: TempoMapError.badGrid(17)) { try TempoMap(bpm: 120, grid: 17) }
  }

  @Test("tempo maps out of range are refused with the value named")
  func badMaps() {
    #expect(throws: TempoMapError.badTempo(0)) { try TempoMap(bpm: 0) }
    #expect(throws: TempoMapError.self) { try TempoMap(bpm: .nan) }
    #expect(throws: TempoMapError.badMeter("0/4")) { try TempoMap(bpm: 100, meter: .init(0, 4)) }
    #expect(throws: TempoMapError.badOffset(-1)) { try TempoMap(bpm: 100, offset: -1) }
    #expect(throws: TempoMapError.badChangeBar(1)) {
      try TempoMap(bpm: 100, changes: [.init(bar: 1, bpm: 90)])
    }
    #expect(throws: TempoMapError.badCue("x")) { try TempoMap(bpm: 100, cues: ["x": -2]) }
    #expect(TempoMap.Meter("6/8") == .init(6, 8))
    #expect(TempoMap.Meter("7/5") == nil && TempoMap.Meter("x") == nil && TempoMap.Meter("99/4") == nil)
  }

  @Test("frame arithmetic saturates instead of trapping; seconds of any size become a bounded frame count")
  func frameArithmeticIsBounded() throws {
    #expect((AudioFrame(Int.max) + 1).index == Int.max)
    #expect((AudioFrame(5) - Int.max).index == 0)
    #expect((AudioFrame(5) + Int.min).index == 0)
    #expect((AudioFrame(5) - Int.min).index == Int.max)
    #expect((AudioFrame(10) + 5).index == 15 && (AudioFrame(10) - 15).index == 0)
    let engine = try AudioEngine(embedded: EmbeddedMixer(), session: AudioSession())
    defer { engine.close() }
    #expect(engine.frames(forSeconds: 1e308) == 1 << 62)
    #expect(engine.frames(forSeconds: -1e308) == -(1 << 62))
    #expect(engine.frames(forSeconds: .infinity) == 0 && engine.frames(forSeconds: .nan) == 0)
    #expect(engine.frames(forSeconds: 0.5) == 24_000)
  }

  // MARK: - Exact frames (disk driver)

  /// `count` frames of silence with single-sample clicks of 0.5 at `clicks`.
  static func clicks(at clicks: [Int], count: Int, rate: Int = 48_000) -> Data {
    var samples = [Float](repeating: 0, count: count)
    for click in clicks where click < count { samples[click] = 0.5 }
    return makeFloatWAV(samples: samples, sampleRate: rate, channels: 1)
  }

  /// A block of `frames` frames at 0.125.
  static let block = makeFloatWAV(
    samples: [Float](repeating: 0.125, count: 2_400), sampleRate: 48_000, channels: 1)

  @Test("a sound scheduled on a frame in the middle of a buffer starts on that frame, to the sample")
  func scheduledOneShot() throws {
    var planned: [Int] = []
    var latency = 0
    var buffer = 0
    var heard = 0
    let capture = try captureDiskOutput { engine, output in
      let block = try engine.sound(data: Self.block)
      latency = engine.outputLatency.lookAheadFrames
      buffer = engine.deviceFormat.bufferFrames
      #expect(output.waitForMore(frames: 4_800))
      // 0.2 s ahead, 333 frames into whatever buffer that is; a second one 1,001 frames later.
      let first = engine.audioFrame + 9_600 + 333
      planned = [first.index, first.index + 1_001]
      let voices = [
        engine.play(block, start: .frame(first)),
        engine.play(block, volume: 0.5, start: .frame(first + 1_001)),
      ]
      #expect(waitUntil { voices.allSatisfy(\.isFinished) })
      #expect(voices.map { $0.startFrame?.index } == planned)
      heard = engine.heardFrame(of: first).index
      #expect(engine.statistics.lateStarts == 0)
    }
    let left = capture.left.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    // The clock's frame 0 is the file's first frame (whatever SDL played before Foley's mix was
    // attached is counted): the voice is on its frame plus the limiter's look-ahead, exactly.
    #expect(start == heard, "heard at \(start), reported \(heard) (frame \(planned[0]) + \(latency))")
    #expect(heard == planned[0] + latency)
    #expect(planned[0] % buffer != 0, "the frame is inside a buffer")
    #expect(left[start] == 0.125 && left[start + 1_000] == 0.125)
    #expect(left[start + 1_001] == 0.1875, "the second joins on its own frame")
  }

  @Test("a play asked for on a frame already mixed starts at once, counted late, its start frame told")
  func lateOneShot() throws {
    _ = try captureDiskOutput { engine, output in
      let block = try engine.sound(data: Self.block)
      #expect(output.waitForMore(frames: 4_800))
      let asked = engine.audioFrame
      let voice = engine.play(block, start: .frame(100))
      #expect(waitUntil { voice.isFinished })
      #expect(engine.statistics.lateStarts == 1)
      #expect((voice.startFrame?.index ?? 0) >= asked.index)
    }
  }

  /// Plays `music` (clicks on its bar lines), asks for a stinger `askAfter` seconds in, and
  /// returns where the stinger and the music's clicks landed in the output.
  func stinger(
    music: Track, askAfter seconds: Double, expectedBarFrame: Int
  ) throws -> (stinger: Int, musicStart: Int) {
    let capture = try captureDiskOutput { engine, _ in
      let block = try engine.sound(data: Self.block)
      let player = engine.music
      player.play(music)
      #expect(waitUntil { (player.currentTime ?? 0) >= seconds })
      let voice = try player.playStinger(block, at: .nextBar)
      #expect(waitUntil { voice.isFinished })
      #expect(engine.statistics.lateStarts == 0)
    }
    let left = capture.left.samples
    let musicStart = try #require(left.firstIndex { $0 != 0 })
    let stinger = try #require(left.firstIndex { abs($0 - 0.125) < 1e-6 || abs($0 - 0.625) < 1e-6 })
    #expect(left[stinger - 1] == 0, "silence just before the bar line")
    #expect(left[stinger] == 0.625, "the stinger lands on the music's click")
    #expect(
      stinger - musicStart == expectedBarFrame, "off by \(stinger - musicStart - expectedBarFrame) frames")
    return (stinger, musicStart)
  }

  @Test("a stinger asked for inside a bar at 120 bpm in 4/4 starts exactly on the next bar line")
  func stingerOnNextBar() throws {
    var track = Track(data: Self.clicks(at: [0, 96_000, 192_000], count: 240_000), name: "bars.wav")
    track.tempo = try TempoMap(bpm: 120)
    _ = try stinger(music: track, askAfter: 0.7, expectedBarFrame: 96_000)
  }

  @Test("a stinger asked for in the last bar of a looping track lands on the loop seam")
  func stingerAcrossLoopSeam() throws {
    var track = Track(data: Self.clicks(at: [0, 96_000], count: 192_000), name: "loop.wav", loopCount: -1)
    track.tempo = try TempoMap(bpm: 120)
    _ = try stinger(music: track, askAfter: 2.6, expectedBarFrame: 192_000)
  }

  @Test("after a change to 3/4 the next bar is three beats on")
  func stingerAfterMeterChange() throws {
    // Bar 1: 4/4 at 120 (2 s); bar 2 on: 3/4 at 120 (1.5 s).
    var track = Track(data: Self.clicks(at: [0, 96_000, 168_000], count: 220_000), name: "meter.wav")
    track.tempo = try TempoMap(bpm: 120, changes: [.init(bar: 2, bpm: 120, meter: .init(3, 4))])
    _ = try stinger(music: track, askAfter: 2.2, expectedBarFrame: 168_000)
  }
}

extension MusicClockTests {
  @Test(
    "a cut on the next bar: the old track's last sample is just before the bar line, the new one's first on it"
  )
  func transitionCutsOnBar() throws {
    // The old track holds 0.25 throughout, the new one -0.25 with a click of 0.5 on its start.
    var old = Track(
      data: makeFloatWAV(samples: [Float](repeating: 0.25, count: 480_000), sampleRate: 48_000, channels: 1),
      name: "old.wav")
    old.tempo = try TempoMap(bpm: 120)
    var newSamples = [Float](repeating: -0.25, count: 240_000)
    newSamples[0] = 0.5
    let new = Track(data: makeFloatWAV(samples: newSamples, sampleRate: 48_000, channels: 1), name: "new.wav")
    let capture = try captureDiskOutput { engine, _ in
      let music = engine.music
      music.play(old)
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.5 })
      try music.transition(to: new, at: .nextBar)
      #expect(waitUntil { music.nowPlaying?.track.name == "new.wav" && (music.currentTime ?? 0) >= 0.3 })
      #expect(engine.statistics.lateStarts == 0)
    }
    let left = capture.left.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    let cut = try #require(left.firstIndex { $0 == 0.5 })
    #expect(cut - start == 96_000, "the new track starts \(cut - start - 96_000) frames off the bar line")
    #expect(left[cut - 1] == 0.25 && left[cut + 1] == -0.25, "a clean cut: old to the bar line, new from it")
  }

  @Test(
    "a next-bar crossfade of two noise tracks: summed power within 1 dB throughout, starting on the bar line")
  func transitionCrossfadesOnBar() throws {
    let first = whiteNoise(seconds: 6, seed: 3).map { $0 * 0.3 }
    let second = whiteNoise(seconds: 6, seed: 4).map { $0 * 0.3 }
    var old = Track(data: makeFloatWAV(samples: first, sampleRate: 48_000, channels: 1), name: "a.wav")
    old.tempo = try TempoMap(bpm: 120)
    let new = Track(data: makeFloatWAV(samples: second, sampleRate: 48_000, channels: 1), name: "b.wav")
    var planned = 0
    let capture = try captureDiskOutput { engine, _ in
      let music = engine.music
      music.play(old)
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.4 })
      planned = try #require(music.frame(of: .nextBar)).index
      try music.transition(to: new, at: .nextBar, tween: 1)
      #expect(waitUntil { music.nowPlaying?.track.name == "b.wav" && (music.currentTime ?? 0) >= 2.2 })
    }
    let signal = capture.left
    let start = try #require(signal.samples.firstIndex { $0 != 0 })
    let bar = start + 96_000
    // Before the bar line the output is the old track exactly; from it, no longer.
    #expect(signal.samples[bar - 1] == first[95_999])
    #expect(signal.samples[bar] != first[96_000])
    #expect(planned > 0)
    // Power in 50 ms windows from a second before the fade to a second after it.
    let reference = signal.rms(in: (bar - 48_000)..<bar)
    let windows = stride(from: bar - 48_000, to: bar + 96_000, by: 2_400).map {
      20 * log10(signal.rms(in: $0..<($0 + 2_400)) / reference)
    }
    #expect(windows.allSatisfy { abs($0) < 1 }, "power moved by \(windows.map { abs($0) }.max() ?? 0) dB")
  }
}

extension MusicClockTests {
  @Test("beat events are stamped with the frames their clicks are heard on (disk driver, 240 bpm, 3 s)")
  func beatEventsMatchOutput() throws {
    // A click on every beat at 240 bpm (12,000 frames apart), 0.5 on downbeats, 0.25 otherwise.
    var samples = [Float](repeating: 0, count: 144_000)
    for beat in 0..<12 { samples[beat * 12_000] = beat % 4 == 0 ? 0.5 : 0.25 }
    var track = Track(
      data: makeFloatWAV(samples: samples, sampleRate: 48_000, channels: 1), name: "clicks.wav")
    track.tempo = try TempoMap(bpm: 240)
    var beats: [MusicBeat] = []
    var lookAhead = -1
    let capture = try captureDiskOutput { engine, _ in
      lookAhead = engine.outputLatency.lookAheadFrames
      let music = engine.music
      music.observe { event in
        if case .beat(let beat) = event { beats.append(beat) }
      }
      music.play(track)
      #expect(
        waitUntil {
          engine.session.mailbox.drain();
          return music.nowPlaying == nil && music.currentTime == nil && beats.count >= 12
        })
    }
    let clicks = capture.left.samples.indices.filter { capture.left.samples[$0] != 0 }
    #expect(clicks.count == 12)
    #expect(beats.map(\.time.description) == (0..<12).map { "\($0 / 4 + 1):\($0 % 4 + 1).00" })
    #expect(beats.filter(\.isDownbeat).count == 3)
    // Each click is where the clock says it is heard: its beat's frame plus the look-ahead.
    let offsets = zip(clicks, beats).map { $0 - $1.frame.index }
    #expect(
      offsets.allSatisfy { $0 == lookAhead }, "click minus event frame: \(offsets), look-ahead \(lookAhead)")
  }

  @Test("100 bars at 280 bpm with a 0.1 s offset: every beat event on the tempo map's frame (embedded mixer)")
  func hundredBars() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let seconds = 0.1 + 400 * 60 / 280.0 + 0.5
    let samples = [Int16](repeating: 0, count: Int(seconds * 48_000))
    var track = Track(data: makeWAV(samples: samples, sampleRate: 48_000, channels: 1), name: "long.wav")
    track.tempo = try TempoMap(bpm: 280, offset: 0.1)
    var beats: [MusicBeat] = []
    let music = audio.engine.music
    music.observe { event in
      if case .beat(let beat) = event { beats.append(beat) }
    }
    music.play(track)
    #expect(
      audio.advance(
        until: {
          audio.session.mailbox.drain()
          return beats.count >= 400
        }, limit: seconds + 5))
    let start = try #require(beats.first).frame.index - Int((0.1 * 48_000).rounded())
    let expected = (0..<400).map { start + Int(((0.1 + Double($0) * 60 / 280) * 48_000).rounded()) }
    #expect(beats.prefix(400).map(\.frame.index) == expected)
    #expect(beats[399].time.bar == 100 && beats[399].time.beat == 4)
    // Asked for by number, past or to come, each beat and bar is on its event's frame.
    for index in [0, 1, 37, 399] {
      #expect(music.frame(ofBeat: index)?.index == expected[index], "beat \(index)")
    }
    #expect(music.frame(ofBar: 1)?.index == expected[0] && music.frame(ofBar: 100)?.index == expected[396])
    #expect(music.frame(ofBar: 101)?.index == start + Int(((0.1 + 400.0 * 60 / 280) * 48_000).rounded()))
  }
}

extension MusicClockTests {
  @Test("two identical stems started together sum to +6.02 dB, sample by sample: they are sample-aligned")
  func stemsAreSampleAligned() throws {
    let noise = whiteNoise(seconds: 3, seed: 11).map { $0 * 0.2 }
    let data = makeFloatWAV(samples: noise, sampleRate: 48_000, channels: 1)
    func run(_ play: (MusicPlayer) throws -> Void) throws -> [Float] {
      let capture = try captureDiskOutput(
        configuration: {
          var c = AudioConfiguration(); c.limiter = nil; return c
        }()
      ) { engine, _ in
        let music = engine.music
        try play(music)
        #expect(waitUntil { (music.currentTime ?? 0) >= 1.5 })
      }
      let left = capture.left.samples
      let start = try #require(left.firstIndex { $0 != 0 })
      return Array(left[start..<(start + 48_000)])
    }
    let single = try run { $0.play(Track(data: data, name: "one.wav")) }
    let pair = try run { music in
      try music.play(stems: [Track(data: data, name: "a.wav"), Track(data: data, name: "b.wav")])
      #expect(music.stemCount == 2)
    }
    let gain = 20 * log10(Signal(pair).rms(in: 0..<48_000) / Signal(single).rms(in: 0..<48_000))
    #expect(abs(gain - 6.0206) < 0.01, "the pair is \(gain) dB over one stem")
    #expect(zip(pair, single).allSatisfy { $0 == 2 * $1 }, "every sample is twice the single stem's")
  }

  @Test("a stem's level fades over the time asked, by frames of output (embedded mixer)")
  func stemLevelFades() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let ones = makeFloatWAV(samples: [Float](repeating: 0.5, count: 96_000), sampleRate: 48_000, channels: 1)
    let music = audio.engine.music
    try music.play(
      stems: [
        Track(data: ones, name: "a.wav", loopCount: -1), Track(data: ones, name: "b.wav", loopCount: -1),
      ], levels: [1, 0])
    #expect(audio.advance(until: { music.currentTime != nil && (music.currentTime ?? 0) > 0.2 }))
    let before = audio.left.samples.last ?? 0
    #expect(abs(before - 0.5) < 1e-6, "only the first stem: \(before)")
    music.setLevel(1, ofStem: 1, tween: 1)
    audio.advance(seconds: 0.5)
    audio.session.mailbox.drain()
    audio.advance(seconds: 0.02)
    let middle = audio.left.samples.last ?? 0
    #expect(middle > 0.7 && middle < 0.8, "halfway: \(middle)")
    for _ in 0..<40 {
      audio.advance(seconds: 0.02)
      audio.session.mailbox.drain()
    }
    #expect(abs((audio.left.samples.last ?? 0) - 1) < 1e-6)
    #expect(music.levels == [1, 1])
  }
}

extension MusicClockTests {
  @Test("a FLAC file's BPM tag gives it bars: a stinger lands on its second bar line")
  func tempoFromTag() throws {
    let capture = try captureDiskOutput { engine, _ in
      let block = try engine.sound(data: Self.block)
      let music = engine.music
      music.play(Track(url: fixture("bars-120bpm.flac")))
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.5 })
      #expect(music.nowPlaying?.tempo?.sections.first?.bpm == 120)
      #expect(music.musicalTime?.bar == 1)
      let voice = try music.playStinger(block, at: .nextBar)
      #expect(waitUntil { voice.isFinished })
    }
    let left = capture.left.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    let stinger = try #require(left.firstIndex { abs($0 - 0.125) < 1e-4 || abs($0 - 0.625) < 1e-4 })
    #expect(stinger - start == 96_000)
    #expect(abs(left[stinger] - 0.625) < 1e-4, "on the click of the second bar")
  }

  @Test("asking for a moment of music without beats, or with nothing playing, is a typed error")
  func timingErrors() throws {
    _ = try captureDiskOutput { engine, _ in
      let block = try engine.sound(data: Self.block)
      let music = engine.music
      #expect(throws: MusicTimingError.noMusic) { try music.playStinger(block, at: .nextBar) }
      music.play(Track(data: Self.clicks(at: [0], count: 96_000), name: "plain.wav"))
      #expect(waitUntil { (music.currentTime ?? 0) > 0.1 })
      #expect(throws: MusicTimingError.noTempo) { try music.playStinger(block, at: .nextBeat) }
      #expect(music.frame(of: .end) != nil, "a plain track still has an end")
      #expect(throws: MusicTimingError.noSuchCue("x", "other.wav")) {
        try music.transition(to: Track(data: Self.block, name: "other.wav"), at: .nextBar, entry: "x")
      }
    }
  }
}

extension MusicClockTests {
  @Test(
    "a prepared track transitions on the next beat at 240 bpm without missing it; prepare reports a bad track"
  )
  func preparedTransition() throws {
    var old = Track(data: Self.clicks(at: [0], count: 480_000), name: "old.wav")
    old.tempo = try TempoMap(bpm: 240)
    let new = Track(url: fixture("loop-chirp.ogg"))
    let bad = Track(data: Data("not audio".utf8), name: "bad.ogg")
    var failures: [String] = []
    _ = try captureDiskOutput { engine, _ in
      let music = engine.music
      music.prepare([new, bad]) { failed in failures = failed.map { $0.0.name } }
      #expect(
        waitUntil {
          engine.session.mailbox.drain()
          return failures == ["bad.ogg"]
        })
      #expect(music.isPrepared(new) && !music.isPrepared(bad))
      music.play(old)
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.3 })
      var moved: [MusicEvent] = []
      music.observe { if case .momentMoved = $0 { moved.append($0) } }
      try music.transition(to: new, at: .nextBeat)
      #expect(waitUntil { music.nowPlaying?.track == new })
      #expect(engine.statistics.lateStarts == 0 && moved.isEmpty)
    }
  }
}

extension MusicClockTests {
  @Test(
    "a start that reaches the mixer after its frame moves to the next moment its rule gives, on that sample")
  func lateStartMovesToNextMoment() throws {
    var started = 0
    var planned = 0
    var latency = 0
    let capture = try captureDiskOutput { engine, output in
      let block = try engine.sound(data: Self.block)
      latency = engine.outputLatency.lookAheadFrames
      #expect(output.waitForMore(frames: 4_800))
      // Frame 10 is long mixed: the rule moves it to the next multiple of 7,919 frames after
      // where the mix has reached.
      let voice = engine.play(
        block, volume: 1,
        schedule: ScheduledStart(frame: 10, whenLate: { reached in (reached / 7_919 + 2) * 7_919 }))
      #expect(waitUntil { voice.isFinished })
      started = voice.startFrame?.index ?? -1
      planned = started
      #expect(engine.statistics.lateStarts == 1)
    }
    #expect(started % 7_919 == 0 && started > 10)
    let left = capture.left.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    #expect(start - planned - latency == 0, "heard at \(start), started on \(planned) + \(latency)")
  }
}

extension MusicClockTests {
  @Test(
    "a 44.1 kHz track resampled to the 48 kHz device: the stinger lands on the resampled bar line's click")
  func stingerOnResampledTrack() throws {
    var samples = [Float](repeating: 0, count: 44_100 * 5)
    for bar in stride(from: 0, to: samples.count, by: 88_200) { samples[bar] = 0.5 }
    var track = Track(data: makeFloatWAV(samples: samples, sampleRate: 44_100, channels: 1), name: "44k.wav")
    track.tempo = try TempoMap(bpm: 120)
    let capture = try captureDiskOutput { engine, _ in
      // A stinger that is one sample of 0.125, then silence: the click's shape stays readable.
      var one = [Float](repeating: 0, count: 64)
      one[0] = 0.125
      let tick = try engine.sound(data: makeFloatWAV(samples: one, sampleRate: 48_000, channels: 1))
      let music = engine.music
      music.play(track)
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.6 })
      let voice = try music.playStinger(tick, at: .nextBar)
      #expect(waitUntil { voice.isFinished })
      #expect(waitUntil { (music.currentTime ?? 0) >= 4.3 })
    }
    let left = capture.left.samples
    // The music's clicks: the largest sample of each bar's neighbourhood.
    func peak(near index: Int) -> Int {
      (max(0, index - 200)..<min(left.count, index + 200)).max { abs(left[$0]) < abs(left[$1]) } ?? index
    }
    let first = peak(near: try #require(left.firstIndex { abs($0) > 0.05 }))
    let second = peak(near: first + 96_000)
    #expect(second - first == 96_000, "the resampled bars are \(second - first) frames apart")
    let third = peak(near: first + 192_000)
    #expect(third - first == 192_000, "the third bar is \(third - first - 192_000) frames off")
    // The stinger's one sample sits on the second click's peak frame: the same click shape as
    // the first bar's, plus 0.125 there and nowhere else.
    #expect(abs(left[second] - left[first] - 0.125) < 1e-5, "\(left[second]) against \(left[first])")
    #expect(abs(left[second + 1] - left[first + 1]) < 1e-5 && abs(left[second - 1] - left[third - 1]) < 1e-5)
  }
}

extension MusicClockTests {
  @Test(
    "through an interruption's pause the music's next beat is counted from the resume: asked at once after it, its frame is where its click is heard"
  )
  func nextBeatAfterResume() throws {
    // A click on every beat at 240 bpm (12,000 frames apart) for 6 s.
    var samples = [Float](repeating: 0, count: 288_000)
    for beat in 0..<24 { samples[beat * 12_000] = 0.5 }
    var track = Track(
      data: makeFloatWAV(samples: samples, sampleRate: 48_000, channels: 1), name: "clicks.wav")
    track.tempo = try TempoMap(bpm: 240)
    let session = AudioSession()
    var predicted: [Int] = []
    var resumedAt = 0
    var lookAhead = 0
    let capture = try captureDiskOutput(session: session) { engine, output in
      lookAhead = engine.outputLatency.lookAheadFrames
      let music = engine.music
      music.play(track)
      #expect(waitUntil { music.frame(of: .nextBeat) != nil })
      #expect(output.waitForMore(seconds: 1))
      session.beginInterruption()
      #expect(output.waitForMore(seconds: 0.55))
      // While paused, the next beat is where it would fall were the music resumed now.
      let during = try #require(music.frame(of: .nextBeat)).index
      #expect(during >= engine.audioFrame.index && during - engine.audioFrame.index <= 12_000)
      session.endInterruption(shouldResume: true)
      resumedAt = engine.audioFrame.index
      predicted = [
        try #require(music.frame(of: .nextBeat)).index, try #require(music.frame(of: .nextBar)).index,
      ]
      #expect(output.waitForMore(seconds: 1.5))
      music.stop()
    }
    let left = capture.left.samples
    let clicks = left.indices.filter { left[$0] != 0 && ($0 == 0 || left[$0 - 1] == 0) }
    // The clicks heard after the resume: the beat and bar asked for are among them, or, when the
    // beat falls in the resume's 10 ms fade-in and its one-sample click is faded out, the next
    // click is a beat after it.
    let after = clicks.filter { $0 >= resumedAt + lookAhead }
    let beat = predicted[0] + lookAhead
    let bar = predicted[1] + lookAhead
    #expect(
      beat >= resumedAt + lookAhead && (after.contains(beat) || after.first == beat + 12_000),
      "next beat at \(predicted[0]) + \(lookAhead), resumed at \(resumedAt); clicks \(after.prefix(6))")
    #expect(
      bar >= beat && (bar - beat) % 12_000 == 0 && (after.contains(bar) || bar == beat),
      "next bar at \(predicted[1]) + \(lookAhead); clicks \(after.prefix(6))")
  }
}
