internal import CFoleyEBUR128
import Foundation
import Synchronization

/// How loud a sound is, as ITU-R BS.1770 / EBU R128 measure it (with libebur128): its integrated
/// loudness, its loudness range and its true peak. Measured once per decoded sound, on the
/// source's own channels (a mono file as mono), which is also how loud it plays: a mono sound is
/// panned to the centre at constant power.
///
/// ```swift
/// let loudness = try engine.sound(named: "Music/fanfare.ogg").loudness
/// print(loudness)                        // "-18.4 LUFS, range 5.1 LU, true peak -1.3 dBTP"
/// engine.bus(.effects).setLoudnessTarget(-20)   // sounds with normalizesLoudness play at -20 LUFS
/// ```
public struct Loudness: Sendable, Hashable, CustomStringConvertible {
  /// Integrated loudness in LUFS; -infinity for silence (below the absolute gate, -70 LUFS). A
  /// sound shorter than one 400 ms gating block (most effects) has its loudness over its own
  /// length instead, K-weighted and ungated.
  public var integrated: Double
  /// Loudness range in LU (EBU Tech 3342); 0 for sounds too short to have one.
  public var range: Double
  /// True peak in dBTP (4× oversampled); -infinity for silence.
  public var truePeak: Double

  public init(integrated: Double, range: Double, truePeak: Double) {
    self.integrated = integrated
    self.range = range
    self.truePeak = truePeak
  }

  public var description: String {
    func decibels(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "-inf" }
    return
      "\(decibels(integrated)) LUFS, range \(String(format: "%.1f", range)) LU, true peak \(decibels(truePeak)) dBTP"
  }

  /// The gain in dB that brings this sound to `target` LUFS, lowered so that its true peak stays
  /// at or under `ceiling` dBTP (the limiter remains the last guard); 0 for silence.
  public func gain(toReach target: Double, truePeakCeiling ceiling: Double = -1) -> Double {
    guard integrated.isFinite, target.isFinite else { return 0 }
    let wanted = target - integrated
    guard truePeak.isFinite else { return wanted }
    return min(wanted, ceiling - truePeak)
  }

  /// Measures `frames` interleaved float frames of `channels` at `sampleRate`.
  package static func measure(
    _ samples: UnsafePointer<Float>, frames: Int, channels: Int, sampleRate: Int, stride: Int? = nil
  ) -> Loudness? {
    guard frames > 0, channels > 0, sampleRate > 0,
      let state = ebur128_init(
        UInt32(channels), UInt(sampleRate),
        Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue))
    else { return nil }
    var handle: UnsafeMutablePointer<ebur128_state>? = state
    defer { ebur128_destroy(&handle) }
    // Shorter than one 400 ms gating block (most sound effects): its loudness over its own
    // length, K-weighted, ungated.
    let milliseconds = UInt((Double(frames) * 1_000 / Double(sampleRate)).rounded(.down))
    let isShort = milliseconds < 400
    if isShort, milliseconds > 0 { _ = ebur128_set_max_window(state, milliseconds) }
    let step = stride ?? channels
    if step == channels {
      guard ebur128_add_frames_float(state, samples, frames) == Int32(EBUR128_SUCCESS.rawValue) else {
        return nil
      }
    } else {
      // Only the first `channels` of each `step` (a mono source upmixed in the buffer).
      var block = [Float](repeating: 0, count: 4_096 * channels)
      var done = 0
      while done < frames {
        let count = min(4_096, frames - done)
        for frame in 0..<count {
          for channel in 0..<channels {
            block[frame * channels + channel] = samples[(done + frame) * step + channel]
          }
        }
        guard ebur128_add_frames_float(state, block, count) == Int32(EBUR128_SUCCESS.rawValue) else {
          return nil
        }
        done += count
      }
    }
    var integrated = -Double.infinity
    var range = 0.0
    if isShort {
      if milliseconds > 0 { _ = ebur128_loudness_window(state, milliseconds, &integrated) }
    } else {
      _ = ebur128_loudness_global(state, &integrated)
    }
    _ = ebur128_loudness_range(state, &range)
    var peak = 0.0
    for channel in 0..<channels {
      var value = 0.0
      if ebur128_true_peak(state, UInt32(channel), &value) == Int32(EBUR128_SUCCESS.rawValue) {
        peak = max(peak, value)
      }
    }
    return Loudness(
      integrated: integrated.isFinite && integrated > -70 ? integrated : -.infinity,
      range: range.isFinite ? range : 0, truePeak: peak > 0 ? 20 * log10(peak) : -.infinity)
  }
}

extension SoundBuffer {
  /// Takes `loudness` as these samples' own unless they were measured (a pitch variant of a
  /// measured sound).
  package func assumeLoudness(_ loudness: Loudness) {
    measuredLoudness.withLock { if $0 == nil { $0 = loudness } }
  }

  /// The samples' loudness, measured the first time it is asked for (on the asking thread) and
  /// kept: the source's own channels (a mono source's first channel, before its upmix).
  package var loudness: Loudness {
    if let known = measuredLoudness.withLock({ $0 }) { return known }
    let channels = min(source.channels, format.channels)
    let measured: Loudness?
    if format.sampleFormat == .float32 {
      measured = Loudness.measure(
        chunk.samples.assumingMemoryBound(to: Float.self), frames: frames, channels: channels,
        sampleRate: format.sampleRate, stride: format.channels)
    } else {
      let shorts = chunk.samples.assumingMemoryBound(to: Int16.self)
      let floats = (0..<(frames * format.channels)).map { Float(shorts[$0]) / 32_768 }
      measured = floats.withUnsafeBufferPointer {
        Loudness.measure(
          $0.baseAddress!, frames: frames, channels: channels, sampleRate: format.sampleRate,
          stride: format.channels)
      }
    }
    let result = measured ?? Loudness(integrated: -.infinity, range: 0, truePeak: -.infinity)
    measuredLoudness.withLock { $0 = result }
    return result
  }
}
