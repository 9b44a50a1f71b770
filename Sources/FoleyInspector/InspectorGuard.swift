import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The limits the inspector's front door enforces before a byte reaches the HTTP server.
struct GuardLimits: Sendable {
  /// Connections held at once; a new one past it closes the oldest that has not finished its
  /// request, or is answered 503 when every held connection is in use.
  var maximumConnections = 64
  /// Seconds a client has to send its whole request (head and body): 408 after it.
  var requestTimeout = 10.0
  /// Seconds a forwarded request may wait for the server's whole answer.
  var responseTimeout = 120.0
  /// Bytes in the request line (414 past it) and in one header line (431).
  var maximumLine = 8 * 1_024
  /// Bytes in the whole request head (431 past it).
  var maximumHead = 64 * 1_024
  /// Bytes in a request body (413 past it).
  var maximumBody = 64 * 1_024
  /// Bytes in one WebSocket message from a client, over all its frames: the connection closes
  /// past it.
  var maximumMessage = 1 << 20
  /// Whether only loopback peers are served (a server bound to loopback).
  var loopbackOnly = true
}

/// The inspector's front door: a poll loop on one thread of its own that owns the public
/// listening socket, holds each connection to the limits in ``GuardLimits`` and forwards what
/// passes to the HTTP server on a private Unix socket (in a directory only this user can open).
///
/// The HTTP server behind it (FlyingFox) has no connection cap, no request timeout, no line,
/// header or frame limits and accepts unmasked client frames; each of those let one local client,
/// with or without the token, take the page away from everyone. Here:
/// - the listening socket never stops accepting: past the cap the oldest unfinished request is
///   closed, and when descriptors run out a reserved one is freed to accept and close;
/// - a request must arrive whole within the request timeout, each line and the head within their
///   limits, scanned a buffer at a time;
/// - one request per connection (`Connection: close` is set), its body no longer than declared;
/// - after a WebSocket upgrade, each client frame is checked as its header arrives: unmasked
///   frames and messages over the limit close the connection before their payload is read.
final class InspectorGuard: Sendable {
  private let wake: (read: Int32, write: Int32)
  private let finished = DispatchSemaphore(value: 0)

  /// Starts guarding `listener` (a bound, listening socket it now owns), forwarding to the Unix
  /// socket at `upstream`.
  init(listener: Int32, upstream: String, limits: GuardLimits) throws(InspectorError) {
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else {
      close(listener)
      throw .cannotStart("cannot make a pipe: \(String(cString: strerror(errno)))")
    }
    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    wake = (pipeEnds[0], pipeEnds[1])
    let wakeRead = pipeEnds[0]
    let finished = finished
    let thread = Thread {
      var loop = GuardLoop(listener: listener, wake: wakeRead, upstream: upstream, limits: limits)
      loop.run()
      finished.signal()
    }
    thread.name = "foley.inspector.guard"
    thread.start()
  }

  /// Stops accepting, closes every connection and the listening socket; returns when they are.
  func stop() {
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
    finished.wait()
    close(wake.write)
    close(wake.read)
  }
}

/// Milliseconds on the monotonic clock.
private func now() -> Int64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
}

/// A byte queue that is consumed from the front.
private struct ByteQueue {
  private var bytes: [UInt8] = []
  private var start = 0

  var count: Int { bytes.count - start }
  var isEmpty: Bool { count == 0 }

  mutating func append(_ more: UnsafeRawBufferPointer) { bytes.append(contentsOf: more) }
  mutating func append(_ more: [UInt8]) { bytes += more }
  mutating func removeAll() {
    bytes = []
    start = 0
  }

  /// Writes what it can to `socket`; false when the socket failed.
  mutating func flush(to socket: Int32) -> Bool {
    while !isEmpty {
      let sent = bytes.withUnsafeBytes { all in
        send(socket, all.baseAddress! + start, count, Int32(MSG_NOSIGNAL))
      }
      if sent < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
      start += sent
    }
    removeAll()
    return true
  }
}

/// One client's connection and, once its request head passed, the server's.
private final class GuardedConnection {
  enum Phase {
    /// Reading the request head.
    case head
    /// Forwarding a plain request (its body, then the answer).
    case request
    /// Forwarding a WebSocket both ways.
    case webSocket
    /// Sending a refusal, then closing.
    case refusing
  }

  let client: Int32
  let accepted: Int64
  var upstream: Int32 = -1
  var phase = Phase.head
  var deadline: Int64
  var head: [UInt8] = []
  var lineStart = 0
  var bodyLeft = 0
  var toClient = ByteQueue()
  var toUpstream = ByteQueue()
  var upstreamClosed = false
  var frames = FrameScanner()

  init(client: Int32, accepted: Int64, deadline: Int64) {
    self.client = client
    self.accepted = accepted
    self.deadline = deadline
  }
}

/// Checks a client's WebSocket frames as they stream through, header by header.
private struct FrameScanner {
  private var header: [UInt8] = []
  private var payloadLeft: UInt64 = 0
  private var messageSize: UInt64 = 0

  enum Verdict { case pass, unmasked, tooLarge }

  /// Scans `bytes`; `.pass` when every frame header in them is acceptable.
  mutating func scan(_ bytes: UnsafeRawBufferPointer, maximumMessage: Int) -> Verdict {
    var index = 0
    while index < bytes.count {
      if payloadLeft > 0 {
        let step = Int(min(payloadLeft, UInt64(bytes.count - index)))
        payloadLeft -= UInt64(step)
        index += step
        continue
      }
      header.append(bytes[index])
      index += 1
      if header.count == 2, header[1] & 0x80 == 0 { return .unmasked }
      guard header.count >= 2 else { continue }
      let short = UInt64(header[1] & 0x7f)
      let size = 2 + (short == 126 ? 2 : short == 127 ? 8 : 0) + 4
      guard header.count == size else { continue }
      var length = short
      if short == 126 {
        length = UInt64(header[2]) << 8 | UInt64(header[3])
      } else if short == 127 {
        length = header[2..<10].reduce(0) { $0 << 8 | UInt64($1) }
      }
      let opcode = header[0] & 0x0f
      let isControl = opcode & 0x08 != 0
      if isControl {
        if length > 125 { return .tooLarge }
      } else {
        messageSize = opcode == 0 ? messageSize &+ length : length
        if length > UInt64(maximumMessage) || messageSize > UInt64(maximumMessage) { return .tooLarge }
      }
      payloadLeft = length
      header.removeAll(keepingCapacity: true)
    }
    return .pass
  }
}

/// The guard's state, owned by its thread.
private struct GuardLoop {
  let listener: Int32
  let wake: Int32
  let upstreamPath: String
  let limits: GuardLimits
  var connections: [GuardedConnection] = []
  /// A descriptor held in reserve, freed to accept (and close) a connection when the process has
  /// none left, so that the listening socket does not spin or stall.
  var spare: Int32 = open("/dev/null", O_RDONLY | O_CLOEXEC)
  var buffer = [UInt8](repeating: 0, count: 64 * 1_024)

  /// The most a side may have queued before the other side stops being read.
  let queueLimit = 256 * 1_024

  init(listener: Int32, wake: Int32, upstream: String, limits: GuardLimits) {
    self.listener = listener
    self.wake = wake
    self.upstreamPath = upstream
    self.limits = limits
  }

  mutating func run() {
    defer {
      for connection in connections { closeSockets(connection) }
      connections.removeAll()
      close(listener)
      if spare >= 0 { close(spare) }
    }
    while true {
      var polled = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
      polled.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
      for connection in connections {
        var clientEvents: Int32 = 0
        switch connection.phase {
        case .head, .refusing: clientEvents |= POLLIN
        case .request: if connection.bodyLeft > 0 { clientEvents |= POLLIN }
        case .webSocket: if connection.toUpstream.count < queueLimit { clientEvents |= POLLIN }
        }
        if !connection.toClient.isEmpty { clientEvents |= POLLOUT }
        // A descriptor with nothing asked of it is left out (-1): a hung-up socket would
        // otherwise wake the loop again and again.
        polled.append(
          pollfd(fd: clientEvents == 0 ? -1 : connection.client, events: Int16(clientEvents), revents: 0))
        var upstreamEvents: Int32 = 0
        if connection.upstream >= 0 {
          if !connection.upstreamClosed, connection.toClient.count < queueLimit { upstreamEvents |= POLLIN }
          if !connection.toUpstream.isEmpty { upstreamEvents |= POLLOUT }
        }
        polled.append(
          pollfd(
            fd: upstreamEvents == 0 ? -1 : connection.upstream, events: Int16(upstreamEvents), revents: 0))
      }
      let soonest = connections.map(\.deadline).min().map { max(0, $0 - now()) } ?? 1_000
      let ready = poll(&polled, nfds_t(polled.count), Int32(min(soonest, 1_000)))
      if ready < 0, errno != EINTR { return }
      if polled[0].revents != 0 { return }
      // Connections first (their indices match `polled`), then new ones.
      var index = connections.count - 1
      while index >= 0 {
        let clientEvents = Int32(polled[2 + 2 * index].revents)
        let upstreamEvents = Int32(polled[3 + 2 * index].revents)
        if !service(connections[index], clientEvents: clientEvents, upstreamEvents: upstreamEvents) {
          closeSockets(connections[index])
          connections.remove(at: index)
        }
        index -= 1
      }
      if polled[1].revents != 0 { acceptAll() }
    }
  }

  // MARK: Accepting

  mutating func acceptAll() {
    while true {
      var address = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let client = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          accept(listener, $0, &length)
        }
      }
      if client >= 0 {
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
      }
      if client < 0 {
        switch errno {
        case EINTR, ECONNABORTED: continue
        case EMFILE, ENFILE:
          // No descriptor left in the process: free the spare, take the connection, close it.
          guard spare >= 0 else { return }
          close(spare)
          let dropped = accept(listener, nil, nil)
          if dropped >= 0 { close(dropped) }
          spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
          if dropped < 0 { return }
          continue
        default: return
        }
      }
      if limits.loopbackOnly, UInt32(bigEndian: address.sin_addr.s_addr) >> 24 != 127 {
        close(client)
        continue
      }
      if connections.count >= limits.maximumConnections, !evictOldestUnfinished() {
        var busy = ByteQueue()
        busy.append(Self.response(503, "busy: too many connections to the inspector"))
        _ = busy.flush(to: client)
        close(client)
        continue
      }
      let time = now()
      connections.append(
        GuardedConnection(
          client: client, accepted: time, deadline: time + milliseconds(limits.requestTimeout)))
    }
  }

  /// Closes the oldest connection whose request has not arrived whole; false when there is none.
  mutating func evictOldestUnfinished() -> Bool {
    let candidates = connections.indices.filter {
      connections[$0].phase == .head || connections[$0].phase == .refusing
    }
    guard let oldest = candidates.min(by: { connections[$0].accepted < connections[$1].accepted }) else {
      return false
    }
    closeSockets(connections[oldest])
    connections.remove(at: oldest)
    return true
  }

  // MARK: Serving

  /// Moves bytes for one connection; false when it is done and should close.
  mutating func service(
    _ connection: GuardedConnection, clientEvents: Int32, upstreamEvents: Int32
  ) -> Bool {
    let time = now()
    if clientEvents & POLLOUT != 0 || (clientEvents & POLLIN != 0 && !connection.toClient.isEmpty) {
      guard connection.toClient.flush(to: connection.client) else { return false }
    }
    switch connection.phase {
    case .refusing:
      if clientEvents & (POLLIN | POLLHUP | POLLERR) != 0 {
        // Read and drop what the client still sends, so the refusal is not lost to a reset.
        let count = recv(connection.client, &buffer, buffer.count, 0)
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return false }
      }
      if connection.toClient.isEmpty { shutdown(connection.client, Int32(SHUT_WR)) }
      return time < connection.deadline
    case .head:
      if clientEvents & (POLLIN | POLLHUP | POLLERR) != 0 {
        guard readHead(connection) else { return false }
      }
      if connection.phase == .head, time >= connection.deadline {
        refuse(connection, 408, "the request did not arrive within \(Int(limits.requestTimeout)) s")
      }
      return true
    case .request, .webSocket:
      if clientEvents & (POLLIN | POLLHUP | POLLERR) != 0 {
        guard readClient(connection) else { return false }
      }
      if connection.phase == .refusing { return true }
      if upstreamEvents & POLLOUT != 0 {
        guard connection.toUpstream.flush(to: connection.upstream) else { return false }
      }
      if upstreamEvents & (POLLIN | POLLHUP | POLLERR) != 0 {
        let count = recv(connection.upstream, &buffer, buffer.count, 0)
        if count > 0 {
          buffer.withUnsafeBytes {
            connection.toClient.append(UnsafeRawBufferPointer(rebasing: $0[..<count]))
          }
          guard connection.toClient.flush(to: connection.client) else { return false }
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
          connection.upstreamClosed = true
        }
      }
      if connection.upstreamClosed, connection.toClient.isEmpty { return false }
      if connection.phase == .request, connection.bodyLeft > 0, time >= connection.deadline {
        refuse(connection, 408, "the request body did not arrive within \(Int(limits.requestTimeout)) s")
        return true
      }
      return connection.phase == .webSocket || time < connection.deadline
    }
  }

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
        refuse(connection, isFirst ? 414 : 431, isFirst ? "request line too long" : "header line too long")
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
      let isFirst = connection.lineStart == 0
      refuse(connection, isFirst ? 414 : 431, isFirst ? "request line too long" : "header line too long")
    } else if connection.head.count > limits.maximumHead {
      refuse(connection, 431, "request head too large")
    }
    return true
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
      connection.phase = .request
      connection.bodyLeft = declared
      passFromClient(connection, body)
      connection.deadline =
        connection.bodyLeft > 0
        ? connection.accepted + milliseconds(limits.requestTimeout)
        : now() + milliseconds(limits.responseTimeout)
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
        close(connection.upstream)
        connection.upstream = -1
        connection.toUpstream.removeAll()
        connection.toClient.removeAll()
        connection.phase = .refusing
        connection.deadline = now()
        return
      }
      connection.toUpstream.append(bytes)
    case .head, .refusing: break
    }
  }

  /// Answers `status` with `reason` and closes once it is sent (or after two seconds).
  func refuse(_ connection: GuardedConnection, _ status: Int, _ reason: String) {
    if connection.upstream >= 0 {
      close(connection.upstream)
      connection.upstream = -1
    }
    connection.head = []
    connection.toUpstream.removeAll()
    connection.toClient.removeAll()
    connection.toClient.append(Self.response(status, reason))
    _ = connection.toClient.flush(to: connection.client)
    connection.phase = .refusing
    connection.deadline = now() + 2_000
  }

  static func response(_ status: Int, _ reason: String) -> [UInt8] {
    let phrase =
      [
        400: "Bad Request", 408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
        414: "URI Too Long", 431: "Request Header Fields Too Large", 503: "Service Unavailable",
      ][status] ?? "Error"
    let body = reason + "\n"
    return Array(
      ("HTTP/1.1 \(status) \(phrase)\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)
  }

  /// A connection to the server's Unix socket (blocking connect: it is local and the server
  /// accepts at once; non-blocking after), or -1.
  func connectUpstream() -> Int32 {
    let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socket >= 0 else { return -1 }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let path = Array(upstreamPath.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      close(socket)
      return -1
    }
    _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
    return socket
  }

  func closeSockets(_ connection: GuardedConnection) {
    close(connection.client)
    if connection.upstream >= 0 { close(connection.upstream) }
  }

  func milliseconds(_ seconds: Double) -> Int64 { Int64(seconds * 1_000) }
}
