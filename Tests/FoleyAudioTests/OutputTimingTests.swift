import FoleyAudio
import FoleyTestSupport
import Foundation
import Testing

/// The delay-locked loop that ties the engine's clock to the host clock, fed buffer instants by
/// hand: a device whose rate is not the nominal one, callbacks that jitter, and a stall.
@Suite("Output timing")
struct OutputTimingTests {
  /// Runs `buffers` callbacks of 512 frames at 48 kHz whose true instants are `period` apart,
  /// each measured `jitter(k)` seconds off; the loop's error at the last, in seconds, for the
  /// instant of a frame half a buffer into the next one.
  static func error(buffers: Int, period: Double, jitter: (Int) -> Double) -> Double? {
    let timing = OutputTiming(sampleRate: 48_000)
    let origin = 1_000.0
    for k in 0..<buffers {
      let measured = origin + Double(k) * period + jitter(k)
      timing.noteBuffer(at: UInt64(measured * 1e9), clock: UInt64(k * 512), bufferFrames: 512)
    }
    guard let estimate = timing.estimate() else { return nil }
    let frame = Double(buffers * 512 + 256)
    let predicted = (estimate.nanoseconds + (frame - Double(estimate.frame)) * estimate.perFrame) / 1e9
    let truth = origin + frame / 512 * period
    return predicted - truth
  }

  @Test(
    "callbacks jittering by ±2 ms: a frame's instant within 0.25 ms, at 0.1 % and 6 % off the nominal rate")
  func jitterAndRate() throws {
    // A fixed pseudo-random series, the same every run.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var jitters: [Double] = []
    for _ in 0..<3_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      jitters.append((Double(state >> 11) / 0x1p53 - 0.5) * 0.004)
    }
    let nominal = 512.0 / 48_000
    // A device 0.1 % slow, and SDL's disk driver, which sleeps a whole 10 ms for each 10.67 ms buffer.
    for period in [nominal * 1.001, 0.010] {
      let error = try #require(Self.error(buffers: 3_000, period: period) { jitters[$0] })
      #expect(abs(error) < 0.000_25, "period \(period): off by \(error * 1_000) ms")
    }
  }

  @Test("a stall of a second starts the loop again from the next buffer: no instant a second off")
  func stall() throws {
    let timing = OutputTiming(sampleRate: 48_000)
    let period = 512.0 / 48_000
    for k in 0..<200 {
      let late = k >= 100 ? 1.0 : 0
      timing.noteBuffer(
        at: UInt64((10 + Double(k) * period + late) * 1e9), clock: UInt64(k * 512), bufferFrames: 512)
    }
    let estimate = try #require(timing.estimate())
    let predicted = (estimate.nanoseconds + (200 * 512 - Double(estimate.frame)) * estimate.perFrame) / 1e9
    #expect(abs(predicted - (10 + 200 * period + 1)) < 0.000_25, "\(predicted)")
  }

  @Test("no buffer yet: no estimate")
  func none() {
    #expect(OutputTiming(sampleRate: 48_000).estimate() == nil)
  }
}
