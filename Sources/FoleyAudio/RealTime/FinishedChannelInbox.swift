import Synchronization

/// Where the mix posts the channels that stopped.
///
/// The ``VoiceMixer`` posts a voice that played out from the mixing thread, and the backend
/// posts a channel it halts, from the audio queue; both post while holding the audio lock, so
/// they may neither block nor allocate: the channel goes into this fixed ring and the queue is
/// signalled. The lock serialises the producers (the embedded mixer holds its own lock the same
/// way), so the ring has a single producer at a time and a single consumer, the queue.
///
/// Invariant behind `@unchecked Sendable`: `buffer[i]` is written only by the producer before it
/// publishes `tail` (release) and read only by the consumer after it loads `tail` (acquire) and
/// before it publishes `head`. If the ring is ever full the post is dropped and `overflowed` set,
/// and the queue then checks every channel it believes busy.
package final class FinishedChannelInbox: @unchecked Sendable {
  private let capacity: Int
  private let buffer: UnsafeMutablePointer<Int32>
  private let head = Atomic<Int>(0)
  private let tail = Atomic<Int>(0)
  private let overflowed = Atomic<Bool>(false)
  package let wake: WakeSignal

  package init(capacity: Int = 8_192, wake: WakeSignal) {
    self.capacity = capacity
    self.wake = wake
    buffer = .allocate(capacity: capacity)
  }

  deinit { buffer.deallocate() }

  package func post(_ channel: Int32) {
    let end = tail.load(ordering: .relaxed)
    if end - head.load(ordering: .acquiring) >= capacity {
      overflowed.store(true, ordering: .releasing)
    } else {
      buffer[end % capacity] = channel
      tail.store(end + 1, ordering: .releasing)
    }
    wake.signal()
  }

  /// Moves every posted channel into `channels`, oldest first. Returns true when posts were lost
  /// to a full ring since the last drain.
  package func drain(into channels: inout [Int]) -> Bool {
    let start = head.load(ordering: .relaxed)
    let end = tail.load(ordering: .acquiring)
    for index in start..<end { channels.append(Int(buffer[index % capacity])) }
    head.store(end, ordering: .releasing)
    return overflowed.exchange(false, ordering: .acquiringAndReleasing)
  }
}
