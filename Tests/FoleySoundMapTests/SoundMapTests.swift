import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// Sound maps: validation with JSON paths, containers, limits, pitch, hot reload; on the embedded
/// mixer where the logic is counted, on the disk driver where the sound is measured.
@MainActor
@Suite("Sound maps", .serialized)
struct SoundMapTests {
  /// A folder with tones named by their frequency (`a.wav` 220 Hz, `b.wav` 330 Hz, …).
  static func folder(
    _ files: [String: Double] = ["a.wav": 220, "b.wav": 330, "c.wav": 440, "d.wav": 550]
  ) throws -> URL {
    try makeToneFolder(files)
  }

  static func map(_ json: String, in folder: URL, engine: AudioEngine, seed: UInt64 = 7) throws -> SoundMap {
    try SoundMap(json: Data(json.utf8), relativeTo: folder, engine: engine, seed: seed)
  }

  @Test("a bad map: every error with its JSON path, and nothing loads")
  func validation() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = """
      { "version": 1, "events": {
          "player.footstep": { "switch": { "parameter": "surface", "default": "stone", "cases": {
              "stone": { "random": ["a.wav", {"file": "b.wav", "weight": 0.5}], "avoidRepeat": 1 },
              "grass": { "random": ["a.wav", "missing.wav"], "shuffle": true } } },
            "volumeDb": [0, -3], "cooldown": "soon" },
          "ui.click": { "play": "c.wav", "volumeDb": 6, "colour": "red" },
          "empty": { "layer": [] },
          "both": { "play": "a.wav", "random": ["b.wav"] },
          "escape": { "play": "../outside.wav" },
          "halt": { "stop": "nothing" } } }
      """
    let error = try #require(throws: SoundMapError.self) {
      try Self.map(json, in: folder, engine: audio.engine)
    }
    let expected = [
      #"events["player.footstep"].volumeDb: [0, -3] runs backwards"#,
      #"events["player.footstep"].cooldown: must be a number"#,
      #"events["ui.click"].volumeDb: 6 is outside -96...0"#,
      #"events["ui.click"].colour: unknown key"#,
      #"events["empty"].layer: empty"#,
      #"events["both"]: needs exactly one of blend, file, layer, play, random, sequence, switch (has play, random)"#,
      #"events["halt"].stop: no event "nothing" in this map"#,
    ]
    for message in expected { #expect(error.errors.contains(message), "missing: \(message)\n\(error)") }
    // The files of what did parse are checked in the same look: every problem at once.
    #expect(
      error.errors.contains(
        #"events["player.footstep"].switch.cases.grass.random[1]: file "missing.wav" not found in \#(folder.standardizedFileURL.path)"#
      ), "\(error)")
    // A misspelt key is named, with what it may have meant, and a missing file elsewhere still shows.
    let typo = """
      { "version": 1, "events": { "x": { "plya": "a.wav", "volumeDb": -3 }, "y": { "play": "gone.wav" } } }
      """
    let typoError = try #require(throws: SoundMapError.self) {
      try Self.map(typo, in: folder, engine: audio.engine)
    }
    #expect(typoError.errors.contains(#"events["x"].plya: unknown key (did you mean play?)"#), "\(typoError)")
    #expect(
      typoError.errors.contains { $0.hasPrefix(#"events["y"].play: file "gone.wav" not found"#) },
      "\(typoError)")
    // Files are checked once the JSON itself is right as well.
    let files = """
      { "version": 1, "events": {
          "player.footstep": { "switch": { "parameter": "surface", "cases": {
              "grass": { "random": ["a.wav", "missing.wav"], "shuffle": true } } } },
          "escape": { "play": "../outside.wav" } } }
      """
    let fileError = try #require(throws: SoundMapError.self) {
      try Self.map(files, in: folder, engine: audio.engine)
    }
    #expect(
      fileError.errors.contains(
        #"events["player.footstep"].switch.cases.grass.random[1]: file "missing.wav" not found in \#(folder.standardizedFileURL.path)"#
      ),
      "\(fileError)")
    #expect(
      fileError.errors.contains {
        $0.hasPrefix(#"events["escape"].play: "../outside.wav" is not a file inside"#)
      })
  }

  @Test("a syntax error on line 12 is refused with its line and column, counted in characters")
  func syntaxErrorHasItsPlace() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    // Line 12's value is a bare word: the parser stops on its first letter, column 19; the
    // captions above hold two-byte letters, which shift the byte offset but not the place.
    let lines = [
      "{", "  \"version\": 1,", "  \"events\": {", "    \"a\": {", "      \"play\": \"a.wav\",",
      "      \"caption\": \"café\"", "    },", "    \"b\": {", "      \"play\": \"b.wav\",",
      "      \"volumeDb\": -3,", "      \"caption\": \"é\",", "      \"priority\": high,",
      "      \"loop\": true",
      "    }", "  }", "}",
    ]
    let error = try #require(throws: SoundMapError.self) {
      try Self.map(lines.joined(separator: "\n"), in: folder, engine: audio.engine)
    }
    let message = try #require(error.errors.first)
    #expect(error.errors.count == 1, "\(error)")
    #expect(message.hasPrefix("not valid JSON: 12:19 (line 12, column 19)"), "\(message)")
    // The place is worked out from the byte offset Foundation gives, whatever the letters before.
    #expect(JSONSyntax.place(ofByte: 3, in: Data("ab\ncd".utf8)).map { [$0.line, $0.column] } == [2, 1])
    #expect(JSONSyntax.place(ofByte: 4, in: Data("é\nxé".utf8)).map { [$0.line, $0.column] } == [2, 2])
    #expect(JSONSyntax.place(ofByte: 99, in: Data("{}".utf8)) == nil)
  }

  @Test("random with avoidRepeat never repeats in 1,000 posts; shuffle plays each once per round")
  func randomContainers() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let map = try Self.map(
      """
      { "version": 1, "events": {
          "hit": { "random": ["a.wav", "b.wav", {"file": "c.wav", "weight": 3}], "avoidRepeat": 1 },
          "step": { "random": ["a.wav", "b.wav", "c.wav", "d.wav"], "shuffle": true } } }
      """, in: folder, engine: audio.engine)
    var hits: [String] = []
    for _ in 0..<1_000 { hits += map.post("hit").map(\.file) }
    #expect(hits.count == 1_000)
    #expect(zip(hits, hits.dropFirst()).allSatisfy { $0 != $1 })
    #expect(Set(hits) == ["a.wav", "b.wav", "c.wav"])
    // The weight shows: c is picked most (it can still never follow itself).
    #expect(hits.filter { $0 == "c.wav" }.count > hits.filter { $0 == "a.wav" }.count)
    var steps: [String] = []
    for _ in 0..<40 { steps += map.post("step").map(\.file) }
    for round in stride(from: 0, to: 40, by: 4) { #expect(Set(steps[round..<(round + 4)]).count == 4) }
    #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 != $1 })
  }

  @Test("cooldown: 100 posts in one frame start one voice; maxInstances holds across the event's files")
  func limits() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let map = try Self.map(
      """
      { "version": 1, "events": {
          "spam": { "play": "a.wav", "cooldown": 0.1 },
          "crowd": { "random": ["a.wav", "b.wav", "c.wav"], "maxInstances": 2, "steal": "none" },
          "mob": { "random": ["a.wav", "b.wav", "c.wav"], "maxInstances": 2 } } }
      """, in: folder, engine: audio.engine)
    let scene = Scene()
    audio.engine.attach(to: scene)
    audio.engine.use(map, for: scene)
    for _ in 0..<100 { scene.events.post("spam") }
    audio.advance(seconds: 0.02, stepping: scene)
    #expect(map.statistics.played == 1 && map.statistics.cooledDown == 99)
    #expect(audio.engine.statistics.started == 1)
    for _ in 0..<5 { scene.events.post("crowd") }
    audio.advance(seconds: 0.02, stepping: scene)
    #expect(map.statistics.limited == 3)
    for _ in 0..<5 { scene.events.post("mob") }
    audio.advance(seconds: 0.02, stepping: scene)
    #expect(map.statistics.stolen == 3)
    #expect(audio.engine.voiceCensus().audible == 5)  // spam 1, crowd 2, mob 2
    // After the cooldown, spam plays again.
    audio.advance(seconds: 0.1, stepping: scene)
    scene.events.post("spam")
    #expect(map.statistics.played == 9)  // spam 1 + 1, crowd 2, mob 5 (each stealing the oldest past 2)
    scene.events.post("nobody.knows")
    scene.events.post("nobody.knows")
    #expect(map.statistics.unknown == ["nobody.knows": 2])
  }

  @Test(
    "switch picks by parameter, else its default; sequences step, reset and run continuously; stop ends a loop"
  )
  func switchesSequencesAndStops() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let map = try Self.map(
      """
      { "version": 1, "events": {
          "step": { "switch": { "parameter": "surface", "default": "stone", "cases": {
              "stone": "a.wav", "grass": "b.wav", "3": "d.wav" } } },
          "alert": { "sequence": ["a.wav", "b.wav", "c.wav"], "mode": "step", "resetAfter": 5 },
          "combo": { "sequence": ["a.wav", {"file": "b.wav", "pitchSemitones": 12}, "c.wav"], "mode": "continuous" },
          "chord": { "layer": ["a.wav", "c.wav"], "delay": 0.05 },
          "engine.start": { "play": "d.wav", "loop": true },
          "engine.stop": { "stop": "engine.start", "fadeOut": 0.05 } } }
      """, in: folder, engine: audio.engine)
    let scene = Scene()
    audio.engine.attach(to: scene)
    #expect(map.post("step", parameters: ["surface": "grass"], in: scene).map(\.file) == ["b.wav"])
    #expect(map.post("step", parameters: ["surface": "lava"], in: scene).map(\.file) == ["a.wav"])
    #expect(map.post("step", in: scene).map(\.file) == ["a.wav"])
    #expect(map.post("step", parameters: ["surface": 3], in: scene).map(\.file) == ["d.wav"])
    var alerts = (0..<4).flatMap { _ in map.post("alert", in: scene).map(\.file) }
    #expect(alerts == ["a.wav", "b.wav", "c.wav", "a.wav"])
    audio.advance(seconds: 6, stepping: scene)  // more than resetAfter: back to the first
    alerts = map.post("alert", in: scene).map(\.file)
    #expect(alerts == ["a.wav"])
    // Continuous: each starts when the one before ends (b an octave up: half its 0.1 s).
    let combo = map.post("combo", in: scene)
    #expect(combo.map(\.file) == ["a.wav", "b.wav", "c.wav"])
    #expect(combo.map(\.delay).enumerated().allSatisfy { abs($1 - [0, 0.1, 0.15][$0]) < 1e-9 })
    #expect(combo[1].semitones == 12)
    let chord = map.post("chord", in: scene)
    #expect(chord.map(\.delay) == [0.05, 0.05])
    let started = map.statistics.played
    audio.advance(seconds: 0.2, stepping: scene)
    #expect(map.statistics.played == started + 4)  // the delayed chord and the rest of the combo
    // Twenty loops (past the 16 at which the event's finished voices are first pruned): the stop
    // entry ends every one.
    for _ in 0..<20 { map.post("engine.start", in: scene) }
    audio.advance(seconds: 0.5, stepping: scene)
    #expect(audio.engine.voiceCensus().audible == 20)  // the loops, still going
    map.post("engine.stop", in: scene)
    audio.advance(seconds: 0.2, stepping: scene)
    #expect(audio.engine.voiceCensus() == VoiceCensus())
  }

  @Test("the event log keeps the last 64 posts, oldest first, each with what it started or why not")
  func eventLog() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let map = try Self.map(
      """
      { "version": 1, "events": {
          "hit": { "play": "a.wav" },
          "chord": { "layer": ["b.wav", "c.wav"] },
          "drone": { "play": "d.wav", "loop": true, "maxInstances": 1, "steal": "none" } } }
      """, in: folder, engine: audio.engine)
    let scene = Scene()
    audio.engine.attach(to: scene)
    audio.engine.use(map, for: scene)
    for _ in 0..<62 { #expect(map.post("hit", in: scene).map(\.file) == ["a.wav"]) }
    let player = Node()
    player.position = Point(x: 120, y: -40)
    scene.addChild(player)
    scene.events.post("chord", from: player)  // through the scene: nothing returned, all of it logged
    scene.events.post("nobody.knows")
    #expect(map.post("drone", in: scene).map(\.file) == ["d.wav"])
    #expect(map.post("drone", in: scene).isEmpty)  // at its cap
    let log = map.recentEvents
    #expect(log.count == 64)  // 66 posts: the first two hits are gone
    #expect(
      log.prefix(60).allSatisfy {
        $0.name == "hit" && $0.outcome == .played && $0.sounds.map(\.file) == ["a.wav"]
      })
    let last = log.suffix(4).map { "\($0.name) \($0.outcome) \($0.sounds.map(\.file))" }
    #expect(
      last == [
        #"chord played ["b.wav", "c.wav"]"#, "nobody.knows unknown []", #"drone played ["d.wav"]"#,
        "drone limited []",
      ])
    // Where the posting node was, for a post from one.
    #expect(log.suffix(4).map(\.position) == [[120, -40], nil, nil, nil])
  }

  @Test(
    "48 events, short and long names, literal and built at each post, interleaved with unknown ones: each post reaches its own event"
  )
  func manyNamesEachReachTheirEvent() throws {
    let audio = try EmbeddedAudio()
    // More names than the map's lookup has slots, so names share slots and replace each other.
    let count = 48
    func name(_ index: Int) -> String {
      index.isMultiple(of: 2) ? "e\(index)" : "an event with a long name, number \(index)"
    }
    let files = Dictionary(uniqueKeysWithValues: (0..<count).map { ("f\($0).wav", 200 + Double($0) * 10) })
    let folder = try Self.folder(files)
    defer { try? FileManager.default.removeItem(at: folder) }
    let events = (0..<count).map { #""\#(name($0))": { "play": "f\#($0).wav" }"# }.joined(separator: ", ")
    let map = try Self.map(#"{ "version": 1, "events": { \#(events) } }"#, in: folder, engine: audio.engine)
    // The same strings each round (their bits repeat), then names built afresh at each post.
    let held = (0..<count).map(name)
    var wrong: [String] = []
    for round in 0..<4 {
      for step in 0..<count {
        let index = (step * 7 + round * 5) % count
        let posted = round < 2 ? held[index] : name(index)
        if map.post(posted).map(\.file) != ["f\(index).wav"] { wrong.append("\(round): \(posted)") }
        let unknown = map.post(posted + "?")
        if !unknown.isEmpty { wrong.append("\(round): \(posted)? played") }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    #expect(map.statistics.played == 4 * count && map.statistics.unknown.count == count)
  }

  @Test("hot reload: a changed map swaps the sound at the next post; a bad edit keeps the old map")
  func hotReload() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    try Data(#"{ "version": 1, "events": { "ping": { "play": "a.wav" } } }"#.utf8).write(to: file)
    let map = try SoundMap(contentsOf: file, engine: audio.engine, seed: 1)
    map.watchesFile = false
    #expect(map.post("ping").map(\.file) == ["a.wav"])
    let decodes = audio.engine.statistics.decodes
    try Data(
      #"{ "version": 1, "events": { "ping": { "play": "b.wav" }, "pong": { "play": "a.wav" } } }"#.utf8
    )
    .write(to: file)
    try map.reload()
    #expect(map.post("ping").map(\.file) == ["b.wav"])
    // Only b.wav was new: a.wav was not decoded again.
    #expect(audio.engine.statistics.decodes == decodes + 1)
    try Data(#"{ "version": 1, "events": { "ping": { "play": "nope.wav" } } }"#.utf8).write(to: file)
    #expect(throws: SoundMapError.self) { try map.reload() }
    #expect(map.lastErrors.first?.contains(#"file "nope.wav" not found"#) == true)
    #expect(map.post("ping").map(\.file) == ["b.wav"])  // the previous map still plays
    #expect(map.eventNames == ["ping", "pong"])
  }

  @Test(
    "a sound file edited on disk is heard at the first post after a reload, though the event kept its sound ready between posts"
  )
  func reloadedFileIsHeard() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let folder = try Self.folder(["a.wav": 220])
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    try Data(#"{ "version": 1, "events": { "ping": { "play": "a.wav" } } }"#.utf8).write(to: file)
    let map = try SoundMap(contentsOf: file, engine: audio.engine, seed: 1)
    map.watchesFile = false
    // Two posts: the second plays the sound the first made ready.
    for _ in 0..<2 {
      let start = audio.frames
      map.post("ping")
      audio.advance(seconds: 0.12)
      let heard = audio.left.frequency(in: (start + 960)..<(start + 3_840))
      #expect(abs(heard - 220) < 3, "heard \(heard) Hz")
    }
    // The same name, other samples (and another length, so the reload sees the change).
    try makeToneWAV(frequency: 440, duration: 0.15, amplitude: 0.3).write(
      to: folder.appendingPathComponent("a.wav"))
    try map.reload()
    let start = audio.frames
    map.post("ping")
    audio.advance(seconds: 0.12)
    let heard = audio.left.frequency(in: (start + 960)..<(start + 3_840))
    #expect(abs(heard - 440) < 3, "heard \(heard) Hz after the reload")
  }

  @Test("the watcher reloads an edited map at the next scene update")
  func watcher() throws {
    let audio = try EmbeddedAudio()
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    try Data(#"{ "version": 1, "events": { "ping": { "play": "a.wav" } } }"#.utf8).write(to: file)
    let map = try SoundMap(contentsOf: file, engine: audio.engine, seed: 1)
    map.watchesFile = true
    let scene = Scene()
    audio.engine.attach(to: scene)
    audio.engine.use(map, for: scene)
    // A different size, so the change shows even within the file system's time resolution.
    try Data(
      #"{ "version": 1, "events": { "ping": { "play": "c.wav" }, "pong": { "play": "b.wav" } } }"#.utf8
    )
    .write(to: file)
    #expect(
      waitUntil {
        scene.update(deltaTime: 0.01); return map.eventNames.contains("pong")
      })
    #expect(map.post("ping", in: scene).map(\.file) == ["c.wav"])
    map.watchesFile = false
  }
}

/// Pitch variants within their budget, on the embedded mixer.
@MainActor
@Suite("Sound map pitch budget")
struct SoundMapPitchBudgetTests {
  @Test("a variant larger than the whole pitch budget is never rendered; one that fits is")
  func variantsStayWithinTheBudget() throws {
    let audio = try EmbeddedAudio()
    let folder = try SoundMapTests.folder(["long.wav": 220])
    defer { try? FileManager.default.removeItem(at: folder) }
    // 2 s of float stereo at 48 kHz: 768,000 bytes. Two octaves down it would be 3 MB.
    try makeToneWAV(frequency: 220, duration: 2).write(to: folder.appendingPathComponent("long.wav"))
    let map = try SoundMap(
      json: Data(
        """
        { "version": 1, "events": { "low": { "play": "long.wav", "pitchSemitones": -24 },
                                    "high": { "play": "long.wav", "pitchSemitones": 12 } } }
        """.utf8), relativeTo: folder, engine: audio.engine, pitchBudget: 1 << 20)
    // The map renders every step its events may play at (here -24 to +12 semitones), least
    // recently used out past the budget.
    map.waitUntilReady()
    #expect(map.variants.bytes <= 1 << 20)
    _ = map.post("low")
    _ = map.post("high")
    map.waitUntilReady()
    #expect(map.variants.bytes <= 1 << 20)
    // One variant on its own: two octaves down (3 MB) is never made; an octave up (384 kB) is.
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 220, duration: 2), name: "direct.wav")
    let variants = PitchVariants(library: audio.engine.library, budget: 1 << 20)
    variants.render(sound, steps: [-96])
    variants.waitUntilRendered()
    #expect(variants.bytes == 0)
    variants.render(sound, steps: [48])
    variants.waitUntilRendered()
    #expect(variants.bytes == 384_000)
    #expect(map.variants.bytes <= 1 << 20)
  }
}

/// What a sound map plays, measured on SDL's disk driver.
@MainActor
@Suite("Sound maps (disk driver)", .serialized)
struct SoundMapOutputTests {
  @Test("a pitched variant's frequency is the source's × 2^(s/12), within 0.5%")
  func pitchedFrequency() throws {
    let folder = try SoundMapTests.folder(["tone.wav": 440])
    defer { try? FileManager.default.removeItem(at: folder) }
    try makeToneWAV(frequency: 440, duration: 0.5, amplitude: 0.3).write(
      to: folder.appendingPathComponent("tone.wav"))
    var played: [SoundMap.PlayedSound] = []
    let capture = try captureDiskOutput { engine, output in
      let map = try SoundMapTests.map(
        """
        { "version": 1, "events": { "down": { "play": "tone.wav", "pitchSemitones": -2 },
                                    "up": { "play": "tone.wav", "pitchSemitones": 7 } } }
        """, in: folder, engine: engine)
      map.waitUntilReady()
      played += map.post("down")
      #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
      #expect(output.waitForMore(seconds: 0.2))
      played += map.post("up")
      #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
    }
    #expect(played.map(\.semitones) == [-2, 7])
    let runs = capture.left.segments(minimumGap: 4_800, threshold: 0.01)
    try #require(runs.count == 2, "\(runs)")
    for (run, semitones) in zip(runs, [-2.0, 7.0]) {
      let expected = 440 * pow(2, semitones / 12)  // 392.00 and 659.26 Hz
      let inner = (run.lowerBound + 480)..<(run.upperBound - 480)
      let measured = capture.left.frequency(in: inner)
      #expect(abs(measured / expected - 1) < 0.005, "\(measured) Hz for \(expected) Hz")
      // And its length: the tape sped up or slowed down.
      let length = Double(run.count) / 48_000
      #expect(abs(length - 0.5 / pow(2, semitones / 12)) < 0.01, "\(length) s")
    }
  }

  @Test("a scene's posted events are heard: the map's sound at the posting node's place")
  func postedEventsAreHeard() throws {
    let folder = try SoundMapTests.folder(["hit.wav": 0])
    defer { try? FileManager.default.removeItem(at: folder) }
    // A constant level, panned hard right by its node's place.
    try makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.4, channels: 1).write(
      to: folder.appendingPathComponent("hit.wav"))
    let capture = try captureDiskOutput { engine, _ in
      let scene = Scene(size: Size(width: 800, height: 600))
      var spatial = SpatialAudio()
      spatial.distanceModel = .none
      engine.attach(to: scene, spatial: spatial)
      engine.use(
        try SoundMapTests.map(
          #"{ "version": 1, "events": { "ball.hit": { "play": "hit.wav", "positional": true, "volumeDb": -6 } } }"#,
          in: folder, engine: engine), for: scene)
      let ball = Node()
      ball.position = Point(x: 800, y: 300)
      scene.addChild(ball)
      scene.events.post("ball.hit", parameters: ["speed": 3], from: ball)
      #expect(
        waitUntil(stepping: scene) { engine.statistics.started == 1 && engine.voiceCensus() == VoiceCensus() }
      )
    }
    let audible = capture.right.audibleRange(threshold: 0.01)
    let range = try #require(audible)
    let level = Float(Int16(0.4 * 32_767)) / 32_768 * Float(pow(10, -6.0 / 20))
    #expect(abs(capture.right[range.lowerBound + 2_400] - level) < 1e-4)
    #expect(capture.left.peak < 1e-4)
  }
}
