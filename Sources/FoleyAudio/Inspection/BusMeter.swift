import Foundation

/// One bus's meters as the inspector keeps them, fed with the blocks the mix copied: peak and
/// sum of squares per channel for each block (a few seconds of them), momentary and short-term
/// loudness (``LoudnessMeter``), and the latest frames for the spectrum.
///
/// A bus that did not run for a while sent nothing for those frames: they were silence, and the
/// meter is fed silence for them, up to 3 s (the longest window); after that its loudness reads
/// silence without being fed, so a bus that is quiet costs nothing.
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
  private var loudness: LoudnessMeter
  /// Silent frames fed since the bus last ran (feeding stops at 3 s of them).
  private var silentRun = 0
  /// The mix frame after the last one fed.
  private(set) var end: UInt64 = 0
  /// The latest frames as they were (interleaved), a ring.
  private var recent: [Float]
  private var recentWritten = 0
  private static let silence = [Float](repeating: 0, count: 4_096 * 8)

  init(channels: Int, sampleRate: Int) {
    self.channels = channels
    self.sampleRate = sampleRate
    blockPeak = [Float](repeating: 0, count: Self.blockCapacity * channels)
    blockSquares = [Double](repeating: 0, count: Self.blockCapacity * channels)
    recent = [Float](repeating: 0, count: Self.spectrumFrames * channels)
    loudness = LoudnessMeter(channels: channels, sampleRate: sampleRate)
  }

  /// One block of the bus, starting on mix frame `clock`.
  func add(_ samples: UnsafeBufferPointer<Float>, at clock: UInt64) {
    let frames = samples.count / channels
    guard frames > 0, let base = samples.baseAddress else { return }
    if end > 0, clock > end { fillSilence(upTo: clock) }
    let slot = blocksWritten % Self.blockCapacity
    blockClock[slot] = clock
    blockFrames[slot] = frames
    measure(base, count: samples.count, into: slot)
    blocksWritten += 1
    loudness.add(base, frames: frames)
    silentRun = 0
    remember(base, frames: frames)
    end = clock + UInt64(frames)
  }

  /// Peak and sum of squares per channel of one block, eight samples at a time when the channels
  /// divide eight (mono, stereo, quad: each lane then always holds the same channel).
  private func measure(_ base: UnsafePointer<Float>, count: Int, into slot: Int) {
    var index = 0
    if 8 % channels == 0 {
      var peak = SIMD8<Float>(repeating: 0)
      var squares = SIMD8<Float>(repeating: 0)
      let raw = UnsafeRawPointer(base)
      while index + 8 <= count {
        let block = raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self)
        peak = peak.lanewiseMax(block.magnitudes)
        squares += block * block
        index += 8
      }
      for channel in 0..<channels {
        var largest: Float = 0
        var sum: Double = 0
        var lane = channel
        while lane < 8 {
          largest = max(largest, peak[lane])
          sum += Double(squares[lane])
          lane += channels
        }
        blockPeak[slot * channels + channel] = largest
        blockSquares[slot * channels + channel] = sum
      }
    } else {
      for channel in 0..<channels {
        blockPeak[slot * channels + channel] = 0
        blockSquares[slot * channels + channel] = 0
      }
    }
    // What the lanes did not take (or every sample, for other channel counts).
    while index < count {
      let channel = index % channels
      let value = base[index]
      blockPeak[slot * channels + channel] = max(blockPeak[slot * channels + channel], abs(value))
      blockSquares[slot * channels + channel] += Double(value * value)
      index += 1
    }
  }

  /// Feeds silence from ``end`` up to `clock`, until the bus has been silent for 3 s.
  func fillSilence(upTo clock: UInt64) {
    guard clock > end else { return }
    let longest = sampleRate * 3
    var missing = Int(min(clock - end, UInt64(longest)))
    end = clock
    missing = min(missing, longest - silentRun)
    guard missing > 0 else { return }
    silentRun += missing
    let chunk = Self.silence.count / max(1, channels)
    while missing > 0 {
      let count = min(chunk, missing)
      Self.silence.withUnsafeBufferPointer { zeros in
        loudness.add(zeros.baseAddress!, frames: count)
        remember(zeros.baseAddress!, frames: count)
      }
      missing -= count
    }
  }

  private func remember(_ samples: UnsafePointer<Float>, frames: Int) {
    let skip = max(0, frames - Self.spectrumFrames)
    var frame = skip
    while frame < frames {
      let position = recentWritten % Self.spectrumFrames
      let count = min(frames - frame, Self.spectrumFrames - position)
      recent.withUnsafeMutableBufferPointer { ring in
        (ring.baseAddress! + position * channels).update(
          from: samples + frame * channels, count: count * channels)
      }
      recentWritten += count
      frame += count
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
    func finite(_ value: Double?) -> Double? {
      value.map { $0.isFinite ? max($0, AudioSnapshot.floorDecibels) : AudioSnapshot.floorDecibels }
    }
    // Three seconds of silence: the meter has stopped being fed, and reads silence.
    if silentRun >= sampleRate * 3 { return (AudioSnapshot.floorDecibels, AudioSnapshot.floorDecibels) }
    return (finite(loudness.loudness(over: 0.4)), finite(loudness.loudness(over: 3)))
  }

  /// The latest ``spectrumFrames`` frames, channels summed, oldest first; false until there are
  /// that many.
  func latestMono(into window: inout [Float]) -> Bool {
    guard recentWritten >= Self.spectrumFrames else { return false }
    let scale = 1 / Float(channels)
    for index in 0..<Self.spectrumFrames {
      let frame = (recentWritten + index) % Self.spectrumFrames
      var sum: Float = 0
      for channel in 0..<channels { sum += recent[frame * channels + channel] }
      window[index] = sum * scale
    }
    return true
  }
}
