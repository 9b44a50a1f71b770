import CFoleySDL2
@_spi(FoleyStreams) import FoleyAudio
import Foundation

/// What resampling a 44.1 kHz stream to the 48 kHz mix costs the stream thread: Foley's pipe
/// (libsamplerate's `SRC_SINC_MEDIUM_QUALITY`, then SDL's stream for the format only) against SDL
/// 2's stream resampling on its own (what Foley used before, and what drifts 57 ppm off the
/// source's time), the same 30 s of stereo noise in the same 4,096-frame puts, in one run.
enum ResampleBenchmarks {
  static let seconds = 30.0

  static func figures(quick: Bool) throws -> [String: Any] {
    let frames = Int(seconds * 44_100)
    var random = SystemRandomNumberGenerator()
    let source = (0..<(frames * 2)).map { _ in Float.random(in: -0.5...0.5, using: &random) }
    var foley: [Double] = []
    var sdl: [Double] = []
    // Interleaved rounds; the least of each (the machine is shared).
    for _ in 0..<(quick ? 1 : 3) {
      foley.append(try foleyPipe(source, frames: frames))
      sdl.append(sdlStream(source, frames: frames))
    }
    let foleyPercent = foley.min()! / seconds * 100
    let sdlPercent = sdl.min()! / seconds * 100
    return [
      "music_resample_cpu_percent_per_stream": foleyPercent,
      "music_resample_sdl_cpu_percent_per_stream": sdlPercent,
    ]
  }

  /// Thread CPU seconds for Foley's own pipe to resample `source`.
  static func foleyPipe(_ source: [Float], frames: Int) throws -> Double {
    let format = AudioDeviceFormat(
      driver: "bench", sampleRate: 48_000, sampleFormat: .float32, channels: 2, bufferFrames: 512)
    let pipe = StreamPipe(
      StreamPipe.Setup(
        format: format, bufferedSeconds: 0.5, declickFrames: 240, wake: WakeSignal(notify: {}),
        voice: .finished(id: 0), category: .music))
    try pipe.prepareConverter(rate: 44_100, channels: 2, name: "bench")
    var out = [UInt8](repeating: 0, count: 1 << 16)
    let start = threadCPU
    source.withUnsafeBufferPointer { input in
      var done = 0
      while done < frames {
        let count = min(4_096, frames - done)
        pipe.convert(input.baseAddress! + done * 2, frames: count)
        done += count
        out.withUnsafeMutableBytes { buffer in
          while pipe.takeConverted(into: buffer.baseAddress!, count: buffer.count) > 0 {}
        }
      }
    }
    return Double(threadCPU - start) / 1e9
  }

  /// Thread CPU seconds for SDL 2's stream to resample `source` by itself.
  static func sdlStream(_ source: [Float], frames: Int) -> Double {
    let stream = SDL_NewAudioStream(
      CFoleySDL2_AUDIO_F32SYS(), 2, 44_100, CFoleySDL2_AUDIO_F32SYS(), 2, 48_000)
    defer { SDL_FreeAudioStream(stream) }
    var out = [UInt8](repeating: 0, count: 1 << 16)
    let start = threadCPU
    source.withUnsafeBufferPointer { input in
      var done = 0
      while done < frames {
        let count = min(4_096, frames - done)
        _ = SDL_AudioStreamPut(stream, input.baseAddress! + done * 2, Int32(count * 8))
        done += count
        out.withUnsafeMutableBytes { buffer in
          while SDL_AudioStreamGet(stream, buffer.baseAddress!, Int32(buffer.count)) > 0 {}
        }
      }
    }
    return Double(threadCPU - start) / 1e9
  }

  static var threadCPU: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
