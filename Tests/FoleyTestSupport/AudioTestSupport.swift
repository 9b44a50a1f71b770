public import FoleyAudio
public import FoleyScene
public import Foundation

/// A 16-bit PCM WAV file in memory: a sine at `frequency` Hz, or a constant level (DC) when
/// `frequency` is 0.
public func makeToneWAV(
  frequency: Double, duration: Double, amplitude: Double = 0.5, sampleRate: Int = 48_000, channels: Int = 2
) -> Data {
  let frames = Int(duration * Double(sampleRate))
  var samples = [Int16](repeating: 0, count: frames * channels)
  for frame in 0..<frames {
    let wave = frequency == 0 ? 1 : sin(2 * .pi * frequency * Double(frame) / Double(sampleRate))
    let value = Int16(amplitude * 32767 * wave)
    for channel in 0..<channels { samples[frame * channels + channel] = value }
  }
  return makeWAV(samples: samples, sampleRate: sampleRate, channels: channels)
}

/// Runs `body` with environment variables set, then restores them. SDL reads its driver choice
/// from the environment, which outranks hints.
public func withEnvironment<T>(_ values: [String: String?], _ body: () throws -> T) rethrows -> T {
  var saved: [String: String?] = [:]
  for (name, value) in values {
    saved[name] = getenv(name).map { String(cString: $0) }
    if let value { setenv(name, value, 1) } else { unsetenv(name) }
  }
  defer {
    for (name, value) in saved {
      if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
  }
  return try body()
}

/// Blocks the game thread for `seconds` while the audio queue and SDL's audio thread work,
/// stepping `scene` at 60 Hz if given. SDL tests block rather than await so that no other SDL
/// test can interleave on the main actor.
@MainActor
public func runFor(_ seconds: Double, stepping scene: Scene? = nil) {
  let end = Date().addingTimeInterval(seconds)
  while Date() < end {
    scene?.update(deltaTime: 1.0 / 60.0)
    usleep(16_000)
  }
}

/// Mixed output captured by SDL's disk driver: interleaved stereo 16-bit samples at 48 kHz.
public struct DiskCapture {
  public let left: [Int16]
  public let right: [Int16]

  public init(contentsOf url: URL) throws {
    let data = try Data(contentsOf: url)
    let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    left = stride(from: 0, to: samples.count - 1, by: 2).map { samples[$0] }
    right = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
  }

  /// The frames between the first and the last sample louder than `threshold`.
  public func audibleRange(threshold: Int16 = 64) -> Range<Int>? {
    guard let first = left.firstIndex(where: { abs(Int($0)) > threshold }),
      let last = left.lastIndex(where: { abs(Int($0)) > threshold })
    else { return nil }
    return first..<(last + 1)
  }

  public var peak: Int { left.map { abs(Int($0)) }.max() ?? 0 }

  /// The largest jump between neighbouring samples: a click shows up as a jump far above what the
  /// tone itself makes.
  public var largestStep: Int {
    zip(left, left.dropFirst()).map { abs(Int($1) - Int($0)) }.max() ?? 0
  }

  /// Frequency from rising zero crossings across `range`.
  public func frequency(in range: Range<Int>, sampleRate: Double = 48_000) -> Double {
    let slice = left[range]
    var crossings: [Int] = []
    var previous = slice.first ?? 0
    for (index, sample) in zip(slice.indices, slice) {
      if previous < 0 && sample >= 0 { crossings.append(index) }
      previous = sample
    }
    guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) * sampleRate / Double(last - first)
  }
}

/// Opens an engine on SDL's disk driver writing to a fresh file; `body` plays; the capture is read
/// after the engine closes.
@MainActor
public func captureDiskOutput(
  configuration: AudioConfiguration = AudioConfiguration(), session: AudioSession = AudioSession(),
  _ body: (AudioEngine) throws -> Void
) throws -> DiskCapture {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "foley-disk-\(UUID().uuidString).raw")
  defer { try? FileManager.default.removeItem(at: url) }
  try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": url.path]) {
    let engine = try AudioEngine(configuration: configuration, session: session)
    defer { engine.close() }
    precondition(engine.deviceFormat.driver == "disk" && !engine.isSilent, "disk driver did not open")
    try body(engine)
  }
  return try DiskCapture(contentsOf: url)
}

/// Records the order of events in a test; a class so blocks can append to it.
@MainActor
public final class EventLog {
  public var entries: [String] = []
  public init() {}
  public func append(_ entry: String) { entries.append(entry) }
}

/// A 16-bit stereo WAV whose samples rise linearly from `start` to `end`: every frame has its own
/// value, so the output shows exactly where a sound was paused and where it resumed.
public func makeRampWAV(from start: Int16, to end: Int16, duration: Double, sampleRate: Int = 48_000) -> Data
{
  let frames = Int(duration * Double(sampleRate))
  var samples = [Int16](repeating: 0, count: frames * 2)
  for frame in 0..<frames {
    let value = Int16(Double(start) + Double(Int(end) - Int(start)) * Double(frame) / Double(frames))
    samples[frame * 2] = value
    samples[frame * 2 + 1] = value
  }
  return makeWAV(samples: samples, sampleRate: sampleRate, channels: 2)
}

/// A 16-bit PCM WAV around interleaved samples.
public func makeWAV(samples: [Int16], sampleRate: Int, channels: Int) -> Data {
  var data = Data()
  func append<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
  }
  let byteCount = samples.count * 2
  data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + byteCount))
  data.append(contentsOf: Array("WAVE".utf8)); data.append(contentsOf: Array("fmt ".utf8))
  append(UInt32(16)); append(UInt16(1)); append(UInt16(channels)); append(UInt32(sampleRate))
  append(UInt32(sampleRate * channels * 2)); append(UInt16(channels * 2)); append(UInt16(16))
  data.append(contentsOf: Array("data".utf8)); append(UInt32(byteCount))
  samples.withUnsafeBytes { data.append(contentsOf: $0) }
  return data
}

/// The runs of consecutive non-zero frames in `samples`, ignoring gaps shorter than `minimumGap`.
public func audibleSegments(_ samples: [Int16], minimumGap: Int = 480) -> [Range<Int>] {
  var segments: [Range<Int>] = []
  var start: Int?
  var lastAudible = -1
  for (index, sample) in samples.enumerated() where sample != 0 {
    if let begun = start, index - lastAudible > minimumGap {
      segments.append(begun..<(lastAudible + 1))
      start = index
    } else if start == nil {
      start = index
    }
    lastAudible = index
  }
  if let start { segments.append(start..<(lastAudible + 1)) }
  return segments
}

/// Interleaved samples of a sine per channel (channel `c` at `frequency * (c + 1)`), as raw
/// little-endian bytes in 16-bit integer or 32-bit float: the input for SDL's disk capture driver.
public func makeRawSignal(
  frequency: Double, amplitude: Double, seconds: Double, sampleRate: Int, channels: Int, float: Bool
) -> Data {
  let frames = Int(seconds * Double(sampleRate))
  var data = Data(capacity: frames * channels * (float ? 4 : 2))
  for frame in 0..<frames {
    for channel in 0..<channels {
      let value =
        amplitude * sin(2 * .pi * frequency * Double(channel + 1) * Double(frame) / Double(sampleRate))
      if float {
        withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { data.append(contentsOf: $0) }
      } else {
        withUnsafeBytes(of: Int16(value * 32767).littleEndian) { data.append(contentsOf: $0) }
      }
    }
  }
  return data
}

/// A fresh path in the temporary directory (nothing is created).
public func temporaryFile(_ name: String) -> URL {
  FileManager.default.temporaryDirectory.appendingPathComponent("foley-\(UUID().uuidString)-\(name)")
}
