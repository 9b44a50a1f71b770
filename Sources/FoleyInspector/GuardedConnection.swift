import FoleyCore
import Foundation

/// Milliseconds on the monotonic clock.
func now() -> Int64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
}

/// A byte queue that is consumed from the front.
struct ByteQueue {
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
final class GuardedConnection {
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
struct FrameScanner {
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
