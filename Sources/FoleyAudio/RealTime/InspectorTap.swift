import Synchronization

/// Copies of the mix's buses on their way from SDL's mixing thread to the inspector: a fixed ring
/// of blocks with one producer (the mix, once per bus and block while an inspector reads) and one
/// consumer (``AudioInspector``, whenever it is asked for a snapshot), so neither side locks or
/// allocates, and the mix pays for nothing but a flag while nobody inspects.
///
/// A block is a header of four words (bus, frames, and the mix clock of its first frame in two
/// halves) followed by its interleaved samples. A block never wraps: when it does not fit before
/// the end, a header with `frames == wrapMarker` tells the reader to go back to the start. When the
/// reader has fallen a whole ring behind, the writer drops blocks and counts them.
///
/// Invariant behind `@unchecked Sendable`: the producer writes words only in the free region and
/// publishes them with `written` (release); the consumer reads only below `written` (acquire) and
/// frees them with `read` (release). Positions are monotonic word totals.
final class InspectorTap: @unchecked Sendable {
  /// Words in the ring: 4 Mi (16 MiB), about 5 s of the master and seven stereo buses at 48 kHz.
  package let capacity: Int
  private let words: UnsafeMutablePointer<UInt32>
  private let written = Atomic<Int>(0)
  private let read = Atomic<Int>(0)
  /// Whether the mix copies its buses here.
  let isEnabled = Atomic<Bool>(false)
  /// Blocks the mix could not copy because the reader was a whole ring behind.
  package let dropped = Atomic<Int>(0)
  static let headerWords = 4
  static let wrapMarker = UInt32.max

  package init(capacity: Int = 1 << 22) {
    self.capacity = capacity
    // Left uninitialised: the pages cost no memory until an inspector first reads (plain
    // integers; the reader touches only words the writer published).
    words = .allocate(capacity: capacity)
  }

  deinit { words.deallocate() }

  /// Producer (mixing thread): copies one block of `bus`.
  @inline(__always)
  package func push(bus: Int, clock: UInt64, samples: UnsafePointer<Float>, frames: Int, channels: Int) {
    let count = Self.headerWords + frames * channels
    var start = written.load(ordering: .relaxed)
    let free = capacity - (start - read.load(ordering: .acquiring))
    var position = start % capacity
    let tail = capacity - position
    // What this block needs: itself, plus the skipped tail when it must wrap.
    let needed = tail < count ? tail + count : count
    guard needed <= free, count <= capacity / 4 else {
      dropped.add(1, ordering: .relaxed)
      return
    }
    if tail < count {
      // A tail shorter than a header needs no marker: the reader skips it by its size.
      if tail >= Self.headerWords { words[position + 1] = Self.wrapMarker }
      start += tail
      position = 0
    }
    words[position] = UInt32(truncatingIfNeeded: bus)
    words[position + 1] = UInt32(truncatingIfNeeded: frames)
    words[position + 2] = UInt32(truncatingIfNeeded: clock)
    words[position + 3] = UInt32(truncatingIfNeeded: clock >> 32)
    UnsafeMutableRawPointer(words + position + Self.headerWords).copyMemory(
      from: samples, byteCount: frames * channels * 4)
    written.store(start + count, ordering: .releasing)
  }

  /// Consumer: hands every block written so far to `body` (bus, clock of its first frame, its
  /// samples), then frees them.
  package func drain(
    channels: Int, _ body: (_ bus: Int, _ clock: UInt64, _ samples: UnsafeBufferPointer<Float>) -> Void
  ) {
    let end = written.load(ordering: .acquiring)
    var cursor = read.load(ordering: .relaxed)
    while cursor < end {
      let position = cursor % capacity
      let tail = capacity - position
      // A tail too short for a header, or a wrap marker: the next block is at the start.
      if tail < Self.headerWords || words[position + 1] == Self.wrapMarker {
        cursor += tail
        continue
      }
      let bus = Int(words[position])
      let frames = Int(words[position + 1])
      let clock = UInt64(words[position + 2]) | UInt64(words[position + 3]) << 32
      let samples = UnsafeRawPointer(words + position + Self.headerWords).assumingMemoryBound(to: Float.self)
      body(bus, clock, UnsafeBufferPointer(start: samples, count: frames * channels))
      cursor += Self.headerWords + frames * channels
    }
    read.store(cursor, ordering: .releasing)
  }

  /// Consumer: forgets what is waiting (when inspection stops).
  func discard() {
    read.store(written.load(ordering: .acquiring), ordering: .releasing)
  }
}
