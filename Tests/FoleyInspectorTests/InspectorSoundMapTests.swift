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
      map.addReloadObserver { heard.append($0) }
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
}
