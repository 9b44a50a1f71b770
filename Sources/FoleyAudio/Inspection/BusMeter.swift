internal import CFoleyEBUR128
import Foundation

/// One bus's meters as the inspector keeps them, fed with the blocks the mix copied: peak and
/// sum of squares per channel for each block (a few seconds of them), libebur128's momentary and
/// short-term loudness, and the latest frames summed to mono for the spectrum.
///
/// A bus that did not run for a while sent nothing for those frames: they were silence, and the
/// meter is fed silence for them (at most 3 s), so loudness falls when a bus goes quiet.
final class BusMeter {
  let channels: Int
  let sampleRate: Int
  static let blockCapacity = 512
  static let spectrumFrames = 2_048
  private var blockClock = [UInt64](repeating: 0, count: blockCapacity)
  private var blockFrames = [Int](repeating: 0, count: blockCapacity)
  private var blockPeak: [Float]
  private var blockSquares: [Double]
  private var blocksWritten = 0
  private var loudness: UnsafeMutablePointer<ebur128_state>?
  /// Frames libebur128 has been given (momentary needs 400 ms, short-term 3 s).
  private(set) var framesMeasured = 0
  /// The mix frame after the last one fed.
  private(set) var end: UInt64 = 0
  private var mono = [Float](repeating: 0, count: spectrumFrames)
  private var monoWritten = 0
  private static let silence = [Float](repeating: 0, count: 4_096 * 8)

  init(channels: Int, sampleRate: Int) {
    self.channels = channels
    self.sampleRate = sampleRate
    blockPeak = [Float](repeating: 0, count: Self.blockCapacity * channels)
    blockSquares = [Double](repeating: 0, count: Self.blockCapacity * channels)
    loudness = ebur128_init(
      UInt32(channels), UInt(sampleRate), Int32(EBUR128_MODE_M.rawValue | EBUR128_MODE_S.rawValue))
  }

  deinit { if loudness != nil { ebur128_destroy(&loudness) } }

  /// One block of the bus, starting on mix frame `clock`.
  func add(_ samples: UnsafeBufferPointer<Float>, at clock: UInt64) {
    let frames = samples.count / channels
    guard frames > 0, let base = samples.baseAddress else { return }
    if end > 0, clock > end { fillSilence(upTo: clock) }
    let slot = blocksWritten % Self.blockCapacity
    blockClock[slot] = clock
    blockFrames[slot] = frames
    for channel in 0..<channels {
      var peak: Float = 0
      var squares: Double = 0
      var index = channel
      while index < samples.count {
        let value = base[index]
        peak = max(peak, abs(value))
        squares += Double(value * value)
        index += channels
      }
      blockPeak[slot * channels + channel] = peak
      blockSquares[slot * channels + channel] = squares
    }
    blocksWritten += 1
    if let loudness { _ = ebur128_add_frames_float(loudness, base, frames) }
    framesMeasured += frames
    addMono(base, frames: frames)
    end = clock + UInt64(frames)
  }

  /// Feeds silence from ``end`` up to `clock` (at most 3 s of it).
  func fillSilence(upTo clock: UInt64) {
    guard clock > end else { return }
    var missing = Int(min(clock - end, UInt64(sampleRate * 3)))
    end = clock
    let chunk = Self.silence.count / max(1, channels)
    while missing > 0 {
      let count = min(chunk, missing)
      Self.silence.withUnsafeBufferPointer { zeros in
        if let loudness { _ = ebur128_add_frames_float(loudness, zeros.baseAddress, count) }
        addMono(zeros.baseAddress!, frames: count)
      }
      framesMeasured += count
      missing -= count
    }
  }

  private func addMono(_ samples: UnsafePointer<Float>, frames: Int) {
    let scale = 1 / Float(channels)
    // Only the last window's worth matters.
    let skip = max(0, frames - Self.spectrumFrames)
    for frame in skip..<frames {
      var sum: Float = 0
      for channel in 0..<channels { sum += samples[frame * channels + channel] }
      mono[monoWritten % Self.spectrumFrames] = sum * scale
      monoWritten += 1
    }
  }

  /// Peak and RMS per channel (linear) over the mix frames `range`; frames the bus did not run
  /// count as silence. Blocks are counted whole when they overlap the range.
  func levels(over range: Range<UInt64>) -> (peak: [Float], rms: [Float], active: Bool) {
    var peak = [Float](repeating: 0, count: channels)
    var squares = [Double](repeating: 0, count: channels)
    var covered = 0
    var active = false
    for back in 0..<min(blocksWritten, Self.blockCapacity) {
      let slot = (blocksWritten - 1 - back) % Self.blockCapacity
      let start = blockClock[slot]
      let stop = start + UInt64(blockFrames[slot])
      if stop <= range.lowerBound { break }
      guard start < range.upperBound else { continue }
      active = true
      covered += blockFrames[slot]
      for channel in 0..<channels {
        peak[channel] = max(peak[channel], blockPeak[slot * channels + channel])
        squares[channel] += blockSquares[slot * channels + channel]
      }
    }
    let frames = Double(max(covered, range.count, 1))
    return (peak, squares.map { Float(($0 / frames).squareRoot()) }, active)
  }

  /// Momentary and short-term loudness in LUFS, each nil until enough has been measured.
  var momentaryAndShortTerm: (Double?, Double?) {
    guard let loudness else { return (nil, nil) }
    var momentary = -Double.infinity
    var shortTerm = -Double.infinity
    let success = Int32(EBUR128_SUCCESS.rawValue)
    let hasMomentary =
      framesMeasured >= sampleRate * 4 / 10 && ebur128_loudness_momentary(loudness, &momentary) == success
    let hasShortTerm =
      framesMeasured >= sampleRate * 3 && ebur128_loudness_shortterm(loudness, &shortTerm) == success
    func finite(_ value: Double) -> Double { value.isFinite ? value : AudioSnapshot.floorDecibels }
    return (hasMomentary ? finite(momentary) : nil, hasShortTerm ? finite(shortTerm) : nil)
  }

  /// The latest ``spectrumFrames`` frames in mono, oldest first; nil until there are that many.
  func latestMono(into window: inout [Float]) -> Bool {
    guard monoWritten >= Self.spectrumFrames else { return false }
    for index in 0..<Self.spectrumFrames {
      window[index] = mono[(monoWritten + index) % Self.spectrumFrames]
    }
    return true
  }
}
