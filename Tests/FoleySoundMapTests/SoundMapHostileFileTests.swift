import FoleyAudio
import FoleyCore
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// A sound map's files as a careless designer or a hostile local user leaves them: one file named
/// two ways, a key written twice, entries planted where a save writes, a change landing mid-save,
/// a map that is a link, a save killed half way.
@MainActor
@Suite("Sound map files under attack", .serialized)
struct SoundMapHostileFileTests {
  static let map = #"{ "version": 1, "events": { "ping": { "play": "a.wav" } } }"#

  static func open(
    _ text: String = map
  ) throws -> (engine: AudioEngine, folder: URL, file: URL, map: SoundMap) {
    let engine = try AudioEngine(embedded: EmbeddedMixer())
    let folder = try makeToneFolder()
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("sounds.json")
    try Data(text.utf8).write(to: file)
    let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
    map.watchesFile = false
    return (engine, folder, file, map)
  }

  static func close(_ engine: AudioEngine, _ folder: URL) {
    engine.close()
    try? FileManager.default.removeItem(at: folder)
  }

  @Test("a map naming one file as a.wav, ./a.wav and sub/../a.wav loads, is watched and edits")
  func oneFileTwoNames() throws {
    let text = #"""
      { "version": 1, "events": {
        "one": { "play": "a.wav" }, "two": { "play": "./a.wav" }, "three": { "play": "sub/../a.wav" } } }
      """#
    let (engine, folder, _, map) = try Self.open(text)
    defer { Self.close(engine, folder) }
    // The watch keyed every file by its path: two names of one file trapped there.
    map.watchesFile = true
    for event in ["one", "two", "three"] { #expect(map.post(event).first?.file == "a.wav") }
    try map.replaceEvent("four", with: Data(#"{"play":"./a.wav"}"#.utf8), expecting: map.version)
    #expect(map.post("four").first?.file == "a.wav")
    #expect(AssetRoots.canonicalName("Music/../sfx//./chime.wav") == "sfx/chime.wav")
    #expect(AssetRoots.canonicalName("../outside.wav") == "../outside.wav")
  }

  @Test("a key twice in one object, at the top or deep in an entry, is a parse error with its path")
  func duplicatedKeys() throws {
    let engine = try AudioEngine(embedded: EmbeddedMixer())
    defer { engine.close() }
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let top =
      #"{ "version": 1, "events": { "a": { "play": "a.wav" } }, "events": { "b": { "play": "b.wav" } } }"#
    let deep = #"{ "version": 1, "events": { "a": { "random": [{ "play": "a.wav", "play": "b.wav" }] } } }"#
    for (text, expected) in [
      (top, #"the map: the key "events" appears more than once"#),
      (deep, #"events["a"]["random"][0]: the key "play" appears more than once"#),
    ] {
      let error = #expect(throws: SoundMapError.self) {
        _ = try SoundMap(json: Data(text.utf8), relativeTo: folder, engine: engine)
      }
      #expect(error?.errors == [expected], "\(error?.errors ?? [])")
    }
  }

  @Test("a link or a FIFO planted at a save's temporary name is refused: never followed, never blocked on")
  func plantedTemporaries() throws {
    let (engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    try map.replaceEvent("ping", with: Data(#"{"play":"b.wav"}"#.utf8), expecting: map.version)
    let victim = folder.appendingPathComponent("victim.txt")
    try Data("the user's file".utf8).write(to: victim)
    let temporary = folder.appendingPathComponent(".sounds.json.saving")
    try FileManager.default.createSymbolicLink(at: temporary, withDestinationURL: victim)
    #expect(throws: SoundMapEditError.self) { try map.save() }
    #expect(try Data(contentsOf: victim) == Data("the user's file".utf8))
    #expect(try Data(contentsOf: file) == Data(Self.map.utf8))
    #expect(
      (try FileManager.default.attributesOfItem(atPath: file.path)[.type] as? FileAttributeType)
        == .typeRegular)
    try FileManager.default.removeItem(at: temporary)
    // A FIFO where the backup's temporary goes: open() would wait for a reader for ever.
    let fifo = folder.appendingPathComponent(".sounds.json.bak.saving")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let error = #expect(throws: SoundMapEditError.self) { try map.save() }
    #expect("\(error.map { "\($0)" } ?? "")".contains("already exists"))
    try FileManager.default.removeItem(at: fifo)
    try map.save()
    #expect(try Data(contentsOf: file) == Data(map.text.utf8))
  }

  @Test("three saves keep three numbered backups, the map as first read among them, and a bounded number")
  func numberedBackups() throws {
    let (engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    var versions = [try Data(contentsOf: file)]
    for level in [-3, -6, -9] {
      try map.replaceEvent(
        "ping", with: Data(#"{"play":"a.wav","volumeDb":\#(level)}"#.utf8), expecting: map.version)
      try map.save()
      versions.append(try Data(contentsOf: file))
    }
    for number in 1...3 {
      #expect(
        try Data(contentsOf: folder.appendingPathComponent("sounds.json.bak.\(number)"))
          == versions[number - 1])
    }
    #expect(try Data(contentsOf: folder.appendingPathComponent("sounds.json.bak")) == versions[2])
    map.backupLimit = 2
    for level in [-12, -15, -18] {
      try map.replaceEvent(
        "ping", with: Data(#"{"play":"a.wav","volumeDb":\#(level)}"#.utf8), expecting: map.version)
      try map.save()
    }
    let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.hasPrefix("sounds.json.bak.")
    }
    #expect(Set(kept) == ["sounds.json.bak.1", "sounds.json.bak.6"], "\(kept)")
    #expect(try Data(contentsOf: folder.appendingPathComponent("sounds.json.bak.1")) == versions[0])
  }

  @Test("a change written to the file while a save runs is refused with changedOnDisk, and kept")
  func changeDuringSave() throws {
    let (engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    try map.replaceEvent("ping", with: Data(#"{"play":"c.wav"}"#.utf8), expecting: map.version)
    let theirs = Data(Self.map.replacingOccurrences(of: "a.wav", with: "d.wav").utf8)
    map.saveWillRename = { try? theirs.write(to: file) }
    #expect(throws: SoundMapEditError.changedOnDisk) { try map.save() }
    #expect(try Data(contentsOf: file) == theirs)
    #expect(map.hasUnsavedEdits)
    #expect(
      !FileManager.default.fileExists(atPath: folder.appendingPathComponent(".sounds.json.saving").path))
  }

  @Test("a map file that is a link stays a link, and its target gets the saved map")
  func linkedMap() throws {
    let engine = try AudioEngine(embedded: EmbeddedMixer())
    defer { engine.close() }
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let real = folder.appendingPathComponent("real.json")
    try Data(Self.map.utf8).write(to: real)
    let link = folder.appendingPathComponent("sounds.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
    let map = try SoundMap(contentsOf: link, engine: engine, seed: 1)
    map.watchesFile = false
    try map.replaceEvent("ping", with: Data(#"{"play":"b.wav"}"#.utf8), expecting: map.version)
    try map.save()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
    #expect(try Data(contentsOf: real) == Data(map.text.utf8))
  }

  @Test(
    "the temporary files left by a save killed half way (the map's, its backup's, a numbered backup's) are swept when the map is next loaded, and the next save goes through"
  )
  func staleTemporarySwept() throws {
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    try Data(Self.map.utf8).write(to: file)
    let stale = [".sounds.json.saving", ".sounds.json.bak.saving", ".sounds.json.bak.1.saving"].map {
      folder.appendingPathComponent($0)
    }
    for url in stale { try Data(repeating: 7, count: 1 << 20).write(to: url) }
    // Not a temporary of this map's: left alone.
    let other = folder.appendingPathComponent(".sounds.json.bak.x.saving")
    try Data("keep".utf8).write(to: other)
    let engine = try AudioEngine(embedded: EmbeddedMixer())
    defer { engine.close() }
    let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
    for url in stale {
      #expect(!FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)")
    }
    #expect(FileManager.default.fileExists(atPath: other.path))
    map.watchesFile = false
    try map.replaceEvent("ping", with: Data(#"{"play":"b.wav"}"#.utf8), expecting: map.version)
    try map.save()
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("sounds.json.bak.1").path))
  }
}
