import Foundation

/// Momentary (400 ms) and short-term (3 s) loudness as ITU-R BS.1770-4 defines them, for live
/// meters: K-weighting (the shelf and the high-pass, designed for any sample rate with the
/// formulas libebur128 uses), channel weights, and mean squares over sliding windows kept as
/// 1 ms sums, so a reading costs a few thousand additions at most, whatever the window.
///
/// Why not libebur128 here, which measures every sound's integrated loudness: its momentary and
/// short-term readings sum the whole window's filtered samples per call, and with its filter the
/// meters of a few buses took the inspector's whole budget at ten snapshots a second. The tests hold this meter to libebur128's
/// readings (within 0.05 LU on noise, tones and silence).
package struct LoudnessMeter {
  package let channels: Int
  package let sampleRate: Int
  /// The two biquads' coefficients (b0 b1 b2 a1 a2): the high shelf, then the high-pass.
  private let shelf: (Double, Double, Double, Double, Double)
  private let highPass: (Double, Double, Double, Double, Double)
  private let weights: [Double]
  /// Each channel's filter state: two delay elements per biquad (direct form II transposed).
  private var state: [Double]
  /// Weighted energy per 1 ms, a ring covering 3 s, and the sum of the part under way.
  private let slice: Int
  private var slices: [Double]
  private var slicesWritten = 0
  private var partial = 0.0
  private var partialFrames = 0
  /// Frames measured so far.
  package private(set) var frames = 0

  package init(channels: Int, sampleRate: Int) {
    self.channels = channels
    self.sampleRate = sampleRate
    let rate = Double(sampleRate)
    // The pre-filter: a high shelf of +4 dB around 1.7 kHz.
    var f0 = 1_681.974450955533
    let gain = 3.999843853973347
    var q = 0.7071752369554196
    var k = tan(Double.pi * f0 / rate)
    let vh = pow(10, gain / 20)
    let vb = pow(vh, 0.4996667741545416)
    var a0 = 1 + k / q + k * k
    shelf = (
      (vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0,
      2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0
    )
    // The RLB weighting: a high-pass around 38 Hz.
    f0 = 38.13547087602444
    q = 0.5003270373238773
    k = tan(Double.pi * f0 / rate)
    a0 = 1 + k / q + k * k
    highPass = (1, -2, 1, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
    // SDL's layouts: FL FR (FC) (LFE) (BL BR) (SL SR); surrounds weigh 1.41, the LFE nothing.
    switch channels {
    case 4: weights = [1, 1, 1.41, 1.41]
    case 6: weights = [1, 1, 1, 0, 1.41, 1.41]
    case 8: weights = [1, 1, 1, 0, 1.41, 1.41, 1.41, 1.41]
    default: weights = [Double](repeating: 1, count: channels)
    }
    state = [Double](repeating: 0, count: channels * 4)
    slice = max(1, sampleRate / 1_000)
    slices = [Double](repeating: 0, count: 3_000)
  }

  /// Adds `frames` interleaved frames.
  package mutating func add(_ samples: UnsafePointer<Float>, frames count: Int) {
    let (b0, b1, b2, a1, a2) = shelf
    let (c0, c1, c2, d1, d2) = highPass
    var frame = 0
    while frame < count {
      let run = min(count - frame, slice - partialFrames)
      var energy = 0.0
      for channel in 0..<channels where weights[channel] > 0 {
        var s1 = state[channel * 4]
        var s2 = state[channel * 4 + 1]
        var t1 = state[channel * 4 + 2]
        var t2 = state[channel * 4 + 3]
        var sum = 0.0
        var index = frame * channels + channel
        for _ in 0..<run {
          let x = Double(samples[index])
          let y = b0 * x + s1
          s1 = b1 * x - a1 * y + s2
          s2 = b2 * x - a2 * y
          let z = c0 * y + t1
          t1 = c1 * y - d1 * z + t2
          t2 = c2 * y - d2 * z
          sum += z * z
          index += channels
        }
        state[channel * 4] = s1
        state[channel * 4 + 1] = s2
        state[channel * 4 + 2] = t1
        state[channel * 4 + 3] = t2
        energy += weights[channel] * sum
      }
      partial += energy
      partialFrames += run
      frame += run
      if partialFrames == slice {
        slices[slicesWritten % slices.count] = partial
        slicesWritten += 1
        partial = 0
        partialFrames = 0
      }
    }
    frames += count
  }

  /// The loudness of the last `seconds` (0.4: momentary, 3: short-term) in LUFS; nil until that
  /// much has been measured, -inf for digital silence.
  package func loudness(over seconds: Double) -> Double? {
    let window = Int((seconds * Double(sampleRate)).rounded())
    guard frames >= window, window > 0 else { return nil }
    var energy = partial
    var covered = partialFrames
    var back = 1
    while covered < window, back <= min(slicesWritten, slices.count) {
      let sum = slices[(slicesWritten - back) % slices.count]
      let needed = window - covered
      // The oldest millisecond counts for the part of it inside the window.
      energy += needed >= slice ? sum : sum * Double(needed) / Double(slice)
      covered += min(needed, slice)
      back += 1
    }
    let mean = energy / Double(window)
    return mean > 0 ? -0.691 + 10 * log10(mean) : -.infinity
  }
}
