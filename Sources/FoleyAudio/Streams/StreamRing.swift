import Synchronization

/// Samples in the mix's format between the thread that decodes a stream and SDL's mixing thread:
/// a fixed ring with one producer (the stream filler) and one consumer (the stream's effect), so
/// neither side locks or allocates.
///
/// Counts are monotonic byte totals; positions in the buffer are taken modulo its size. A seek
/// publishes a mark (everything written before it is old audio): the consumer fades out a little
/// of the old audio, jumps to the mark, and fades the new audio in.
///
/// Invariant behind `@unchecked Sendable`: the producer writes bytes only in the free region and
/// publishes them with `written` (release); the consumer reads only below `written` (acquire) and
/// frees them with `read` (release). The two regions never overlap.
package final class StreamRing: @unchecked Sendable {
  package let capacity: Int
  private let buffer: UnsafeMutableRawPointer
  private let written = Atomic<Int>(0)
  private let read = Atomic<Int>(0)
  /// With each seek: the byte total at which the new audio begins, and a generation that changes.
  private let seekMark = Atomic<Int>(0)
  private let seekGeneration = Atomic<Int>(0)

  package init(capacity: Int) {
    self.capacity = capacity
    buffer = .allocate(byteCount: capacity, alignment: 16)
    buffer.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
  }

  deinit { buffer.deallocate() }

  /// Bytes the producer may write now.
  var freeSpace: Int {
    capacity - (written.load(ordering: .relaxed) - read.load(ordering: .acquiring))
  }
  /// Bytes written since the stream began (the producer's position).
  var totalWritten: Int { written.load(ordering: .acquiring) }
  /// Bytes consumed since the stream began (heard, or skipped by a seek).
  var totalRead: Int { read.load(ordering: .acquiring) }

  /// Producer: appends `count` bytes (at most ``freeSpace``).
  package func write(_ bytes: UnsafeRawPointer, count: Int) {
    let start = written.load(ordering: .relaxed)
    var done = 0
    while done < count {
      let position = (start + done) % capacity
      let length = min(count - done, capacity - position)
      (buffer + position).copyMemory(from: bytes + done, byteCount: length)
      done += length
    }
    written.store(start + count, ordering: .releasing)
  }

  /// Producer: everything written so far is old audio; what follows starts after a seek.
  func markSeek() {
    seekMark.store(written.load(ordering: .relaxed), ordering: .releasing)
    seekGeneration.add(1, ordering: .releasing)
  }

  /// Consumer: the current seek generation and where its new audio begins.
  package var seek: (generation: Int, mark: Int) {
    let generation = seekGeneration.load(ordering: .acquiring)
    return (generation, seekMark.load(ordering: .acquiring))
  }

  /// Consumer: copies up to `count` bytes out, stopping at `limit` (a seek mark) if given.
  /// Returns the bytes copied.
  package func read(into destination: UnsafeMutableRawPointer, count: Int, limit: Int = .max) -> Int {
    let start = read.load(ordering: .relaxed)
    let total = min(count, written.load(ordering: .acquiring) - start, max(0, limit - start))
    guard total > 0 else { return 0 }
    var done = 0
    while done < total {
      let position = (start + done) % capacity
      let length = min(total - done, capacity - position)
      (destination + done).copyMemory(from: buffer + position, byteCount: length)
      done += length
    }
    read.store(start + total, ordering: .releasing)
    return total
  }

  /// Consumer: gives back `count` bytes just read (the producer must not have reused them).
  func rewind(by count: Int) {
    read.store(read.load(ordering: .relaxed) - count, ordering: .releasing)
  }

  /// Consumer: drops everything before `mark`.
  package func skip(to mark: Int) {
    if mark > read.load(ordering: .relaxed) { read.store(mark, ordering: .releasing) }
  }
}
