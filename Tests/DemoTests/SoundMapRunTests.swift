import FoleyTestSupport
import Foundation
import Testing

/// `foley-demo soundmap run MAP SCRIPT` on SDL's disk driver: a map's snapshots, parameters and
/// modulators, heard in the output the script made.
@Suite("soundmap run", .serialized)
struct SoundMapRunTests {
  /// The map the grammar's checks use, as written in its documentation.
  static let map = #"""
    {"version": 1,
     "parameters": {"speed": {"range": [0, 1], "default": 0}},
     "snapshots": {"muffled": {"mix": {"buses": {"music": {"volumeDb": -12,
                    "effects": [{"type": "lowPass", "frequency": 800}]}}}}},
     "events": {
       "music": {"play": "music.wav", "category": "music"},
       "engine": {"play": "tone.wav", "volumeDb": {"parameter": "speed", "curve": [[0, -30], [1, 0]]}},
       "wobble": {"play": "tone.wav",
                  "modulators": [{"lfo": {"wave": "sine", "rateHz": 4, "depthDb": 6}, "target": "volume"}]}}}
    """#

  /// A folder holding the map, `music.wav` (200 Hz and 5 kHz for 5 s: a band below 300 Hz and one
  /// above 3 kHz) and `tone.wav`.
  static func folder() throws -> URL {
    let folder = temporaryFile("run-map")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(map.utf8).write(to: folder.appendingPathComponent("map.json"))
    try makeTonesWAV([(200, 0.3), (5_000, 0.3)], duration: 5).write(
      to: folder.appendingPathComponent("music.wav"))
    try makeToneWAV(frequency: 1_000, duration: 2, amplitude: 0.5).write(
      to: folder.appendingPathComponent("tone.wav"))
    return folder
  }

  static func write(_ script: String, in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent("script-\(UUID().uuidString).json")
    try Data(script.utf8).write(to: url)
    return url
  }

  @Test(
    "a snapshot applied at 2 s with a 0.5 s tween takes the music down 12 dB and its highs 15 dB more, in steps under 0.5 dB per 10 ms; released, it comes back"
  )
  func snapshotThroughTheScript() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = try Self.write(
      #"""
      [{"at": 0, "post": "music"},
       {"at": 2, "snapshot": "muffled", "tween": 0.5},
       {"at": 3.5, "release": "muffled", "tween": 0.5}]
      """#, in: folder)
    let output = temporaryFile("run.raw")
    defer { try? FileManager.default.removeItem(at: output) }
    let run = try runDemoCommand(
      ["soundmap", "run", folder.appendingPathComponent("map.json").path, script.path],
      environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": output.path])
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.output.contains("2.000 s: snapshot muffled at 1 over 0.5 s (linear)"), "\(run.output)")
    #expect(run.output.contains("done: 3 steps, 1 sounds played"), "\(run.output)")
    let music = try DiskCapture(contentsOf: output, format: .float32).left
    // Frames of the script are counted from the music's first sample (its post at 0 s).
    let onset = try #require(music.audibleRange()?.lowerBound)
    let at = onset + 2 * 48_000
    let back = onset + 3 * 48_000 + 24_000
    try #require(music.count > back + 48_000, "captured \(music.count) frames")
    let move = SnapshotMove(music, at: at, back: back)
    #expect(abs(move.lowDrop - 12) < 1, "the music went down \(move.lowDrop) dB")
    #expect(move.highBeyondLow >= 15, "its band above 3 kHz went down \(move.highBeyondLow) dB more")
    // The music's level in 10 ms windows while the snapshot comes in: no step over 0.5 dB, and
    // the move lasting 0.4 to 0.6 s.
    #expect(move.largestStep <= 0.5, "a step of \(move.largestStep) dB in 10 ms")
    #expect(move.seconds >= 0.4 && move.seconds <= 0.6, "the move took \(move.seconds) s")
    // Released, both bands within 0.5 dB of where they were.
    #expect(
      abs(move.lowBack) < 0.5 && abs(move.highBack) < 0.5, "back by \(move.lowBack), \(move.highBack) dB")
  }

  @Test(
    "a snapshot whose intensity follows a parameter: the parameter tweened to 1 takes the music down 12 dB and its highs more; back to 0, it comes back"
  )
  func snapshotDrivenByAParameter() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let driven = Self.map.replacingOccurrences(
      of: #""snapshots": {"muffled": {"mix""#,
      with:
        #""snapshots": {"muffled": {"intensity": {"parameter": "speed", "curve": [[0, 0], [1, 1]]}, "mix""#)
    try Data(driven.utf8).write(to: folder.appendingPathComponent("map.json"))
    let script = try Self.write(
      #"""
      [{"at": 0, "post": "music"},
       {"at": 2, "parameter": "speed", "value": 1, "tween": 0.5},
       {"at": 3.5, "parameter": "speed", "value": 0, "tween": 0.5}]
      """#, in: folder)
    let output = temporaryFile("run-driven.raw")
    defer { try? FileManager.default.removeItem(at: output) }
    let run = try runDemoCommand(
      ["soundmap", "run", folder.appendingPathComponent("map.json").path, script.path],
      environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": output.path])
    #expect(run.status == 0, "\(run.errors)")
    let music = try DiskCapture(contentsOf: output, format: .float32).left
    let onset = try #require(music.audibleRange()?.lowerBound)
    let back = onset + 3 * 48_000 + 24_000
    try #require(music.count > back + 48_000, "captured \(music.count) frames")
    let move = SnapshotMove(music, at: onset + 2 * 48_000, back: back)
    #expect(abs(move.lowDrop - 12) < 1, "the music went down \(move.lowDrop) dB")
    #expect(move.highBeyondLow >= 15, "its band above 3 kHz went down \(move.highBeyondLow) dB more")
    #expect(move.largestStep <= 0.5, "a step of \(move.largestStep) dB in 10 ms")
    #expect(
      abs(move.lowBack) < 0.5 && abs(move.highBack) < 0.5, "back by \(move.lowBack), \(move.highBack) dB")
    // A curve beyond intensities is refused with its path.
    let bad = folder.appendingPathComponent("bad.json")
    try Data(driven.replacingOccurrences(of: "[[0, 0], [1, 1]]", with: "[[0, 0], [1, 2]]").utf8).write(
      to: bad)
    let check = try runDemoCommand(["soundmap", "check", bad.path])
    #expect(check.status == 2)
    #expect(check.errors.contains(#"snapshots["muffled"].intensity.curve[1][1]"#), "\(check.errors)")
  }

  @Test("a bad script is refused with every error's JSON path and the nearest names; nothing plays")
  func badScripts() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = try Self.write(
      #"""
      [{"at": 0, "post": "musik"},
       {"at": 1, "snapshot": "mufled"},
       {"at": 2, "parameter": "sped", "value": 1},
       {"at": 3, "parameter": "speed"},
       {"at": 4, "release": "muffled", "tween": -1},
       {"at": 5, "post": "music", "easing": "easeOutt"},
       {"at": "soon", "post": "music"},
       {"at": 6, "post": "music", "snapshot": "muffled"},
       {"at": 7, "post": "music", "tweeen": 1}]
      """#, in: folder)
    let run = try runDemoCommand([
      "soundmap", "run", folder.appendingPathComponent("map.json").path, script.path,
    ])
    #expect(run.status == 2)
    for expected in [
      #"script[0].post: no event "musik" in the map (did you mean music?)"#,
      #"script[1].snapshot: no snapshot "mufled" in the map (did you mean muffled?)"#,
      #"script[2].parameter: no parameter "sped" in the map (did you mean speed?)"#,
      "script[3].value: must be a number",
      "script[4].tween: must be a number of seconds, 0 to 3600",
      "script[5].easing: must be one of easeIn, easeInEaseOut, easeOut, linear, smoothstep (did you mean easeOut?)",
      "script[6].at: must be a number of seconds, 0 to 86400",
      "script[7]: needs exactly one of post, parameter, snapshot, release",
      "script[8].tweeen: unknown key (did you mean tween?)",
    ] {
      #expect(run.errors.contains(expected), "missing \(expected) in \(run.errors)")
    }
    #expect(!run.output.contains("script starts"), "\(run.output)")
  }

  @Test("a map naming a parameter it does not define is refused with the nearest name")
  func unknownParameterInTheMap() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bad = folder.appendingPathComponent("bad.json")
    try Data(
      Self.map.replacingOccurrences(of: #""parameter": "speed""#, with: #""parameter": "sped""#)
        .replacingOccurrences(of: #""wave": "sine""#, with: #""wave": "sin""#).utf8
    ).write(to: bad)
    let run = try runDemoCommand(["soundmap", "check", bad.path])
    #expect(run.status == 2)
    #expect(
      run.errors.contains(
        #"events["engine"].volumeDb.parameter: no parameter "sped" in the map's "parameters" (did you mean speed?)"#
      ),
      "\(run.errors)")
    #expect(
      run.errors.contains(
        #"events["wobble"].modulators[0].lfo.wave: must be one of sampleAndHold, sine, square, triangle (did you mean sine?)"#
      ), "\(run.errors)")
  }

  @Test("the demo's map with a misspelt bus is refused by soundmap check with the path and the bus it meant")
  func misspeltBusInTheDemoMap() throws {
    let assets = try ScriptedRunTests.copyOfAssets()
    defer { try? FileManager.default.removeItem(at: assets) }
    let map = assets.appendingPathComponent("sounds.json")
    let good = try runDemoCommand(["soundmap", "check", map.path])
    #expect(good.status == 0, "\(good.errors)")
    let text = try String(contentsOf: map, encoding: .utf8)
    let misspelt = #""maxInstances": 10, "category": "cuse""#
    let edited = text.replacingOccurrences(of: #""maxInstances": 10, "category": "cues""#, with: misspelt)
    try #require(edited.contains(misspelt))
    try Data(edited.utf8).write(to: map)
    let run = try runDemoCommand(["soundmap", "check", map.path])
    #expect(run.status == 2)
    #expect(
      run.errors.contains(
        #"events["chime.call"].category: no bus "cuse" (did you mean cues?); a map names the engine's buses (effects, music, ambience, speech) or those its mix.buses declares"#
      ), "\(run.errors)")
  }
}
