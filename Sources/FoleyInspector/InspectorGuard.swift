import FoleyCore
import Foundation

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

/// The guard's state, owned by its thread.
struct GuardLoop {
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
  /// The most entries one `poll` may take: the process's descriptor limit (beyond it `poll` fails
  /// with EINVAL). Each connection takes two entries, the wake pipe and the listener one each.
  var pollLimit = max(4, SystemCall.descriptorLimit)

  /// The most connections kept at once: the configured number, within what `poll` can watch.
  var connectionLimit: Int { max(1, min(limits.maximumConnections, (pollLimit - 2) / 2)) }

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
      if ready < 0 {
        // The guard outlives a failed poll: the limit is read again (it may have been lowered),
        // and connections are let go until the rest fit; only the wake pipe ends the loop.
        let reason = errno
        guard reason != EINTR else { continue }
        pollLimit = max(4, SystemCall.descriptorLimit)
        let fit = reason == EINVAL ? connectionLimit : max(0, connections.count - 1)
        while connections.count > fit {
          closeSockets(connections.removeFirst())
        }
        // Nothing left to let go: wait a little rather than fail again at once.
        if connections.isEmpty { usleep(10_000) }
        continue
      }
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
      if connections.count >= connectionLimit, !evictOldestUnfinished() {
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
      return time < connection.deadline  // a WebSocket's is never
    }
  }

  /// Answers `status` with `reason` and closes once it is sent (or after two seconds).
  func refuse(_ connection: GuardedConnection, _ status: Int, _ reason: String) {
    abandon(connection, closingIn: 2_000)
    connection.toClient.append(Self.response(status, reason))
    _ = connection.toClient.flush(to: connection.client)
  }

  /// Drops the server's side and everything queued; the client's closes within `milliseconds`
  /// (once what is then queued for it is sent).
  func abandon(_ connection: GuardedConnection, closingIn milliseconds: Int64) {
    if connection.upstream >= 0 {
      close(connection.upstream)
      connection.upstream = -1
    }
    connection.head = []
    connection.toUpstream.removeAll()
    connection.toClient.removeAll()
    connection.phase = .refusing
    connection.deadline = now() + milliseconds
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
    let socket = SystemCall.streamSocket(domain: AF_UNIX, nonBlocking: false)
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
