import FoleyAudio
import FoleyAudioTesting
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// A running map edited one entry at a time and saved back: heard at once, refused whole when
/// wrong or stale, and a file that is never lost or half written.
@MainActor
@Suite("Sound map editing and saving", .serialized)
struct SoundMapEditingTests {
  /// The designer's layout, with its own key order and spacing, which a save must keep.
  static let original = #"""
    {
      "version": 1,
      "events": {
        "ping": { "volumeDb": -3, "play": "a.wav" },
        "pong": {
          "random": ["b.wav", "c.wav"],
          "cooldown":   0.1
        },
        "tick": { "play": "c.wav" }
      }
    }

    """#

  static func open() throws -> (engine: AudioEngine, folder: URL, file: URL, map: SoundMap) {
    let engine = try AudioEngine(embedded: EmbeddedMixer())
    let folder = try makeToneFolder()
    let file = folder.appendingPathComponent("sounds.json")
    try Data(original.utf8).write(to: file)
    let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
    map.watchesFile = false
    return (engine, folder, file, map)
  }

  static func close(_ engine: AudioEngine, _ folder: URL) {
    engine.close()
    try? FileManager.default.removeItem(at: folder)
  }

  @Test("an edit is heard at the next post and changes the map's text only in that entry")
  func editIsHeard() throws {
    let (engine, folder, _, map) = try Self.open()
    defer { Self.close(engine, folder) }
    #expect(map.post("ping").first?.gainDecibels == -3)
    #expect(map.entryText("ping") == #"{ "volumeDb": -3, "play": "a.wav" }"#)
    let version = map.version
    let next = try map.replaceEvent(
      "ping", with: Data(#"{"volumeDb":-15,"play":"a.wav","pitchSemitones":[0,0]}"#.utf8), expecting: version)
    #expect(next == version + 1 && map.version == next && map.hasUnsavedEdits)
    #expect(map.post("ping").first?.gainDecibels == -15)
    // Written in the fixed key order; every other byte of the text as it was.
    let written = #"{ "play": "a.wav", "volumeDb": -15, "pitchSemitones": [0, 0] }"#
    #expect(map.entryText("ping") == written)
    #expect(
      map.text
        == Self.original.replacingOccurrences(of: #"{ "volumeDb": -3, "play": "a.wav" }"#, with: written))
    #expect(map.reloads.last?.origin == .edit && map.reloads.last?.changed == ["ping"])

    // A new event goes at the end of `events`, and is heard too.
    try map.replaceEvent("tock", with: Data(#"{"play":"d.wav"}"#.utf8), expecting: map.version)
    #expect(map.post("tock").map(\.file) == ["d.wav"])
    #expect(
      map.text.contains(#""tick": { "play": "c.wav" },"# + "\n    \"tock\": { \"play\": \"d.wav\" }\n  }"))
    #expect(map.eventNames == ["ping", "pong", "tick", "tock"])
  }

  @Test(
    "bus levels go into the map's mix section, made where missing and changed in place after, and are in use at once"
  )
  func busLevels() throws {
    let (engine, folder, _, map) = try Self.open()
    defer { Self.close(engine, folder) }
    try map.setBusLevels(["music": -6, "effects": -3], expecting: map.version)
    #expect(
      abs(engine.bus("music").volume - 0.501) < 0.001 && abs(engine.bus("effects").volume - 0.708) < 0.001)
    // The section is made after `events` (the map's last member); the levels go in by name.
    let events = String(Self.original[..<Self.original.range(of: "\n}\n")!.lowerBound])
    #expect(
      map.text == events
        + ",\n  \"mix\": { \"buses\": { \"effects\": { \"volumeDb\": -3 }, \"music\": { \"volumeDb\": -6 } } }\n}\n",
      "\(map.text)")
    let before = map.text
    try map.setBusLevels(["music": -12, "ui": -20], expecting: map.version)
    #expect(
      map.text
        == before.replacingOccurrences(
          of: #""music": { "volumeDb": -6 } }"#,
          with: #""music": { "volumeDb": -12 }, "ui": { "volumeDb": -20 } }"#),
      "\(map.text)")
    #expect(abs(engine.bus("music").volume - 0.251) < 0.001)
    #expect(map.hasUnsavedEdits && map.reloads.last?.origin == .edit)
    let kept = map.text
    #expect(
      throws: SoundMapEditError.invalid([
        #"mix.buses["master"]: "master" is not a category's bus (the master and the reverb are set apart)"#
      ])
    ) { try map.setBusLevels(["master": -3], expecting: map.version) }
    #expect(map.text == kept)
    #expect(throws: SoundMapEditError.conflict(current: map.version)) {
      try map.setBusLevels(["music": -3], expecting: map.version - 1)
    }
  }

  @Test("the map lists the parameters a game may set: each switch's values and the music's intensities")
  func parameters() throws {
    let engine = try AudioEngine(embedded: EmbeddedMixer())
    defer { engine.close() }
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let map = try SoundMap(
      json: Data(
        #"""
        { "version": 1, "events": {
          "step": { "switch": { "parameter": "surface", "default": "stone", "cases": {
            "stone": "a.wav",
            "grass": { "switch": { "parameter": "wet", "cases": { "yes": "b.wav", "no": "c.wav" } } } } } },
          "hit": { "layer": [{ "switch": { "parameter": "surface", "cases": { "metal": "d.wav" } } }, "a.wav"] } } }
        """#.utf8), relativeTo: folder, engine: engine)
    #expect(map.switchParameters == ["surface": ["grass", "metal", "stone"], "wet": ["no", "yes"]])
    #expect(map.intensityParameters.isEmpty && map.musicStates.isEmpty)
  }

  @Test("a stale version or an entry the parser refuses changes nothing")
  func refusals() throws {
    let (engine, folder, _, map) = try Self.open()
    defer { Self.close(engine, folder) }
    let version = map.version
    #expect(throws: SoundMapEditError.conflict(current: version)) {
      try map.replaceEvent("ping", with: Data(#"{"play":"b.wav"}"#.utf8), expecting: version - 1)
    }
    #expect(
      throws: SoundMapEditError.invalid([#"events["ping"].volumDb: unknown key (did you mean volumeDb?)"#])
    ) {
      try map.replaceEvent("ping", with: Data(#"{"play":"a.wav","volumDb":-9}"#.utf8), expecting: version)
    }
    do {
      try map.replaceEvent("ping", with: Data(#"{"play":"nope.wav"}"#.utf8), expecting: version)
      Issue.record("a missing file was accepted")
    } catch {
      guard case .invalid(let errors) = error else { throw error }
      #expect(errors.count == 1 && errors[0].contains(#"file "nope.wav" not found"#), "\(errors)")
    }
    for junk in ["[1, 2]", "not json", #""a string""#, ""] {
      #expect(throws: SoundMapEditError.self, "\(junk)") {
        try map.replaceEvent("ping", with: Data(junk.utf8), expecting: version)
      }
    }
    #expect(map.version == version && !map.hasUnsavedEdits)
    #expect(map.text == Self.original)
    #expect(map.post("ping").first?.gainDecibels == -3)
  }

  @Test(
    "a save writes the edited map atomically, keeps the previous file as .bak, and leaves other entries as they were"
  )
  func save() throws {
    let (engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    try map.replaceEvent("ping", with: Data(#"{"play":"a.wav","volumeDb":-12}"#.utf8), expecting: map.version)
    try map.save()
    #expect(!map.hasUnsavedEdits)
    let saved = try String(contentsOf: file, encoding: .utf8)
    #expect(saved == map.text)
    #expect(
      try Data(contentsOf: folder.appendingPathComponent("sounds.json.bak")) == Data(Self.original.utf8))
    // The map's own save is no change on disk for its watch; someone else's edit is.
    #expect(map.matchesDisk)
    #expect(
      !FileManager.default.fileExists(atPath: folder.appendingPathComponent(".sounds.json.saving").path))
    // The file loads as the edited map; the entries not edited are the designer's bytes.
    let again = try SoundMap(contentsOf: file, engine: engine, seed: 1)
    #expect(again.post("ping").first?.gainDecibels == -12)
    #expect(
      again.entryText("pong")
        == "{\n      \"random\": [\"b.wav\", \"c.wav\"],\n      \"cooldown\":   0.1\n    }")
    #expect(again.entryText("tick") == #"{ "play": "c.wav" }"#)
    try Data(Self.original.utf8).write(to: file)
    #expect(!map.matchesDisk)
  }

  @Test("a save over a file changed on disk is refused and writes nothing, unless asked to overwrite")
  func saveConflict() throws {
    let (engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    try map.replaceEvent("ping", with: Data(#"{"play":"b.wav"}"#.utf8), expecting: map.version)
    let theirs = Data(Self.original.replacingOccurrences(of: "-3", with: "-4").utf8)
    try theirs.write(to: file)
    #expect(throws: SoundMapEditError.changedOnDisk) { try map.save() }
    #expect(try Data(contentsOf: file) == theirs)
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("sounds.json.bak").path))
    #expect(map.hasUnsavedEdits)
    try map.save(overwritingChanges: true)
    #expect(try Data(contentsOf: file) == Data(map.text.utf8))
    #expect(try Data(contentsOf: folder.appendingPathComponent("sounds.json.bak")) == theirs)
  }

  @Test("the watch does not read a changed file over unsaved edits: it says so, and the edits play on")
  func watchKeepsEdits() throws {
    let (engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    try map.replaceEvent("ping", with: Data(#"{"play":"b.wav"}"#.utf8), expecting: map.version)
    map.watchesFile = true
    try Data(Self.original.replacingOccurrences(of: "-3", with: "-4").utf8).write(to: file)
    #expect(
      waitUntil(timeout: 60) {
        engine.session.mailbox.drain()
        return map.reloads.last?.outcome == .failed
      })
    #expect(map.reloads.last?.errors.first?.contains("edits made to the running map are unsaved") == true)
    #expect(map.post("ping").map(\.file) == ["b.wav"])
    #expect(throws: SoundMapEditError.changedOnDisk) { try map.save() }
  }

  #if DEBUG
    /// ``original`` with 3,000 more events: a file of about 110 kB.
    static let large = original.replacingOccurrences(
      of: #""tick": { "play": "c.wav" }"#,
      with: #""tick": { "play": "c.wav" },"# + "\n"
        + (0..<3_000).map { #"    "filler.\#($0)": { "play": "d.wav", "volumeDb": -6 }"# }.joined(
          separator: ",\n"))

    @Test(
      "a game killed in the middle of a save leaves each file whole: the old map or the new one, never a mix")
    func killedMidSave() async throws {
      let folder = try makeToneFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let file = folder.appendingPathComponent("sounds.json")
      try Data(Self.large.utf8).write(to: file)
      // The child edits the map and saves it; a thread of its own kills it the moment the new
      // map's temporary file exists, before it can be renamed over the old one, and leaves a
      // mark that it did. (The suite runs one test at a time, so the child reads this folder.)
      setenv("FOLEY_TEST_SAVE_FOLDER", folder.path, 1)
      defer { unsetenv("FOLEY_TEST_SAVE_FOLDER") }
      await #expect(processExitsWith: .signal(SIGKILL)) {
        let folder = String(cString: getenv("FOLEY_TEST_SAVE_FOLDER")!)
        Thread.detachNewThread {
          let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
          var facts = stat()
          while stat(folder + "/.sounds.json.saving", &facts) != 0,
            DispatchTime.now().uptimeNanoseconds < deadline
          {}
          _ = FileManager.default.createFile(atPath: folder + "/killed", contents: nil)
          kill(getpid(), SIGKILL)
        }
        try await MainActor.run {
          let engine = try AudioEngine(embedded: EmbeddedMixer())
          let map = try SoundMap(
            contentsOf: URL(fileURLWithPath: folder + "/sounds.json"), engine: engine, seed: 1)
          map.watchesFile = false
          try map.replaceEvent(
            "ping", with: Data(#"{"volumeDb":-20,"play":"a.wav"}"#.utf8), expecting: map.version)
          while true { try map.save() }
        }
      }
      #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("killed").path))
      let edited = Self.large.replacingOccurrences(
        of: #"{ "volumeDb": -3, "play": "a.wav" }"#, with: #"{ "play": "a.wav", "volumeDb": -20 }"#)
      // Whenever the kill landed (before the first rename, or in a later save of the same edit:
      // on a loaded machine the watching thread may run late), each file is one map, whole.
      let text = try String(contentsOf: file, encoding: .utf8)
      #expect([Self.large, edited].contains(text), "\(text.count) characters: \(text.suffix(200))")
      let backup = try String(contentsOf: folder.appendingPathComponent("sounds.json.bak"), encoding: .utf8)
      #expect([Self.large, edited].contains(backup), "\(backup.count) characters: \(backup.suffix(200))")
      // The game started again saves the same edit over the cut temporary file.
      let engine = try AudioEngine(embedded: EmbeddedMixer())
      defer { engine.close() }
      let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
      map.watchesFile = false
      try map.replaceEvent(
        "ping", with: Data(#"{"volumeDb":-20,"play":"a.wav"}"#.utf8), expecting: map.version)
      try map.save()
      #expect(try String(contentsOf: file, encoding: .utf8) == edited)
      #expect(
        !FileManager.default.fileExists(atPath: folder.appendingPathComponent(".sounds.json.saving").path))
    }

    @Test(
      "a save puts a new file in place: a reader of the old one reads it whole, never the new bytes over it")
    func readerOfTheOldFile() throws {
      let (engine, folder, file, map) = try Self.open()
      defer { Self.close(engine, folder) }
      let reader = try FileHandle(forReadingFrom: file)
      defer { try? reader.close() }
      try map.replaceEvent(
        "ping", with: Data(#"{"play":"a.wav","volumeDb":-12}"#.utf8), expecting: map.version)
      try map.save()
      #expect(try reader.readToEnd() == Data(Self.original.utf8))
      #expect(try Data(contentsOf: file) == Data(map.text.utf8))
    }
  #endif
}
