import FoleyCore
import Foundation

/// The guard's reading of requests: the head against its limits, the rewritten request sent on,
/// a plain body up to its length, a WebSocket's frames checked header by header.
extension GuardLoop {
  /// Reads what the client sent of its head; checks the limits; forwards the request when the
  /// head is whole. False when the client is gone.
  mutating func readHead(_ connection: GuardedConnection) -> Bool {
    let count = recv(connection.client, &buffer, buffer.count, 0)
    if count == 0 { return false }
    if count < 0 { return errno == EAGAIN || errno == EINTR }
    let scanFrom = connection.head.count
    connection.head += buffer[..<count]
    var index = scanFrom
    while index < connection.head.count {
      guard let newline = connection.head[index...].firstIndex(of: 0x0A) else { break }
      let line = newline - connection.lineStart
      let isFirst = connection.lineStart == 0
      if line > limits.maximumLine {
        refuseLongLine(connection)
        return true
      }
      let isEmpty = line == 0 || (line == 1 && connection.head[connection.lineStart] == 0x0D)
      connection.lineStart = newline + 1
      index = newline + 1
      if isEmpty, !isFirst {
        let rest = Array(connection.head[index...])
        connection.head.removeSubrange(index...)
        forward(connection, body: rest)
        return true
      }
    }
    if connection.head.count - connection.lineStart > limits.maximumLine {
      refuseLongLine(connection)
    } else if connection.head.count > limits.maximumHead {
      refuse(connection, 431, "request head too large")
    }
    return true
  }

  /// The line being read is over the limit: 414 for the request line, 431 for a header.
  func refuseLongLine(_ connection: GuardedConnection) {
    let isFirst = connection.lineStart == 0
    refuse(connection, isFirst ? 414 : 431, isFirst ? "request line too long" : "header line too long")
  }

  /// The head is whole: checks it, connects to the server and sends it (rewritten to one request
  /// per connection), with whatever of the body came with it.
  mutating func forward(_ connection: GuardedConnection, body: [UInt8]) {
    // Split as bytes: in a Swift string "\r\n" is one character, not a "\r" and a "\n".
    let lines = connection.head.split(separator: 0x0A)
      .map { Substring(String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)) }
      .filter { !$0.isEmpty }
    connection.head = []
    guard let requestLine = lines.first, requestLine.split(separator: " ").count == 3 else {
      refuse(connection, 400, "malformed request line")
      return
    }
    var kept: [Substring] = [requestLine]
    var length: Int?
    var isUpgrade = false
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else {
        refuse(connection, 400, "malformed header line")
        return
      }
      let name = line[..<colon].lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      switch name {
      case "content-length":
        guard let declared = Int(value), declared >= 0, length == nil || length == declared else {
          refuse(connection, 400, "bad Content-Length")
          return
        }
        length = declared
      case "transfer-encoding":
        refuse(connection, 411, "a body needs a Content-Length")
        return
      case "upgrade":
        isUpgrade = value.lowercased() == "websocket"
      default: break
      }
      kept.append(line)
    }
    let declared = length ?? 0
    if declared > limits.maximumBody {
      refuse(connection, 413, "request body over \(limits.maximumBody) bytes")
      return
    }
    if !isUpgrade {
      kept.removeAll { $0.lowercased().hasPrefix("connection:") || $0.lowercased().hasPrefix("keep-alive:") }
      kept.append("Connection: close")
    }
    let upstream = connectUpstream()
    guard upstream >= 0 else {
      refuse(connection, 503, "the inspector is not serving")
      return
    }
    connection.upstream = upstream
    connection.toUpstream.append(Array((kept.joined(separator: "\r\n") + "\r\n\r\n").utf8))
    if isUpgrade {
      // A WebSocket lasts as long as both ends want it: no deadline.
      connection.phase = .webSocket
      connection.deadline = .max
      connection.bodyLeft = 0
      if !body.isEmpty { passFromClient(connection, body) }
    } else {
      // The body keeps the request's deadline; once it is whole, the answer has its own.
      connection.phase = .request
      connection.bodyLeft = declared
      passFromClient(connection, body)
    }
  }

  /// Reads from the client of a forwarded request; false when the connection should close.
  mutating func readClient(_ connection: GuardedConnection) -> Bool {
    let count = recv(connection.client, &buffer, buffer.count, 0)
    if count == 0 {
      // A client that closes its side has nothing more to send; a WebSocket ends with it.
      return connection.phase == .request && connection.bodyLeft == 0
    }
    if count < 0 { return errno == EAGAIN || errno == EINTR }
    passFromClient(connection, Array(buffer[..<count]))
    return true
  }

  /// Queues the client's bytes for the server: a plain request's body up to its length (the rest
  /// is dropped), a WebSocket's frames once their headers pass.
  mutating func passFromClient(_ connection: GuardedConnection, _ bytes: [UInt8]) {
    switch connection.phase {
    case .request:
      let taken = bytes.prefix(connection.bodyLeft)
      connection.bodyLeft -= taken.count
      connection.toUpstream.append(Array(taken))
      if connection.bodyLeft == 0 { connection.deadline = now() + milliseconds(limits.responseTimeout) }
    case .webSocket:
      let verdict = bytes.withUnsafeBytes {
        connection.frames.scan($0, maximumMessage: limits.maximumMessage)
      }
      guard verdict == .pass else {
        // RFC 6455 §5.1: a server that receives an unmasked frame closes the connection. A frame
        // or message over the limit is refused the same way, before its payload is read.
        abandon(connection, closingIn: 0)
        return
      }
      connection.toUpstream.append(bytes)
    case .head, .refusing: break
    }
  }
}
