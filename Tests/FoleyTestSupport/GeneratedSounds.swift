import FoleyRecording
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

/// A 16-bit PCM WAV around interleaved samples, through Foley's one WAV encoder.
public func makeWAV(samples: [Int16], sampleRate: Int, channels: Int) -> Data {
  samples.withUnsafeBytes { bytes in
    WAVFile.data(
      format: RecordingFormat(sampleRate: sampleRate, channels: channels, sampleFormat: .signed16),
      samples: bytes)
  }
}

/// A 32-bit float WAV around interleaved samples.
public func makeFloatWAV(samples: [Float], sampleRate: Int, channels: Int) -> Data {
  samples.withUnsafeBytes { bytes in
    WAVFile.data(
      format: RecordingFormat(sampleRate: sampleRate, channels: channels, sampleFormat: .float32),
      samples: bytes)
  }
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

/// A file from `Tests/Fixtures`, made by `Scripts/make-fixtures.sh`.
public func fixture(_ name: String) -> URL {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent(name)
}
