internal import CFoleyEBUR128
import FoleyAudio
import Foundation
import Testing

/// The inspector's live loudness meter against libebur128, the reference, on the same samples.
@Suite("Live loudness meter")
struct LoudnessMeterTests {
  static func signal(_ kind: String, frames: Int, channels: Int, sampleRate: Int) -> [Float] {
    var state: UInt32 = 2_024
    var samples = [Float](repeating: 0, count: frames * channels)
    for frame in 0..<frames {
      for channel in 0..<channels {
        state = state &* 1_664_525 &+ 1_013_904_223
        let noise = Float(Int32(bitPattern: state)) / Float(Int32.max)
        let time = Double(frame) / Double(sampleRate)
        let value: Float =
          switch kind {
          case "noise": 0.3 * noise
          case "tone": Float(0.5 * sin(2 * .pi * 997 * time))
          case "bass": Float(0.6 * sin(2 * .pi * 45 * time) * (channel == 0 ? 1 : 0.3))
          // Loud for a second and a half, then quiet: the windows slide over a change.
          default: (time < 1.5 ? 0.5 : 0.02) * noise
          }
        samples[frame * channels + channel] = value
      }
    }
    return samples
  }

  @Test(
    "Momentary and short-term readings match libebur128 within 0.05 LU",
    arguments: [
      ("noise", 2, 48_000), ("tone", 2, 48_000), ("bass", 2, 44_100), ("step", 1, 48_000),
      ("noise", 6, 48_000),
    ])
  func matchesLibebur128(kind: String, channels: Int, sampleRate: Int) throws {
    let frames = sampleRate * 5
    let samples = Self.signal(kind, frames: frames, channels: channels, sampleRate: sampleRate)
    var meter = LoudnessMeter(channels: channels, sampleRate: sampleRate)
    let reference = try #require(
      ebur128_init(
        UInt32(channels), UInt(sampleRate), Int32(EBUR128_MODE_M.rawValue | EBUR128_MODE_S.rawValue)))
    defer {
      var handle: UnsafeMutablePointer<ebur128_state>? = reference
      ebur128_destroy(&handle)
    }
    if channels == 6 {
      // SDL's 5.1 order: FL FR FC LFE BL BR.
      let map: [channel] = [
        EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND,
        EBUR128_RIGHT_SURROUND,
      ]
      for (index, role) in map.enumerated() {
        ebur128_set_channel(reference, UInt32(index), Int32(role.rawValue))
      }
    }
    var done = 0
    var compared = 0
    // Blocks of varying size, as the mix hands them over.
    let sizes = [1_024, 512, 997, 2_048, 100]
    while done < frames {
      let count = min(sizes[compared % sizes.count], frames - done)
      samples.withUnsafeBufferPointer { buffer in
        let start = buffer.baseAddress! + done * channels
        meter.add(start, frames: count)
        _ = ebur128_add_frames_float(reference, start, count)
      }
      done += count
      compared += 1
      for (seconds, mode) in [(0.4, 0), (3.0, 1)] where done >= Int(seconds * Double(sampleRate)) {
        var expected = 0.0
        _ =
          mode == 0
          ? ebur128_loudness_momentary(reference, &expected)
          : ebur128_loudness_shortterm(reference, &expected)
        let measured = try #require(meter.loudness(over: seconds))
        #expect(
          abs(measured - expected) < 0.05, "\(kind) \(seconds) s at frame \(done): \(measured) vs \(expected)"
        )
      }
    }
    #expect(meter.loudness(over: 3) != nil && meter.frames == frames)
  }

  @Test("Silence reads minus infinity, and nothing is read before a window is full")
  func silenceAndStart() {
    var meter = LoudnessMeter(channels: 2, sampleRate: 48_000)
    let zeros = [Float](repeating: 0, count: 20_000)
    zeros.withUnsafeBufferPointer { meter.add($0.baseAddress!, frames: 10_000) }
    #expect(meter.loudness(over: 0.4) == nil)
    zeros.withUnsafeBufferPointer { meter.add($0.baseAddress!, frames: 10_000) }
    #expect(meter.loudness(over: 0.4) == -.infinity)
    #expect(meter.loudness(over: 3) == nil)
  }
}
