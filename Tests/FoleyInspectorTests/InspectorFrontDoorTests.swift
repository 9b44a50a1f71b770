import FoleyAudio
import FoleyInspector
import FoleyTestSupport
import Foundation
import Testing

/// The inspector's front door against a local client that wants to take the page away from
/// everyone: held connections, endless lines, huge and unmasked WebSocket frames. Each attack
/// runs on a real server; the page must answer a good request during it and after it.
extension InspectorServerTests {
  /// A good request's status, and how long it took.
  func goodRequest(_ port: UInt16, _ server: InspectorServer) -> (status: Int?, seconds: Double) {
    RawConnection.timedRequest(port: port, path: "/snapshot.json?token=\(server.token)")
  }

  @Test("A request that does not arrive whole within the request timeout is answered 408 and closed")
  func slowRequests() throws {
    _ = try withServer(requestTimeout: 1) { _, server, port, _, _ in
      let slow = (0..<40).compactMap { _ in RawConnection(port: port) }
      for connection in slow {
        connection.send(Array("GET /snapshot.json?token=\(server.token) HTTP/1.1\r\n".utf8))
      }
      // A body that stops short of its length is as slow as a head that does.
      let shortBody = try #require(RawConnection(port: port))
      shortBody.send(
        Array("POST /control?token=\(server.token) HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"type\":".utf8))
      for connection in slow + [shortBody] {
        let reply = String(decoding: connection.receiveAll(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 408"), "\(reply.prefix(40))")
        #expect(connection.peerClosed)
      }
      #expect(goodRequest(port, server).status == 200)
    }
  }

  @Test("Past the connection cap the oldest unfinished request makes room; in-use connections never do")
  func connectionCap() throws {
    _ = try withServer(maximumConnections: 2) { _, server, port, _, _ in
      let first = try #require(RawConnection.webSocket(port: port, path: "/stream?token=\(server.token)"))
      let second = try #require(RawConnection.webSocket(port: port, path: "/stream?token=\(server.token)"))
      // Both held connections are in use: a third is told so.
      let third = try #require(RawConnection(port: port))
      let reply = String(decoding: third.receiveAll(), as: UTF8.self)
      #expect(reply.hasPrefix("HTTP/1.1 503"), "\(reply.prefix(40))")
      // Both streams still run.
      #expect(!first.receive().isEmpty && !second.receive().isEmpty)
      _ = (first, second)
    }
    _ = try withServer(maximumConnections: 2) { _, server, port, _, _ in
      let idle = (0..<2).compactMap { _ in RawConnection(port: port) }
      #expect(goodRequest(port, server).status == 200)
      #expect(idle.first?.waitUntilClosed() == true, "the oldest idle connection was not closed")
    }
  }

  @Test("Endless request lines and headers are refused as their limits pass, and the page answers meanwhile")
  func endlessLines() throws {
    _ = try withServer { _, server, port, _, _ in
      // Two clients each send 3 MiB with no newline, at once.
      let endless = (0..<2).compactMap { _ in RawConnection(port: port) }
      try #require(endless.count == 2)
      let group = DispatchGroup()
      for connection in endless {
        DispatchQueue.global().async(group: group) {
          connection.send(Array("GET /".utf8) + Array(repeating: UInt8(ascii: "a"), count: 3 << 20))
        }
      }
      let during = goodRequest(port, server)
      #expect(during.status == 200 && during.seconds < 10, "during: \(during)")
      group.wait()
      for connection in endless {
        let reply = String(decoding: connection.receiveAll(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 414"), "\(reply.prefix(40))")
      }
      let cases: [(String, Int)] = [
        (
          "GET /?token=\(server.token) HTTP/1.1\r\nX-Long: \(String(repeating: "b", count: 9_000))\r\n\r\n",
          431
        ),
        (
          "GET /?token=\(server.token) HTTP/1.1\r\n"
            + String(repeating: "X-Many: 0123456789\r\n", count: 4_000), 431
        ),
        ("POST /control?token=\(server.token) HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", 413),
        ("POST /control?token=\(server.token) HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
        (
          "POST /control?token=\(server.token) HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
          400
        ),
      ]
      for (request, status) in cases {
        let connection = try #require(RawConnection(port: port))
        connection.send(Array(request.utf8))
        let reply = String(decoding: connection.receiveAll(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 \(status)"), "\(request.prefix(50)) → \(reply.prefix(40))")
      }
      let after = goodRequest(port, server)
      #expect(after.status == 200 && after.seconds < 10, "after: \(after)")
    }
  }

  @Test("A WebSocket frame declaring 2 GiB closes the connection before its payload is held")
  func hugeFrame() throws {
    _ = try withServer { engine, server, port, _, _ in
      let socket = try #require(RawConnection.webSocket(port: port, path: "/stream?token=\(server.token)"))
      let before = residentBytes()
      var header: [UInt8] = [0x81, 0x80 | 127]
      header += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(1 << 31) >> (56 - 8 * $0)) }
      header += [1, 2, 3, 4]
      var sent = 0
      if socket.send(header) {
        let chunk = [UInt8](repeating: 0x20, count: 1 << 20)
        while sent < 64 << 20, socket.send(chunk) { sent += chunk.count }
      }
      #expect(sent < 64 << 20, "64 MiB of the frame's payload were taken")
      #expect(socket.waitUntilClosed())
      #expect(residentBytes() - before < 32 << 20, "memory grew by \(residentBytes() - before) bytes")
      #expect(goodRequest(port, server).status == 200)
      #expect(engine.bus("music").volume == 1)
    }
  }

  @Test("An unmasked client frame closes the connection, and its command is not carried out")
  func unmaskedFrame() throws {
    _ = try withServer { engine, server, port, _, _ in
      let socket = try #require(RawConnection.webSocket(port: port, path: "/stream?token=\(server.token)"))
      let command = Array(#"{"type":"volume","bus":"music","volume":0.25}"#.utf8)
      socket.send([0x81, UInt8(command.count)] + command)
      #expect(socket.waitUntilClosed())
      #expect(engine.bus("music").volume == 1)
      // The same command masked is carried out: the refusal was the mask's.
      let masked = try #require(RawConnection.webSocket(port: port, path: "/stream?token=\(server.token)"))
      masked.send(RawConnection.maskedFrame(opcode: 1, payload: command))
      #expect(waitUntil(timeout: 120) { engine.bus("music").volume == 0.25 })
      _ = masked
    }
  }
}
