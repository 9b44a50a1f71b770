import FoleyTestSupport
import Foundation
import Testing

/// `foley-demo --inspector`: a running headless demo, looked at from a real browser.
@Suite("The demo's browser inspector", .serialized)
struct InspectorDemoTests {
  @Test(
    "The page, in headless chromium, shows the voices, music and events of a running headless demo",
    .enabled(if: HeadlessBrowser.isInstalled, "chromium is not installed (Scripts/test.sh installs it)"))
  func pageShowsTheDemo() throws {
    // Paced to the wall clock (no --fast): the game runs while the browser looks, for as long as
    // the browser takes (a loaded machine took more than 25 s to dump the page, which then found
    // the demo gone: "disconnected"). Once the page is read, SIGTERM ends it: SDL makes the
    // signal a quit event, and the demo ends its run as a player's quit does.
    // Level 3: walls and doors between the player and the wind, the balls and the chimes.
    let (process, out, address, printed) = try startInspectedDemo(seconds: 900, arguments: ["--level", "3"])
    defer { if process.isRunning { process.terminate() } }
    let url = address.absoluteString
    #expect(url.contains("?token=") && url.count > 60)
    let dom = try HeadlessBrowser.dumpDOM(url)
    #expect(HeadlessBrowser.count(#"class="voice state-"#, in: dom) >= 10, "voices on the page")
    #expect(HeadlessBrowser.count(#"data-bus="music""#, in: dom) == 1)
    #expect(dom.contains("Calm Waters"), "the music's title")
    #expect(HeadlessBrowser.count(#"class="event""#, in: dom) >= 1, "the sound map's posts")
    // Each voice heard through the level's geometry: its walls and its way, a door for some.
    #expect(dom.contains("<th>walls dB</th>") && dom.contains("<td>portal "), "the voices' paths")
    #expect(dom.contains(#"id="status" class="live""#))
    // The sound map's editor, with the game's side the map knows: its music states, the stems'
    // intensity parameter, and the values of the surface switch for an audition.
    #expect(dom.contains(#"<option value="ball.hit">ball.hit</option>"#), "the map's events to edit")
    #expect(dom.contains(#"id="musicState""#) && dom.contains(#"<option value="tense">tense</option>"#))
    #expect(dom.contains(#"data-parameter="balls""#) && dom.contains(#"data-parameter="surface""#))
    // Without the token the same server refuses.
    let withoutToken = url.replacingOccurrences(of: "?token=", with: "?nothing=")
    #expect(!(try HeadlessBrowser.dumpDOM(withoutToken, budget: 500)).contains("class=\"voice"))
    #expect(process.isRunning, "the demo ended before the browser was done")
    process.terminate()
    process.waitUntilExit()
    let rest = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 0, "\(printed)\(rest)")
  }

  /// Starts the headless demo with its inspector, paced to the wall clock for `seconds`, under a
  /// limit of `openFiles` descriptors if given; returns the process, its output pipe, the
  /// inspector's address and what it printed up to that.
  func startInspectedDemo(
    seconds: Int, openFiles: Int? = nil, arguments: [String] = []
  ) throws -> (Process, Pipe, URL, String) {
    let script = temporaryFile("inspected.json")
    try Data(#"{"duration": \#(seconds), "step": 0.0166667, "events": []}"#.utf8).write(to: script)
    let process = try demoProcess(
      ["--headless", "--script", script.path, "--inspector"] + arguments,
      limits: openFiles.map { ["-n", "\($0)"] } ?? [])
    process.currentDirectoryURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    var environment = ProcessInfo.processInfo.environment
    environment["SDL_AUDIODRIVER"] = "dummy"
    environment["SDL_VIDEODRIVER"] = "dummy"
    process.environment = environment
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    // The address comes first, written as soon as the server listens.
    var printed = ""
    #expect(
      waitUntil(timeout: 60) {
        let chunk = out.fileHandleForReading.availableData
        printed += String(decoding: chunk, as: UTF8.self)
        return printed.contains("inspector: http://127.0.0.1:") || chunk.isEmpty
      })
    let line = try #require(printed.split(separator: "\n").first { $0.hasPrefix("inspector: ") })
    let url = try #require(URL(string: String(line.dropFirst("inspector: ".count))))
    try? FileManager.default.removeItem(at: script)  // read at start-up, before the address
    return (process, out, url, printed)
  }

  /// The descriptor limit, how many connections a client holds open, and what each has sent.
  struct HeldConnections: Sendable, CustomTestStringConvertible {
    let openFiles: Int
    let count: Int
    let sent: String
    var testDescription: String { "\(count) held at \(openFiles) open files, each sent \"\(sent)\"" }
  }

  @Test(
    "A game at a low descriptor limit keeps its inspector while a client holds more connections than poll could watch",
    arguments: [
      HeldConnections(openFiles: 1_024, count: 1_100, sent: "GET /snapshot.json?tok"),
      HeldConnections(openFiles: 64, count: 40, sent: ""),
    ])
  func heldConnections(_ held: HeldConnections) throws {
    let (process, _, url, _) = try startInspectedDemo(seconds: 20, openFiles: held.openFiles)
    defer { if process.isRunning { process.terminate() } }
    let port = UInt16(try #require(url.port))
    let snapshot = "/snapshot.json?" + (url.query ?? "")
    func goodRequest() -> (status: Int?, seconds: Double) {
      RawConnection.timedRequest(port: port, path: snapshot)
    }
    #expect(goodRequest().status == 200)
    // Each held connection has sent the start of a request (or nothing) and nothing more.
    var connections: [RawConnection] = []
    for _ in 0..<held.count {
      guard let connection = RawConnection(port: port, timeout: 5) else { break }
      if !held.sent.isEmpty { connection.send(Array(held.sent.utf8)) }
      connections.append(connection)
    }
    #expect(connections.count == held.count, "only \(connections.count) connections were made")
    let during = goodRequest()
    #expect(during.status == 200 && during.seconds < 10, "during: \(during)")
    connections.removeAll()
    let after = goodRequest()
    #expect(after.status == 200 && after.seconds < 10, "after: \(after)")
    #expect(process.isRunning)
  }
}

@Suite("The demo's inspector panel", .serialized)
struct InspectorPanelTests {
  /// The distinct colours in the side panel's area of a screenshot (1140×600 BMP).
  func panelColours(keys: [String]) throws -> Int {
    let shot = temporaryFile("panel.bmp")
    defer { try? FileManager.default.removeItem(at: shot) }
    let events = keys.flatMap { key in
      [["at": 0.1, "event": "key", "key": key], ["at": 0.15, "event": "key", "key": key, "up": true]]
    }
    let run = try runDemo(
      script: ["duration": 2, "events": events], arguments: ["--fast", "--screenshot", shot.path])
    #expect(run.status == 0, "\(run.errors)")
    let pixels = try screenshotPixels(shot)
    let width = ScriptedRunTests.screenWidth
    try #require(pixels.count == width * 600)
    // Rows are bottom-up; the inspector spans x 802…1136 and y 90…440 from the top, over the side
    // panel's radar and keys.
    var colours = Set<UInt32>()
    for row in 90..<440 {
      for column in 802..<1_136 { colours.insert(pixels[(599 - row) * width + column] & 0xFF_FFFF) }
    }
    return colours.count
  }

  @Test("I shows the panel: bus meters, a spectrum in 64 hues, the voices and the events")
  func panel() throws {
    let without = try panelColours(keys: [])
    let with = try panelColours(keys: ["i"])
    #expect(without < 40, "\(without) colours where only the radar and the keys are drawn")
    #expect(with > without + 40, "\(with) colours with the panel (the spectrum's bands each have their own)")
  }
}
