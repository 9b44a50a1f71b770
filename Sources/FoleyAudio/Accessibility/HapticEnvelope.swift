import Foundation

/// A sound's rumble: per 10 ms, how strongly a controller's low-frequency (heavy) and
/// high-frequency (light) motors would run for it, 0…1, from the energy of its low band (under
/// 150 Hz) and of the rest, split by a fourth-order Linkwitz–Riley crossover (two Butterworth
/// sections each way: 24 dB an octave, so a 50 Hz rumble barely moves the light motor). A band at -6 dBFS (peak) or louder runs its motor fully; -40 dBFS and
/// quieter, not at all; in between, in proportion to the level in dB.
struct HapticEnvelope: Sendable {
  static let hop = 0.01
  static let crossover = 150.0
  static let fullLevel: Float = -6
  static let silentLevel: Float = -40

  let low: [Float]
  let high: [Float]

  /// The motors' strengths `seconds` into the sound (0 beyond its end).
  func strengths(at seconds: Double) -> (low: Float, high: Float) {
    guard seconds >= 0, seconds.isFinite else { return (0, 0) }
    let index = Int(seconds / Self.hop)
    guard index < low.count else { return (0, 0) }
    return (low[index], high[index])
  }

  /// Measures `frames` interleaved frames of `channels` channels (their average) at `sampleRate`.
  init(samples: (Int) -> Float, frames: Int, channels: Int, sampleRate: Int) {
    let hopFrames = max(1, Int(Self.hop * Double(sampleRate)))
    var lowPass = [
      Section(lowPass: true, sampleRate: sampleRate), Section(lowPass: true, sampleRate: sampleRate),
    ]
    var highPass = [
      Section(lowPass: false, sampleRate: sampleRate), Section(lowPass: false, sampleRate: sampleRate),
    ]
    var low: [Float] = []
    var high: [Float] = []
    low.reserveCapacity(frames / hopFrames + 1)
    high.reserveCapacity(frames / hopFrames + 1)
    var start = 0
    while start < frames {
      let end = min(frames, start + hopFrames)
      var lowEnergy: Float = 0
      var highEnergy: Float = 0
      for frame in start..<end {
        var sum: Float = 0
        for channel in 0..<channels { sum += samples(frame * channels + channel) }
        let sample = sum / Float(channels)
        let lowBand = lowPass[1].process(lowPass[0].process(sample))
        let highBand = highPass[1].process(highPass[0].process(sample))
        lowEnergy += lowBand * lowBand
        highEnergy += highBand * highBand
      }
      let count = Float(end - start)
      low.append(Self.strength(rms: (lowEnergy / count).squareRoot()))
      high.append(Self.strength(rms: (highEnergy / count).squareRoot()))
      start = end
    }
    self.low = low
    self.high = high
  }

  /// A second-order Butterworth section at the crossover (the audio EQ cookbook's, Q = 1/√2).
  struct Section {
    var b0: Float, b1: Float, b2: Float, a1: Float, a2: Float
    var x1: Float = 0, x2: Float = 0, y1: Float = 0, y2: Float = 0

    init(lowPass: Bool, sampleRate: Int) {
      let omega = 2 * Double.pi * HapticEnvelope.crossover / Double(sampleRate)
      let alpha = sin(omega) / (2 * 0.5.squareRoot())
      let cosine = cos(omega)
      let a0 = 1 + alpha
      let (n0, n1) = lowPass ? ((1 - cosine) / 2, 1 - cosine) : ((1 + cosine) / 2, -(1 + cosine))
      b0 = Float(n0 / a0)
      b1 = Float(n1 / a0)
      b2 = Float(n0 / a0)
      a1 = Float(-2 * cosine / a0)
      a2 = Float((1 - alpha) / a0)
    }

    mutating func process(_ x: Float) -> Float {
      let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
      (x2, x1, y2, y1) = (x1, x, y1, y)
      return y
    }
  }

  /// A band's motor strength from its RMS: its peak level (a sine's, RMS × √2) mapped from
  /// ``silentLevel``…``fullLevel`` dBFS onto 0…1.
  static func strength(rms: Float) -> Float {
    guard rms > 0 else { return 0 }
    let peak = 20 * log10(rms * Float(2).squareRoot())
    return min(1, max(0, (peak - silentLevel) / (fullLevel - silentLevel)))
  }
}

extension SoundBuffer {
  /// The samples' rumble envelope, measured the first time it is asked for (on the asking thread)
  /// and kept.
  var hapticEnvelope: HapticEnvelope {
    if let known = measuredEnvelope.withLock({ $0 }) { return known }
    let channels = format.channels
    let envelope: HapticEnvelope
    if format.sampleFormat == .float32 {
      let floats = chunk.samples.assumingMemoryBound(to: Float.self)
      envelope = HapticEnvelope(
        samples: { floats[$0] }, frames: frames, channels: channels, sampleRate: format.sampleRate)
    } else {
      let shorts = chunk.samples.assumingMemoryBound(to: Int16.self)
      envelope = HapticEnvelope(
        samples: { Float(shorts[$0]) / 32_768 }, frames: frames, channels: channels,
        sampleRate: format.sampleRate)
    }
    measuredEnvelope.withLock { $0 = envelope }
    return envelope
  }
}
