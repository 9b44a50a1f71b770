import FoleyRecording
import Foundation

/// The benchmark's sounds: 440 Hz sines at 0.3 of full scale, 48 kHz stereo 16-bit, through
/// Foley's WAV encoder. The C baseline reads the same files.
enum BenchSounds {
  static func tone(seconds: Double, frequency: Double = 440) -> Data {
    let frames = Int(seconds * 48_000)
    var samples = [Int16](repeating: 0, count: frames * 2)
    for frame in 0..<frames {
      let value = Int16(0.3 * 32_767 * sin(2 * Double.pi * frequency * Double(frame) / 48_000))
      samples[2 * frame] = value
      samples[2 * frame + 1] = value
    }
    return samples.withUnsafeBytes {
      WAVFile.data(
        format: RecordingFormat(sampleRate: 48_000, channels: 2, sampleFormat: .signed16), samples: $0)
    }
  }

  static func write(to folder: URL) throws {
    try tone(seconds: 0.25).write(to: folder.appendingPathComponent("short.wav"))
    try tone(seconds: 1).write(to: folder.appendingPathComponent("long.wav"))
  }
}
