import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A plain TCP client for the inspector's tests: whole HTTP requests, raw bytes (malformed
/// requests and WebSocket frames), and what comes back, with timeouts so nothing hangs.
///
/// The default timeout is long on purpose: the inspector serves from Swift concurrency's shared
/// pool (two threads on a two-core machine), and the suite's synchronous tests running beside
/// it — a demo subprocess waited for, a disk capture — can hold both threads for tens of
/// seconds. A 10 s timeout once read such a wait as "no answer" (a CI run under load).
/// (Sendable so that a test may hand one to another thread to send from; it is used by one
/// thread at a time.)
public final class RawConnection: @unchecked Sendable {
  private let socket: Int32
  /// Whether the peer has closed the connection (a read returned end of file), as opposed to
  /// a read that timed out with nothing.
  public private(set) var peerClosed = false

  /// Connects to `host`:`port` (IPv4); nil when the connection is refused.
  public init?(host: String = "127.0.0.1", port: UInt16, timeout: Double = 120) {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    inet_pton(AF_INET, host, &address.sin_addr)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    socket = fd
  }

  deinit { close(socket) }

  /// Sends all of `bytes`; false when the connection failed first (the peer closed it).
  @discardableResult
  public func send(_ bytes: some Sequence<UInt8>) -> Bool {
    let data = Array(bytes)
    var sent = 0
    while sent < data.count {
      let count = data[sent...].withUnsafeBytes {
        Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if count <= 0 { return false }
      sent += count
    }
    return true
  }

  /// Opens a WebSocket on `path`; nil unless the server switched protocols.
  public static func webSocket(port: UInt16, path: String) -> RawConnection? {
    guard let connection = RawConnection(port: port) else { return nil }
    connection.send(
      Array(
        ("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
    let reply = String(decoding: connection.receive(), as: UTF8.self)
    return reply.hasPrefix("HTTP/1.1 101") ? connection : nil
  }

  /// Reads (and drops) what arrives until the peer closes; false when `timeout` seconds pass
  /// first.
  public func waitUntilClosed(timeout: Double = 120) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      _ = receive()
      if peerClosed { return true }
    }
    return false
  }

  /// Whatever arrives within the timeout (empty when the peer closed or nothing came).
  public func receive(maximum: Int = 1 << 20) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: maximum)
    let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
    if count == 0 { peerClosed = true }
    return count > 0 ? Array(buffer[..<count]) : []
  }

  /// Reads until the peer closes (or the timeout passes with nothing more).
  public func receiveAll() -> [UInt8] {
    var all: [UInt8] = []
    while true {
      let part = receive()
      if part.isEmpty { return all }
      all += part
    }
  }

  /// One HTTP/1.1 request with `Connection: close`; the status and the body.
  public static func request(
    port: UInt16, method: String = "GET", path: String, body: [UInt8] = []
  ) -> (status: Int, body: String)? {
    guard let connection = RawConnection(port: port) else { return nil }
    let head =
      "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n"
    connection.send(Array(head.utf8) + body)
    let response = String(decoding: connection.receiveAll(), as: UTF8.self)
    guard let line = response.split(separator: "\r\n").first,
      let status = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return nil }
    let parts = response.components(separatedBy: "\r\n\r\n")
    return (status, parts.dropFirst().joined(separator: "\r\n\r\n"))
  }

  /// A GET of `path`: its status, and the seconds the answer took.
  public static func timedRequest(port: UInt16, path: String) -> (status: Int?, seconds: Double) {
    let start = Date()
    let status = request(port: port, path: path)?.status
    return (status, Date().timeIntervalSince(start))
  }

  /// A client's WebSocket frame (masked, as RFC 6455 requires of clients).
  public static func maskedFrame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
    var frame: [UInt8] = [0x80 | opcode]
    if payload.count < 126 {
      frame.append(0x80 | UInt8(payload.count))
    } else {
      frame.append(0x80 | 126)
      frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
    }
    let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
    frame += mask
    frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    return frame
  }
}

/// This machine's first IPv4 address that is not loopback, if it has one.
public func nonLoopbackAddress() -> String? {
  var list: UnsafeMutablePointer<ifaddrs>?
  guard getifaddrs(&list) == 0, let first = list else { return nil }
  defer { freeifaddrs(list) }
  var current: UnsafeMutablePointer<ifaddrs>? = first
  while let entry = current {
    defer { current = entry.pointee.ifa_next }
    guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
      continue
    }
    var host = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
    let text = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet -> String in
      var raw = inet.pointee.sin_addr
      inet_ntop(AF_INET, &raw, &host, socklen_t(INET_ADDRSTRLEN))
      return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    if !text.hasPrefix("127.") { return text }
  }
  return nil
}
