import FoleyAudio
import FoleyCore
import FoleyInspector
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// The inspector and a sound map being edited on disk while the game runs (SDL's disk driver, a
/// real server, a real headless browser).
@MainActor
@Suite("Browser inspector and the sound map")
struct InspectorSoundMapTests {
  @Test(
    "A good and a bad edit of the map on disk each reach the report and the page, and the events table shows what each play was given",
    .enabled(if: HeadlessBrowser.isInstalled, "chromium is not installed (Scripts/test.sh installs it)"))
  func reloadsOnThePage() throws {
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    try Data(#"{ "version": 1, "events": { "ping": { "play": "a.wav" } } }"#.utf8).write(to: file)
    var dom = ""
    var report: InspectorReport?
    _ = try captureDiskOutput { engine, _ in
      let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
      map.watchesFile = true  // the edits below are found by the map's own watch
      var heard: [SoundMapReload] = []
      map.observeReloads { heard.append($0) }
      let server = InspectorServer(engine: engine, soundMap: map, options: .init(allowsControl: true))
      defer { server.stop() }
      let url = try server.start()
      // The mailbox is drained here, as a game's loop would: the watch's reloads, the observers
      // and the inspector's reads of the map all run on this thread.
      @MainActor func drainUntil(_ condition: () -> Bool) -> Bool {
        waitUntil(timeout: 120) {
          engine.session.mailbox.drain()
          return condition()
        }
      }

      try Data(
        #"{ "version": 1, "events": { "ping": { "play": "a.wav", "volumeDb": -9 }, "pong": { "play": "b.wav" } } }"#
          .utf8
      ).write(to: file)
      #expect(drainUntil { heard.count == 1 })
      #expect(
        heard.first?.outcome == .loaded && heard.first?.added == ["pong"] && heard.first?.changed == ["ping"])
      map.post("ping")
      try Data(#"{ "version": 1, "events": { "ping": { "play": "a.wav", "volumDb": -9 } } }"#.utf8).write(
        to: file)
      #expect(drainUntil { heard.count == 2 })
      #expect(heard.last?.outcome == .failed)

      // The report and the page are read off this thread, which keeps draining meanwhile (the
      // inspector reads the map's part of a report through the mailbox).
      let port = UInt16(try #require(url.port))
      let path = "/snapshot.json?token=\(server.token)"
      let address = url.absoluteString
      let read = Locked<(report: String, page: String)?>(nil)
      Thread.detachNewThread {
        let reply = RawConnection.request(port: port, path: path)?.body ?? ""
        let page = (try? HeadlessBrowser.dumpDOM(address)) ?? ""
        read.withLock { $0 = (reply, page) }
      }
      #expect(drainUntil { read.withLock { $0 != nil } })
      let (reply, page) = read.withLock { $0 } ?? ("", "")
      report = try JSONDecoder().decode(InspectorReport.self, from: Data(reply.utf8))
      dom = page
    }
    #expect(report?.reloads.map(\.outcome) == [.loaded, .failed])
    #expect(dom.contains("sounds.json reloaded: added pong; changed ping"), "\(dom.suffix(2_000))")
    #expect(dom.contains("sounds.json not reloaded, the previous map plays on"))
    #expect(dom.contains(#"events["ping"].volumDb: unknown key (did you mean volumeDb?)"#))
    #expect(dom.contains("a.wav -9.0 dB +0.00 st"))
  }

  /// The designer's map: `ping` to edit, `pong` in a layout of its own that a save must keep.
  static let original = #"""
    {
      "version": 1,
      "events": {
        "ping": { "play": "a.wav", "volumeDb": -3 },
        "pong": {   "play" : "b.wav",
                    "cooldown": 0.5 }
      }
    }

    """#

  @Test(
    "In a real browser a designer turns an event down 12 dB, auditions it (heard 12 dB lower) and saves: the file is the edited map, the backup the original",
    .enabled(if: HeadlessBrowser.isInstalled, "chromium is not installed (Scripts/test.sh installs it)"))
  func editAuditionSave() throws {
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    try Data(Self.original.utf8).write(to: file)
    var dom = ""
    var before = 0..<0
    var after = 0..<0
    let capture = try captureDiskOutput { engine, output in
      let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
      map.watchesFile = false
      let server = InspectorServer(
        engine: engine, soundMap: map, options: .init(allowsControl: true, allowsSaving: true))
      defer { server.stop() }
      let address = try server.start().absoluteString + "#edit=ping:-15"
      // The tone as the map plays it now.
      var start = output.framesWritten
      map.post("ping")
      #expect(output.waitForMore(seconds: 0.5))
      before = start..<output.framesWritten
      // The page edits, auditions and saves, each through the game thread (drained here, as a
      // game loop would); the audition is the post that plays while the page runs.
      let page = Locked<String?>(nil)
      Thread.detachNewThread {
        let dom = (try? HeadlessBrowser.dumpDOM(address)) ?? ""
        page.withLock { $0 = dom }
      }
      let played = map.statistics.played
      #expect(
        waitUntil(timeout: 300) {
          if map.statistics.played == played { start = output.framesWritten }
          engine.session.mailbox.drain()
          return page.withLock { $0 != nil }
        })
      #expect(map.statistics.played == played + 1)
      #expect(output.waitForMore(seconds: 0.5))
      after = start..<(start + before.count)
      dom = page.withLock { $0 } ?? ""
    }
    #expect(dom.contains(#"data-edited="saved""#), "\(dom.suffix(3_000))")
    let change = 20 * log10(Double(capture.left.peak(in: after) / capture.left.peak(in: before)))
    #expect(abs(change + 12) < 0.2, "the audition was \(change) dB from the original")
    // Saved: the edited entry in the fixed key order, every other byte as the designer wrote it,
    // and the original kept beside it.
    let saved = try String(contentsOf: file, encoding: .utf8)
    #expect(
      saved
        == Self.original.replacingOccurrences(
          of: #"{ "play": "a.wav", "volumeDb": -3 }"#, with: #"{ "play": "a.wav", "volumeDb": -15 }"#))
    #expect(
      try String(contentsOf: folder.appendingPathComponent("sounds.json.bak"), encoding: .utf8)
        == Self.original)
  }

  @Test(
    "A 20,000-event map is listed whole for the page, listed again after an edit, and the game thread only hands over its text"
  )
  func largeMapListing() throws {
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    let count = 20_000
    let events = (0..<count).map { #""e\#($0)":{"play":"a.wav","volumeDb":-\#($0 % 40)}"# }
    try Data(#"{"version":1,"events":{\#(events.joined(separator: ","))}}"#.utf8).write(to: file)
    _ = try captureDiskOutput { engine, _ in
      let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
      map.watchesFile = false
      let server = InspectorServer(engine: engine, soundMap: map, options: .init(allowsControl: true))
      defer { server.stop() }
      let port = UInt16(try #require(try server.start().port))
      let token = "token=\(server.token)"
      // Listed once per version: read twice, edited, read again. How long the game thread holds
      // the listing is the benchmark's to measure (map listing, up to 60,000 events).
      let answers = exchange(
        engine, port: port,
        [
          ("GET", "/map.json?\(token)", ""), ("GET", "/map.json?\(token)", ""),
          ("POST", "/map/event?\(token)&name=e19999&version=1", #"{"play":"b.wav"}"#),
          ("GET", "/map.json?\(token)", ""),
        ])
      #expect(answers.map(\.status) == [200, 200, 200, 200], "\(answers.map(\.status))")
      guard answers.count == 4 else { return }
      let first = try JSONDecoder().decode(InspectorMapState.self, from: Data(answers[0].body.utf8))
      let edited = try JSONDecoder().decode(InspectorMapState.self, from: Data(answers[3].body.utf8))
      #expect(first.events.count == count && first.version == 1)
      #expect(first.events["e12345"] == #"{"play":"a.wav","volumeDb":-25}"#)
      #expect(first.events["e19999"] == #"{"play":"a.wav","volumeDb":-39}"#)
      #expect(answers[1].body == answers[0].body)
      #expect(edited.events.count == count && edited.version == 2)
      #expect(edited.events["e19999"] == #"{ "play": "b.wav" }"#)  // written in the editor's layout
      #expect(edited.events["e0"] == #"{"play":"a.wav","volumeDb":-0}"#)
    }
  }

  /// `requests` sent off this thread, in order, while this thread drains the game's mailbox (the
  /// map routes answer from the game thread); each answer's status and body.
  func exchange(
    _ engine: AudioEngine, port: UInt16, _ requests: [(method: String, path: String, body: String)]
  ) -> [(status: Int, body: String)] {
    let answers = Locked<[(status: Int, body: String)]?>(nil)
    Thread.detachNewThread {
      let got = requests.map {
        RawConnection.request(port: port, method: $0.method, path: $0.path, body: Array($0.body.utf8)) ?? (
          -1, ""
        )
      }
      answers.withLock { $0 = got }
    }
    #expect(
      waitUntil(timeout: 300) {
        engine.session.mailbox.drain()
        return answers.withLock { $0 != nil }
      })
    return answers.withLock { $0 } ?? []
  }

  @Test(
    "The map routes: a stale version gets 409, a bad entry 400 with the parser's message, saving only when allowed, a file changed on disk 409; nothing written on a refusal"
  )
  func mapRoutes() throws {
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("sounds.json")
    _ = try captureDiskOutput { engine, _ in
      for (control, saving) in [(false, false), (true, false), (true, true)] {
        try Data(Self.original.utf8).write(to: file)
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("sounds.json.bak"))
        let map = try SoundMap(contentsOf: file, engine: engine, seed: 1)
        map.watchesFile = false
        let server = InspectorServer(
          engine: engine, soundMap: map, options: .init(allowsControl: control, allowsSaving: saving))
        defer { server.stop() }
        let port = UInt16(try #require(try server.start().port))
        let token = "token=\(server.token)"
        let entry = #"{"play":"a.wav","volumeDb":-9}"#
        let all = exchange(
          engine, port: port,
          [
            ("GET", "/map.json", ""), ("POST", "/map/event?name=ping&version=1", entry),
            ("POST", "/map/save", ""), ("POST", "/map/mix?version=1", #"{"music": -6}"#),
            ("POST", "/map/reload", ""),
            ("GET", "/map.json?\(token)", ""),
            ("POST", "/map/event?\(token)&name=ping&version=0", entry),
            ("POST", "/map/event?\(token)&name=ping&version=1", #"{"play":"a.wav","volumDb":-9}"#),
            (
              "POST", "/map/event?\(token)&name=ping&version=1", String(repeating: " ", count: 40_000) + entry
            ),
            ("POST", "/map/event?\(token)&name=ping&version=1", entry),
            ("POST", "/map/save?\(token)", ""),
          ])
        #expect(all.count == 11)
        guard all.count == 11 else { continue }
        let textWhenSaved = map.text
        #expect(all.prefix(5).allSatisfy { $0.status == 403 }, "no token, no answer: \(all.prefix(5))")
        // The rest numbered as if the refusals were two.
        let answers = Array(all.dropFirst(3))
        #expect(answers[2].status == 200)
        let state = try JSONDecoder().decode(InspectorMapState.self, from: Data(answers[2].body.utf8))
        #expect(state.version == 1 && state.events["ping"] == #"{ "play": "a.wav", "volumeDb": -3 }"#)
        #expect(state.files == ["a.wav", "b.wav", "c.wav", "d.wav"] && state.editingAllowed == control)
        if !control {
          #expect(answers[3...6].allSatisfy { $0.status == 403 }, "\(answers)")
        } else {
          #expect(answers[3].status == 409 && answers[3].body.contains(#""version":1"#), "\(answers[3])")
          #expect(
            answers[4].status == 400 && answers[4].body.contains("did you mean volumeDb?"), "\(answers[4])")
          #expect(answers[5].status == 413, "\(answers[5])")
          #expect(answers[6].status == 200 && answers[6].body.contains(#""version":2"#), "\(answers[6])")
          #expect(map.post("ping").first?.gainDecibels == -9)
          let mix = exchange(
            engine, port: port,
            [
              ("POST", "/map/mix?\(token)&version=2", #"{"music": -6}"#),
              ("POST", "/map/mix?\(token)&version=3", #"{"master": -6}"#),
              ("POST", "/map/mix?\(token)&version=3", #"["music"]"#),
              ("POST", "/map/mix?\(token)&version=3", #"{"mu\u0007sic": -6}"#),
              ("POST", "/map/event?\(token)&name=%07bell&version=3", entry),
              ("POST", "/map/event?\(token)&name=ping", entry),
              ("POST", "/map/event?\(token)&name=ping&version=3", #"{"play":"a.wav","category":"cuse"}"#),
              ("POST", "/control?\(token)", #"{"type":"post","event":"pnig"}"#),
              ("POST", "/control?\(token)", #"{"type":"post","event":"ping","parameters":{"surface":"x"}}"#),
            ])
          #expect(mix.map(\.status) == [200, 400, 400, 400, 400, 400, 400, 404, 400], "\(mix)")
          // An audition of a name the map lacks is not answered "posted": 404, with the name it meant.
          #expect(mix[7].body.contains(#"no event "pnig" in the map (did you mean ping?)"#), "\(mix[7])")
          #expect(mix[8].body.contains(#"ping reads no parameter "surface"; it reads none"#), "\(mix[8])")
          // A misspelt bus is refused, not made.
          #expect(mix[6].body.contains(#"no bus \"cuse\""#), "\(mix[6])")
          #expect(map.version == 3 && engine.core.busIndices.withLock { $0[SoundCategory("cuse")] == nil })
          #expect(map.text.contains(#""mix": { "buses": { "music": { "volumeDb": -6 } } }"#), "\(map.text)")
          #expect(abs(engine.bus("music").volume - 0.501) < 0.001)
          #expect(map.statistics.unknown.isEmpty, "\(map.statistics)")
        }
        if saving {
          #expect(answers[7].status == 200, "\(answers[7])")
          #expect(try String(contentsOf: file, encoding: .utf8) == textWhenSaved)
          // Changed on disk since: refused, and nothing written.
          let theirs = Data(Self.original.replacingOccurrences(of: "0.5", with: "0.25").utf8)
          try theirs.write(to: file)
          let again = exchange(engine, port: port, [("POST", "/map/save?\(token)", "")])
          #expect(again.first?.status == 409, "\(again)")
          #expect(try Data(contentsOf: file) == theirs)
          #expect(
            try String(contentsOf: folder.appendingPathComponent("sounds.json.bak"), encoding: .utf8)
              == Self.original)
        } else {
          #expect(answers[7].status == 403, "\(answers[7])")
          #expect(try String(contentsOf: file, encoding: .utf8) == Self.original)
          #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("sounds.json.bak").path))
        }
      }
    }
  }
}
