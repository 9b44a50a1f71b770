import FoleyAudio
import FoleyAudioTesting
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// Every reload of a sound map's file is seen: kept on the map, logged, and sent to the game
/// thread's observers, with what it added, removed and changed, or every error it found.
@MainActor
@Suite("Sound map reloads")
struct SoundMapReloadTests {
  static let original = #"""
    { "version": 1, "events": {
      "ping": { "play": "a.wav", "volumeDb": -3 },
      "pong": { "play": "b.wav" },
      "tick": { "play": "c.wav", "cooldown": 0.1 } } }
    """#

  /// An engine logging into `log`, and the map of ``original`` in a folder of tones (not watched:
  /// each test reloads by hand).
  static func open() throws -> (
    log: CapturedLog, engine: AudioEngine, folder: URL, file: URL, map: SoundMap
  ) {
    let log = CapturedLog()
    let engine = try AudioEngine(embedded: EmbeddedMixer(), logger: log.logger)
    let folder = try makeToneFolder()
    let file = folder.appendingPathComponent("sounds.json")
    try Data(original.utf8).write(to: file)
    let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
    map.watchesFile = false
    return (log, engine, folder, file, map)
  }

  static func close(_ engine: AudioEngine, _ folder: URL) {
    engine.close()
    try? FileManager.default.removeItem(at: folder)
  }

  @Test("a good edit: the events added, removed and changed, kept, logged and posted to the mailbox")
  func goodEdit() throws {
    let (log, engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    var heard: [SoundMapReload] = []
    map.observeReloads { heard.append($0) }
    #expect(map.reloads.isEmpty)

    // `ping` louder, `pong` gone, `tock` new; `tick` the same entry with its keys reordered and
    // respaced, which is no change.
    try Data(
      #"""
      { "version": 1, "events": {
        "ping": { "play": "a.wav", "volumeDb": -9 },
        "tick": {"cooldown":0.1,"play":"c.wav"},
        "tock": { "play": "d.wav" } } }
      """#.utf8
    ).write(to: file)
    try map.reload()
    let reload = try #require(map.reloads.last)
    #expect(reload.outcome == .loaded && reload.file == "sounds.json")
    #expect(reload.added == ["tock"] && reload.removed == ["pong"] && reload.changed == ["ping"])
    #expect(reload.errors.isEmpty)
    #expect(reload.description == "sounds.json reloaded: added tock; removed pong; changed ping")
    #expect(log.lines.contains { $0.level == .info && $0.message.contains("reloaded: added tock") })
    // Observers hear of it on the game thread, at the mailbox's next drain.
    #expect(heard.isEmpty)
    engine.session.mailbox.drain()
    #expect(heard == [reload])

    // A file an event plays, changed on disk (a longer tone: its size differs): that event changed.
    try makeToneWAV(frequency: 440, duration: 0.2, amplitude: 0.3).write(
      to: folder.appendingPathComponent("c.wav"))
    try map.reload()
    #expect(map.reloads.last?.changed == ["tick"])
    #expect(map.reloads.last?.added == [] && map.reloads.last?.removed == [])
    engine.session.mailbox.drain()
    #expect(heard.count == 2)
  }

  @Test("a bad edit: every error with its path and suggestion, logged, posted; the old map plays on")
  func badEdit() throws {
    let (log, engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    var heard: [SoundMapReload] = []
    map.observeReloads { heard.append($0) }

    try Data(
      #"{ "version": 1, "events": { "ping": { "play": "a.wav", "volumDb": -9 }, "pong": { "play": "nope.wav" } } }"#
        .utf8
    ).write(to: file)
    #expect(throws: SoundMapError.self) { try map.reload() }
    let reload = try #require(map.reloads.last)
    #expect(reload.outcome == .failed)
    #expect(
      reload.errors.contains { $0 == #"events["ping"].volumDb: unknown key (did you mean volumeDb?)"# },
      "\(reload.errors)")
    #expect(reload.errors.contains { $0.contains(#"file "nope.wav" not found"#) })
    #expect(reload.added.isEmpty && reload.removed.isEmpty && reload.changed.isEmpty)
    #expect(reload.description.hasPrefix("sounds.json not reloaded (the previous map plays on): "))
    #expect(log.lines.contains { $0.level == .error && $0.message.contains("did you mean volumeDb?") })
    engine.session.mailbox.drain()
    #expect(heard == [reload])
    #expect(map.eventNames == ["ping", "pong", "tick"])  // the previous map is still in use
    #expect(map.post("pong").map(\.file) == ["b.wav"])
  }

  @Test("the map keeps its latest reloads, no more")
  func keepsTheLatest() throws {
    let (_, engine, folder, file, map) = try Self.open()
    defer { Self.close(engine, folder) }
    for round in 0..<(SoundMap.keptReloads + 4) {
      let volume = round % 2 == 0 ? -3 : -4
      try Data(Self.original.replacingOccurrences(of: "-3", with: "\(volume)").utf8).write(to: file)
      try map.reload()
    }
    #expect(map.reloads.count == SoundMap.keptReloads)
    // The last round wrote -4 over a map at -3: `ping` changed.
    #expect(map.reloads.last?.changed == ["ping"])
  }
}
