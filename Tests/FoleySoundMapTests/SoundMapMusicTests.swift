import FoleyAudio
import FoleyMusic
import FoleySession
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// A sound map's `music` section: tracks with tempo maps, states that change on a musical moment,
/// stems brought in by a game parameter.
@MainActor
@Suite("Sound map music section", .serialized)
struct SoundMapMusicTests {
  @Test("a bad music section: every error with its JSON path, misspellings named, and nothing loads")
  func validation() throws {
    let audio = try EmbeddedAudio()
    let folder = try SoundMapTests.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = """
      { "version": 1, "events": { "x": { "play": "a.wav" } },
        "music": { "tracks": { "calm": { "file": "a.wav", "loop": -1, "tempo": { "bpm": 0, "metre": "4/4" } },
                               "both": { "file": "a.wav", "stems": ["b.wav"] },
                               "odd": { "file": "b.wav", "tempo": { "bpm": 120, "meter": "5/3", "changes": [{ "bar": 1.5 }],
                                                                   "cues": { "drop": -1 } } },
                               "gone": { "file": "missing.wav" },
                               "out": { "stems": ["../escape.wav"] } },
                   "states": { "explore": { "track": "clam" }, "fight": { "track": "odd", "at": "soon", "entry": "x" } } } }
      """
    let error = try #require(throws: SoundMapError.self) {
      try SoundMapTests.map(json, in: folder, engine: audio.engine)
    }
    let expected = [
      #"music.tracks["calm"].tempo.metre: unknown key (did you mean meter?)"#,
      #"music.tracks["calm"].tempo.bpm: 0 is outside 1...1000"#,
      #"music.tracks["both"]: needs "file" (a file name) or "stems" (1 to 16 file names), not both"#,
      #"music.tracks["odd"].tempo.meter: must be beats/note, as "4/4" or "6/8""#,
      #"music.tracks["odd"].tempo.changes[0].bar: must be a whole bar number from 2"#,
      #"music.tracks["odd"].tempo.cues["drop"]: -1 is outside 0...86400"#,
      #"music.states["explore"].track: no track "clam" in music.tracks (did you mean calm?)"#,
      #"music.states["fight"].at: must be now, grid, beat, bar, end or cue:NAME"#,
    ]
    for message in expected { #expect(error.errors.contains(message), "missing: \(message)\n\(error)") }
    // The files are checked once the structure is right.
    let files = try #require(throws: SoundMapError.self) {
      try SoundMapTests.map(
        """
        { "version": 1, "events": { "x": { "play": "a.wav" } },
          "music": { "tracks": { "gone": { "file": "missing.wav" }, "out": { "stems": ["../escape.wav"] } } } }
        """, in: folder, engine: audio.engine)
    }
    #expect(
      files.errors.contains { $0.hasPrefix(#"music.tracks["gone"]: file "missing.wav" not found in"#) },
      "\(files)")
    #expect(
      files.errors.contains { $0.hasPrefix(#"music.tracks["out"]: file "../escape.wav" is not inside"#) },
      "\(files)")
  }

  @Test("posting music.state moves to the state's track on the next bar line, to the sample (disk driver)")
  func stateChangesOnBar() throws {
    let folder = try SoundMapTests.folder([:])
    defer { try? FileManager.default.removeItem(at: folder) }
    try makeFloatWAV(samples: [Float](repeating: 0.25, count: 480_000), sampleRate: 48_000, channels: 1)
      .write(to: folder.appendingPathComponent("explore.wav"))
    var combat = [Float](repeating: -0.25, count: 240_000)
    combat[0] = 0.5
    try makeFloatWAV(samples: combat, sampleRate: 48_000, channels: 1).write(
      to: folder.appendingPathComponent("combat.wav"))
    var states: [String?] = []
    let capture = try captureDiskOutput { engine, _ in
      let map = try SoundMapTests.map(
        """
        { "version": 1, "events": {},
          "music": { "tracks": { "explore": { "file": "explore.wav", "tempo": { "bpm": 120, "meter": "4/4" } },
                                 "combat": { "file": "combat.wav", "tempo": { "bpm": 140 } } },
                     "states": { "explore": { "track": "explore", "at": "now" },
                                 "combat": { "track": "combat", "at": "bar" } } } }
        """, in: folder, engine: engine)
      map.post("music.state", parameters: ["state": "explore"])
      states.append(map.musicState)
      let music = engine.music
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.6 })
      map.post("music.state", parameters: ["state": "combat"])
      states.append(map.musicState)
      #expect(waitUntil { music.nowPlaying?.track.name == "combat.wav" && (music.currentTime ?? 0) >= 0.2 })
    }
    #expect(states == ["explore", "combat"])
    let left = capture.left.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    let cut = try #require(left.firstIndex { $0 == 0.5 })
    #expect(cut - start == 96_000, "combat starts \(cut - start - 96_000) frames off the bar line")
  }
}

extension SoundMapMusicTests {
  @Test(
    "a piece's stems follow its intensity parameter: the second comes in as the value rises (embedded mixer)")
  func intensityBringsStemsIn() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let folder = try SoundMapTests.folder([:])
    defer { try? FileManager.default.removeItem(at: folder) }
    for name in ["drums.wav", "strings.wav"] {
      try makeFloatWAV(samples: [Float](repeating: 0.25, count: 96_000), sampleRate: 48_000, channels: 1)
        .write(to: folder.appendingPathComponent(name))
    }
    let map = try SoundMapTests.map(
      """
      { "version": 1, "events": {},
        "music": { "tracks": { "fight": { "stems": ["drums.wav", "strings.wav"], "loop": -1, "intensity": "danger",
                                          "intensityFade": 0 } },
                   "states": { "fight": { "track": "fight", "at": "now" } } } }
      """, in: folder, engine: audio.engine)
    map.post("music.state", parameters: ["state": "fight"])
    let music = audio.engine.music
    #expect(audio.advance(until: { (music.currentTime ?? 0) > 0.2 }))
    #expect(music.stemCount == 2 && music.levels == [1, 0])
    #expect(abs((audio.left.samples.last ?? 0) - 0.25) < 1e-6, "the drums alone")
    map.post("music.intensity", parameters: ["danger": 1])
    audio.advance(seconds: 0.1)
    #expect(music.levels == [1, 1])
    #expect(abs((audio.left.samples.last ?? 0) - 0.5) < 1e-6, "drums and strings")
  }
}

extension SoundMapMusicTests {
  @Test(
    "an event with \"quantize\": \"beat\" posted off the beat starts on the music's next beat, to the sample; \"bar\" on the next bar; a bad value is refused (disk driver)"
  )
  func quantizedPosts() throws {
    let folder = try SoundMapTests.folder([:])
    defer { try? FileManager.default.removeItem(at: folder) }
    // Music of silence at 240 bpm (12,000 frames a beat), and a hit of 0.5.
    try makeFloatWAV(samples: [Float](repeating: 0, count: 480_000), sampleRate: 48_000, channels: 1)
      .write(to: folder.appendingPathComponent("groove.wav"))
    try makeFloatWAV(samples: [Float](repeating: 0.5, count: 480), sampleRate: 48_000, channels: 1)
      .write(to: folder.appendingPathComponent("hit.wav"))
    var beats: [Int] = []
    var posted: [Int] = []
    var lookAhead = 0
    let capture = try captureDiskOutput { engine, output in
      lookAhead = engine.outputLatency.lookAheadFrames
      let map = try SoundMapTests.map(
        """
        { "version": 1,
          "events": { "hit": { "play": "hit.wav", "quantize": "beat" }, "accent": { "play": "hit.wav", "quantize": "bar" } },
          "music": { "tracks": { "groove": { "file": "groove.wav", "tempo": { "bpm": 240 } } },
                     "states": { "groove": { "track": "groove", "at": "now" } } } }
        """, in: folder, engine: engine)
      let music = engine.music
      music.observe { event in if case .beat(let beat) = event { beats.append(beat.frame.index) } }
      map.post("music.state", parameters: ["state": "groove"])
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.3 })
      // Posted a third of a beat after a beat, then again later.
      for event in ["hit", "accent"] {
        #expect(output.waitForMore(seconds: 0.33))
        posted.append(engine.audioFrame.index)
        #expect(map.post(event).count == 1)
        #expect(waitUntil { engine.statistics.activeVoices <= 1 })
      }
      // Until a beat after the bar that follows the accent's post: however late a loaded machine
      // posts it, the accent is in the capture.
      #expect(
        waitUntil(timeout: 30) {
          engine.session.mailbox.drain()
          let bars = stride(from: 0, to: beats.count, by: 4).map { beats[$0] }
          guard let bar = bars.first(where: { $0 > posted[1] }) else { return false }
          return beats.contains { $0 > bar }
        })
      music.stop()
    }
    let left = capture.left.samples
    let onsets: [Int] = left.indices.filter { left[$0] == 0.5 && ($0 == 0 || left[$0 - 1] != 0.5) }
    try #require(onsets.count == 2, "\(onsets)")
    let started = onsets.map { $0 - lookAhead }
    // Each on the first beat (bar) after it was posted, not at once.
    let hitBeat = beats.first { $0 > posted[0] }
    #expect(started[0] == hitBeat, "hit started on \(started[0]), posted \(posted[0]), beats \(beats)")
    let bars: [Int] = stride(from: 0, to: beats.count, by: 4).map { beats[$0] }
    let accentBar = bars.first { $0 > posted[1] }
    #expect(started[1] == accentBar, "accent started on \(started[1]), posted \(posted[1]), bars \(bars)")
    let audio = try EmbeddedAudio()
    let bad = try #require(throws: SoundMapError.self) {
      try SoundMapTests.map(
        #"{ "version": 1, "events": { "x": { "play": "hit.wav", "quantize": "half" } } }"#, in: folder,
        engine: audio.engine)
    }
    #expect(bad.errors.contains(#"events["x"].quantize: must be "grid", "beat" or "bar""#), "\(bad)")
  }

  @Test(
    "an event with \"quantize\": \"grid\" starts on the next step of its tempo's grid (triplets: a third of a beat), to the sample; a grid that is not a whole 1…16 is refused (disk driver)"
  )
  func gridQuantizedPosts() throws {
    let folder = try SoundMapTests.folder([:])
    defer { try? FileManager.default.removeItem(at: folder) }
    // Music of silence at 240 bpm (12,000 frames a beat), a grid of 3 (4,000 frames a step).
    try makeFloatWAV(samples: [Float](repeating: 0, count: 480_000), sampleRate: 48_000, channels: 1)
      .write(to: folder.appendingPathComponent("groove.wav"))
    try makeFloatWAV(samples: [Float](repeating: 0.5, count: 480), sampleRate: 48_000, channels: 1)
      .write(to: folder.appendingPathComponent("tick.wav"))
    var beats: [Int] = []
    var posted: [Int] = []
    var lookAhead = 0
    let capture = try captureDiskOutput { engine, output in
      lookAhead = engine.outputLatency.lookAheadFrames
      let map = try SoundMapTests.map(
        """
        { "version": 1,
          "events": { "tick": { "play": "tick.wav", "quantize": "grid" } },
          "music": { "tracks": { "groove": { "file": "groove.wav", "tempo": { "bpm": 240, "grid": 3 } } },
                     "states": { "groove": { "track": "groove", "at": "now" } } } }
        """, in: folder, engine: engine)
      let music = engine.music
      music.observe { event in if case .beat(let beat) = event { beats.append(beat.frame.index) } }
      map.post("music.state", parameters: ["state": "groove"])
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.3 })
      for wait in [0.03, 0.11, 0.07] {
        #expect(output.waitForMore(seconds: wait))
        posted.append(engine.audioFrame.index)
        #expect(map.post("tick").count == 1)
        #expect(waitUntil { engine.statistics.activeVoices <= 1 })
      }
      // Until two beats after the last post: its step is in the capture, and so are the beats.
      #expect(
        waitUntil(timeout: 30) {
          engine.session.mailbox.drain()
          return beats.filter { $0 > posted[2] }.count >= 2
        })
      music.stop()
    }
    let left = capture.left.samples
    let onsets: [Int] = left.indices.filter { left[$0] == 0.5 && ($0 == 0 || left[$0 - 1] != 0.5) }
    try #require(onsets.count == 3, "\(onsets)")
    let steps = beats.flatMap { [$0, $0 + 4_000, $0 + 8_000] }
    for (onset, post) in zip(onsets, posted) {
      let step = steps.first { $0 > post }
      #expect(onset - lookAhead == step, "started on \(onset - lookAhead), posted \(post), beats \(beats)")
    }
    let audio = try EmbeddedAudio()
    for grid in ["0", "2.5", "17", "\"4\""] {
      let bad = try #require(throws: SoundMapError.self) {
        try SoundMapTests.map(
          """
          { "version": 1, "music": { "tracks": { "g": { "file": "groove.wav", "tempo": { "bpm": 120, "grid": \(grid) } } } } }
          """, in: folder, engine: audio.engine)
      }
      #expect(
        bad.errors.contains { $0.contains(".grid: must be a whole number of steps to the beat, 1…16") },
        "\(bad)")
    }
  }
}
