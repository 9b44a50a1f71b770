public import FoleyAudio
public import Foundation

// Sounds and sources more than one test target makes.

/// A temporary folder of tones named by file, each at its frequency (0.1 s at 0.3): what a sound
/// map's files are made of.
public func makeToneFolder(
  _ files: [String: Double] = ["a.wav": 220, "b.wav": 330, "c.wav": 440, "d.wav": 550]
) throws -> URL {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("foley-map-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  for (name, frequency) in files {
    try makeToneWAV(frequency: frequency, duration: 0.1, amplitude: 0.3).write(
      to: folder.appendingPathComponent(name))
  }
  return folder
}

/// A float stereo WAV whose every frame has its own value (both channels alike): `frames` frames
/// from `start`, rising by `step`; and the values.
public func makeRampWAV(
  from start: Float, frames: Int, step: Float = 1e-5, sampleRate: Int = 48_000
) -> (Data, [Float]) {
  let values = (0..<frames).map { start + Float($0) * step }
  let interleaved = values.flatMap { [$0, $0] }
  return (makeFloatWAV(samples: interleaved, sampleRate: sampleRate, channels: 2), values)
}

/// Seeded noise, mono at 48 kHz, every sample between 0.05 and 0.25 in magnitude (never silent,
/// so a sample-for-sample comparison means something).
public func noiseSamples(frames count: Int, seed: UInt32 = 12_345) -> [Float] {
  var state = seed
  var samples: [Float] = []
  samples.reserveCapacity(count)
  for _ in 0..<count {
    state = state &* 1_664_525 &+ 1_013_904_223
    let unit = Float(state >> 8) / Float(1 << 24)  // 0..<1
    let magnitude = 0.05 + 0.2 * unit
    samples.append(state & 1 == 0 ? magnitude : -magnitude)
  }
  return samples
}

/// ``noiseSamples(frames:seed:)`` as a float WAV.
public func makeNoiseWAV(frames count: Int, seed: UInt32 = 12_345) -> Data {
  makeFloatWAV(samples: noiseSamples(frames: count, seed: seed), sampleRate: 48_000, channels: 1)
}

/// Mono samples at 48 kHz, as a generator gives them.
public final class NoiseSource: PCMSource, @unchecked Sendable {
  public let sampleRate = 48_000
  public let channels = 1
  private let samples: [Float]
  private var read = 0

  public init(samples: [Float]) {
    self.samples = samples
  }

  public func read(into buffer: UnsafeMutablePointer<Float>, count: Int, waiting: Bool) -> Int {
    let take = min(count, samples.count - read)
    for index in 0..<take { buffer[index] = samples[read + index] }
    read += take
    return take
  }
}

/// Deterministic white noise in -0.5…0.5.
public func whiteNoise(seconds: Double, seed: UInt64) -> [Float] {
  var generator = SeededRandomNumbers(seed: seed)
  return (0..<Int(seconds * 48_000)).map { _ in Float.random(in: -0.5...0.5, using: &generator) }
}

public struct SeededRandomNumbers: RandomNumberGenerator {
  public var state: UInt64
  public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
