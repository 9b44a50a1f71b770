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
      #"music.states["fight"].at: must be now, beat, bar, end or cue:NAME"#,
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
