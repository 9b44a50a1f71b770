import FoleyAudio
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
    let capture = try captureDiskOutput { engine, output in
      let block = try engine.sound(data: Self.block)
      latency = engine.masterMeter.latencyFrames
      buffer = engine.deviceFormat.bufferFrames
      #expect(output.waitForMore(frames: 4_800))
      // 0.2 s ahead, 333 frames into whatever buffer that is; a second one 1,001 frames later.
      let first = engine.audioFrame + 9_600 + 333
      planned = [first.index, first.index + 1_001]
      let voices = [engine.play(block, at: first), engine.play(block, at: first + 1_001, volume: 0.5)]
      #expect(waitUntil { voices.allSatisfy(\.isFinished) })
      #expect(voices.map { $0.startFrame?.index } == planned)
      #expect(engine.statistics.lateStarts == 0)
    }
    let left = capture.left.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    // The file also holds what SDL mixed before Foley's mix was attached: whole buffers of
    // silence. Past those, the voice is on its frame (plus the limiter's look-ahead).
    let lead = start - planned[0] - latency
    #expect(
      lead >= 0 && lead % buffer == 0, "\(lead) frames before frame 0 is not whole buffers of \(buffer)")
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
      let voice = engine.play(block, at: 100)
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
