import FoleyAudio
import FoleyInspector
import FoleyTestSupport
import Foundation
import Testing

/// The browser inspector on a real engine (SDL's disk driver) and a real server: what it serves,
/// what it refuses, and a real headless browser moving a bus slider.
@MainActor
@Suite("Browser inspector", .serialized)
struct InspectorServerTests {
  /// A looping tone on `bus`, and an inspector serving it; `body` gets both and the port.
  func withServer(
    allowsControl: Bool = true, bus: SoundCategory = "music",
    maximumConnections: Int = 64, requestTimeout: Double = 10,
    _ body: (AudioEngine, InspectorServer, UInt16, Voice, DiskOutput) throws -> Void
  ) throws -> DiskCapture {
    try captureDiskOutput { engine, output in
      var settings = SoundSettings()
      settings.category = bus
      let tone = try Sound(
        data: makeToneWAV(frequency: 441, duration: 1, amplitude: 0.5), name: "hum", engine: engine,
        settings: settings)
      let voice = engine.play(tone, loops: -1)
      #expect(waitUntil { voice.startFrame != nil })
      let server = InspectorServer(
        engine: engine,
        options: .init(
          allowsControl: allowsControl, maximumConnections: maximumConnections, requestTimeout: requestTimeout
        ))
      defer { server.stop() }
      let url = try server.start()
      #expect(url.host == "127.0.0.1" && url.query == "token=\(server.token)")
      try body(engine, server, UInt16(try #require(url.port)), voice, output)
    }
  }

  @Test("Without the token nothing is served; with it, the snapshot shows the voice playing")
  func token() throws {
    _ = try withServer { engine, server, port, voice, _ in
      for path in [
        "/", "/snapshot.json", "/snapshot.json?token=",
        "/snapshot.json?token=\(server.token.dropLast())\(server.token.hasSuffix("0") ? "1" : "0")",
      ] {
        #expect(RawConnection.request(port: port, path: path)?.status == 403, "\(path)")
      }
      // A path that does not exist says so only to a client with the token: without it, the
      // routes cannot be told from the rest.
      #expect(RawConnection.request(port: port, path: "/no-such-route")?.status == 403)
      #expect(RawConnection.request(port: port, path: "/stream/x/y")?.status == 403)
      #expect(RawConnection.request(port: port, path: "/no-such-route?token=\(server.token)")?.status == 404)
      let page = try #require(RawConnection.request(port: port, path: "/?token=\(server.token)"))
      #expect(page.status == 200 && page.body.contains("Foley inspector"))
      let reply = try #require(
        RawConnection.request(port: port, path: "/snapshot.json?token=\(server.token)"))
      #expect(reply.status == 200)
      let report = try JSONDecoder().decode(InspectorReport.self, from: Data(reply.body.utf8))
      #expect(report.audio.voices.map(\.id) == [voice.id])
      #expect(report.audio.voices.first?.state == .playing && report.audio.voices.first?.bus == "music")
      #expect(report.controlsEnabled)
      #expect(voice.isPlaying)
    }
  }

  @Test("Bad commands, junk and malformed WebSocket frames are refused, and the game plays on")
  func refusals() throws {
    _ = try withServer { engine, server, port, voice, output in
      let control = "/control?token=\(server.token)"
      let bad: [String] = [
        "", "not json", "[]", #"{"type":"volume","bus":"music","volume":7}"#,
        #"{"type":"volume","bus":"music","volume":"loud"}"#, #"{"type":"volume","bus":"nope","volume":0.5}"#,
        #"{"type":"explode"}"#, #"{"type":"mute","bus":"music"}"#, #"{"type":"post","event":"x"}"#,
        #"{"type":"post","event":"a\u0000b"}"#, String(repeating: " ", count: 10_000),
      ]
      for body in bad {
        let reply = try #require(
          RawConnection.request(port: port, method: "POST", path: control, body: Array(body.utf8)))
        #expect(reply.status == 400, "\(body.prefix(40)) → \(reply.status) \(reply.body)")
        #expect(reply.body.hasPrefix("bad command"), "\(body.prefix(40)) → \(reply.body)")
      }
      #expect(engine.bus("music").volume == 1)
      // Junk that is not HTTP, then a WebSocket that sends a malformed command and then a frame
      // a client may not send (unmasked).
      // (The server answers junk with nothing and drops it at its own 15 s timeout; a second
      // is enough to know the junk went in.)
      let junk = try #require(RawConnection(port: port, timeout: 1))
      junk.send([0x16, 0x03, 0x01, 0xff, 0x00] + Array(repeating: 0xAB, count: 3_000))
      _ = junk.receive()
      let socket = try #require(RawConnection.webSocket(port: port, path: "/stream?token=\(server.token)"))
      socket.send(
        RawConnection.maskedFrame(opcode: 1, payload: Array(#"{"type":"volume","bus":"music"}"#.utf8)))
      var replies = ""
      #expect(
        waitUntil(timeout: 120) {
          replies += String(decoding: socket.receive(), as: UTF8.self)
          return replies.contains(#"{"error":"bad command"#)
        })
      // A continuation with nothing to continue: a protocol error, the connection closes.
      socket.send(RawConnection.maskedFrame(opcode: 0, payload: Array("hello".utf8)))
      #expect(
        waitUntil(timeout: 120) {
          _ = socket.receive()
          return socket.peerClosed
        })
      // Still serving, still playing.
      #expect(RawConnection.request(port: port, path: "/snapshot.json?token=\(server.token)")?.status == 200)
      #expect(output.waitForMore(seconds: 0.1))
      #expect(voice.isPlaying && engine.bus("music").volume == 1)
      let good = RawConnection.request(
        port: port, method: "POST", path: control,
        body: Array(#"{"type":"volume","bus":"music","volume":0.5}"#.utf8))
      #expect(good?.status == 200)
      #expect(engine.bus("music").volume == 0.5)
    }
  }

  @Test("Controls are refused unless the game enables them")
  func controlsDisabled() throws {
    _ = try withServer(allowsControl: false) { engine, server, port, _, _ in
      let reply = RawConnection.request(
        port: port, method: "POST", path: "/control?token=\(server.token)",
        body: Array(#"{"type":"mute","bus":"music","muted":true}"#.utf8))
      #expect(reply?.status == 400 && reply?.body.contains("not enabled") == true)
      #expect(!engine.bus("music").isMuted)
    }
  }

  @Test(
    "A designer applies a snapshot from the page: the report shows it active at its intensity, the output drops by its decibels, and a release gives the bus back"
  )
  func snapshotFromThePage() throws {
    var before = 0..<0
    var during = 0..<0
    var after = 0..<0
    let capture = try withServer { engine, server, port, _, output in
      try engine.defineSnapshot(MixSnapshot("quiet", buses: ["music": .init(volumeDecibels: -12)]))
      #expect(output.waitForMore(seconds: 0.3))
      var start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      before = start..<output.framesWritten
      func send(_ command: String) -> String? {
        let reply = RawConnection.request(
          port: port, method: "POST", path: "/control?token=\(server.token)", body: Array(command.utf8))
        return reply?.status == 200 ? reply?.body : "status \(reply?.status ?? 0): \(reply?.body ?? "")"
      }
      #expect(
        send(#"{"type":"snapshot","name":"quiet","intensity":1,"tween":0.1}"#)
          == "snapshot quiet at 1.0 over 0.1 s\n")
      let refused = send(#"{"type":"snapshot","name":"quit"}"#)
      #expect(
        refused?.contains(#"no mix snapshot "quit" (did you mean "quiet"?)"#) == true, "\(refused ?? "")")
      let reply = try #require(
        RawConnection.request(port: port, path: "/snapshot.json?token=\(server.token)"))
      let report = try JSONDecoder().decode(InspectorReport.self, from: Data(reply.body.utf8))
      #expect(report.audio.snapshots.map(\.name) == ["quiet"])
      #expect(
        report.audio.snapshots.first?.intensity == 1 && report.audio.snapshots.first?.buses == ["music"])
      #expect(output.waitForMore(seconds: 0.4))
      start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      during = start..<output.framesWritten
      #expect(send(#"{"type":"snapshot","name":"quiet","intensity":0}"#) == "released quiet\n")
      #expect(engine.activeSnapshots.isEmpty)
      #expect(output.waitForMore(seconds: 0.4))
      start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      after = start..<output.framesWritten
    }
    let drop = 20 * log10(capture.left.rms(in: during) / capture.left.rms(in: before))
    #expect(abs(drop + 12) < 0.2, "the bus moved by \(drop) dB")
    let back = 20 * log10(capture.left.rms(in: after) / capture.left.rms(in: before))
    #expect(abs(back) < 0.2, "released, the bus is \(back) dB from where it was")
  }

  @Test(
    "In a real browser the page lists the snapshots, and a snapshot's apply button takes the bus down in the output",
    .enabled(if: HeadlessBrowser.isInstalled, "chromium is not installed (Scripts/test.sh installs it)"))
  func browserSnapshot() throws {
    var before = 0..<0
    var after = 0..<0
    var dom = ""
    let capture = try withServer { engine, server, _, _, output in
      try engine.defineSnapshot(MixSnapshot("quiet", buses: ["music": .init(volumeDecibels: -12)]))
      #expect(output.waitForMore(seconds: 0.3))
      let start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      before = start..<output.framesWritten
      let url = try #require(server.url)
      dom = try HeadlessBrowser.dumpDOM(url.absoluteString + "#apply=quiet")
      #expect(waitUntil(timeout: 120) { engine.activeSnapshots == ["quiet": 1] })
      #expect(output.waitForMore(seconds: 0.8))
      let settled = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      after = settled..<output.framesWritten
    }
    #expect(dom.contains(#"data-snapshot="quiet""#), "the page lists the snapshot")
    #expect(dom.contains(#"data-applied="quiet""#))
    let drop = 20 * log10(capture.left.rms(in: after) / capture.left.rms(in: before))
    #expect(abs(drop + 12) < 0.2, "the bus moved by \(drop) dB")
  }

  @Test(
    "A loopback server cannot be reached from another address",
    .enabled(if: nonLoopbackAddress() != nil, "this machine has no address but loopback"))
  func loopbackOnly() throws {
    _ = try withServer { _, server, port, _, _ in
      let elsewhere = try #require(nonLoopbackAddress())
      #expect(RawConnection(host: elsewhere, port: port) == nil, "connected through \(elsewhere)")
      #expect(RawConnection.request(port: port, path: "/snapshot.json?token=\(server.token)")?.status == 200)
    }
  }

  @Test(
    "In a real browser the page shows the voice, and its slider turns the bus down in the output",
    .enabled(if: HeadlessBrowser.isInstalled, "chromium is not installed (Scripts/test.sh installs it)"))
  func browserSlider() throws {
    var before = 0..<0
    var after = 0..<0
    var dom = ""
    let capture = try withServer { engine, server, _, _, output in
      #expect(output.waitForMore(seconds: 0.3))
      let start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      before = start..<output.framesWritten
      let url = try #require(server.url)
      dom = try HeadlessBrowser.dumpDOM(url.absoluteString + "#set=music:0.25")
      #expect(waitUntil(timeout: 120) { engine.bus("music").volume == 0.25 })
      #expect(output.waitForMore(seconds: 0.3))
      let settled = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      after = settled..<output.framesWritten
    }
    #expect(HeadlessBrowser.count(#"class="voice state-playing""#, in: dom) == 1)
    #expect(dom.contains(#"data-set="music:0.25""#))
    let ratio = capture.left.rms(in: after) / capture.left.rms(in: before)
    #expect(abs(20 * log10(ratio) - 20 * log10(0.25)) < 0.2, "the bus moved by \(20 * log10(ratio)) dB")
  }

  @Test("20,000 random and mutated commands: each parses into a valid command or a typed error")
  func commandFuzz() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    let seeds = [
      #"{"type":"volume","bus":"music","volume":0.5}"#, #"{"type":"mute","bus":"sfx","muted":true}"#,
      #"{"type":"post","event":"ball.hit"}"#, #"{"type":"solo","bus":"sfx","soloed":true}"#,
      #"{"type":"post","event":"ball.hit","parameters":{"surface":"player","speed":3,"hard":true}}"#,
      #"{"type":"post","event":"ball.hit","position":[300,-120.5]}"#,
      #"{"type":"snapshot","name":"muffled","intensity":0.5,"tween":0.25}"#,
    ].map { Array($0.utf8) }
    var parsed = 0
    for round in 0..<20_000 {
      var bytes = seeds[round % seeds.count]
      if round % 4 == 0 {
        bytes = (0..<Int(next() % 64)).map { _ in UInt8(truncatingIfNeeded: next()) }
      } else {
        for _ in 0..<(1 + Int(next() % 4)) where !bytes.isEmpty {
          let index = Int(next() % UInt64(bytes.count))
          switch next() % 3 {
          case 0: bytes[index] = UInt8(truncatingIfNeeded: next())
          case 1: bytes.remove(at: index)
          default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: index)
          }
        }
      }
      do {
        switch try InspectorCommand(json: bytes) {
        case .volume(let bus, let volume): #expect(!bus.isEmpty && (0...1).contains(volume))
        case .mute(let bus, _), .solo(let bus, _): #expect(!bus.isEmpty)
        case .post(let event, let parameters, let position):
          #expect(position.map { abs($0.x) <= 1e6 && abs($0.y) <= 1e6 } ?? true)
          #expect(!event.isEmpty && event.utf8.count <= 256 && parameters.count <= 16)
          #expect(parameters.keys.allSatisfy { !$0.isEmpty && $0.utf8.count <= 256 })
        case .snapshot(let name, let intensity, let tween):
          #expect(!name.isEmpty && (0...1).contains(intensity) && (0...3_600).contains(tween))
        }
        parsed += 1
      } catch {
        #expect(error.description.hasPrefix("bad command"))
      }
    }
    #expect(parsed > 100)  // some mutations leave a command whole (a changed name, a digit)
  }
}
