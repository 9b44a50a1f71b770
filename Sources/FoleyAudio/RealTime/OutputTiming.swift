import FoleyCore
import Synchronization

/// When the device takes each buffer, on the host clock: the mixing thread measures the instant
/// every callback starts and smooths the series with a delay-locked loop (the second-order loop
/// JACK and Fons Adriaensen's "Using a DLL to filter time" describe), which follows the device's
/// real rate and leaves out the callback's scheduling jitter. The latest estimate is published
/// behind a sequence number (a seqlock): the mixing thread writes four plain words and never
/// waits; a reader on any thread retries while a write is under way.
package final class OutputTiming: Sendable {
  /// Odd while the mixing thread writes.
  private let sequence = Atomic<UInt64>(0)
  /// The frame that starts the last buffer, the smoothed instant the device took it, and the
  /// instant it will take the next, as the loop predicts (nanoseconds, as bit patterns of
  /// doubles), and the frames in a buffer.
  private let frame = Atomic<UInt64>(0)
  private let taken = Atomic<UInt64>(0)
  private let next = Atomic<UInt64>(0)
  private let frames = Atomic<UInt64>(0)

  /// The loop's state: touched only by the mixing thread (inside `render`).
  private struct Loop {
    var started = false
    var bufferFrames = 0
    /// Smoothed time of the last buffer, predicted time of the next, and the period (s).
    var t0 = 0.0
    var t1 = 0.0
    var period = 0.0
    var b = 0.0
    var c = 0.0
    var count = 0
  }
  private nonisolated(unsafe) var loop = Loop()
  private let sampleRate: Double

  package init(sampleRate: Int) { self.sampleRate = Double(max(1, sampleRate)) }

  /// The loop's bandwidth in hertz once settled; the first buffers use a wider one, so the
  /// estimate is close within a few buffers.
  static let bandwidth = 0.5

  /// Called by the mixing thread at the start of each callback: `now` is the host clock in
  /// nanoseconds, `clock` the frame the buffer starts on, `bufferFrames` its length.
  @inline(__always)
  package func noteBuffer(at now: UInt64, clock: UInt64, bufferFrames: Int) {
    let time = Double(now) * 1e-9
    let nominal = Double(bufferFrames) / sampleRate
    if !loop.started || loop.bufferFrames != bufferFrames || abs(time - loop.t1) > 8 * nominal {
      // The first buffer, a new size, or a stall (a device that stopped, a debugger): the loop
      // starts again from this buffer.
      loop = Loop(
        started: true, bufferFrames: bufferFrames, t0: time, t1: time + nominal, period: nominal, count: 0)
    } else {
      loop.count &+= 1
      if loop.count == 1 || loop.count == 16 || loop.count == 128 {
        // Wide while the loop settles, then narrow: 8 Hz, 2 Hz, then the settled bandwidth.
        let hertz = loop.count == 1 ? 8 : loop.count == 16 ? 2 : Self.bandwidth
        let omega = 2 * Double.pi * hertz * nominal
        loop.b = 2.squareRoot() * omega
        loop.c = omega * omega
      }
      let error = time - loop.t1
      loop.t0 = loop.t1
      loop.t1 += loop.b * error + loop.period
      loop.period += loop.c * error
    }
    let written = sequence.load(ordering: .relaxed)
    sequence.store(written &+ 1, ordering: .relaxed)
    atomicMemoryFence(ordering: .releasing)
    frame.store(clock, ordering: .relaxed)
    taken.store((loop.t0 * 1e9).bitPattern, ordering: .relaxed)
    next.store((loop.t1 * 1e9).bitPattern, ordering: .relaxed)
    frames.store(UInt64(bufferFrames), ordering: .relaxed)
    sequence.store(written &+ 2, ordering: .releasing)
  }

  /// The latest estimate: the frame a buffer starts on, the instant (ns) the device took it, and
  /// nanoseconds per frame; nil before the first buffer.
  package func estimate() -> (frame: UInt64, nanoseconds: Double, perFrame: Double)? {
    while true {
      let before = sequence.load(ordering: .acquiring)
      if before & 1 == 1 { continue }
      let frame = frame.load(ordering: .relaxed)
      let taken = Double(bitPattern: taken.load(ordering: .relaxed))
      let next = Double(bitPattern: next.load(ordering: .relaxed))
      let frames = frames.load(ordering: .relaxed)
      atomicMemoryFence(ordering: .acquiring)
      guard sequence.load(ordering: .relaxed) == before else { continue }
      guard before > 0, frames > 0 else { return nil }
      return (frame, taken, (next - taken) / Double(frames))
    }
  }
}
