internal import CFoleyCodecs
internal import CFoleySDL2
package import Foundation

/// Decodes whole sounds into the mix's format: sniffs the format, checks what the header declares
/// before decoding anything (sample rate, channels, length against ``maximumDuration``), decodes
/// with the format's own library and converts with SDL's resampler (`foley_decode_whole`).
///
/// By default the decode runs in the decoding service, a long-lived helper process
/// (`foley_decode_isolated_samples`; a forked child if the service cannot start): a decoder that
/// crashes on hostile bytes, hangs, or runs away with memory ends only that process, and the
/// caller gets a ``SoundError`` (`.decoderCrashed`, `.decoderTimedOut`). It never touches SDL_mixer, whose
/// loader holds the audio lock while it decodes, so decoding never stalls the output.
package struct SoundDecoder: Sendable {
  package let format: AudioDeviceFormat
  /// The longest sound decoded whole, in seconds.
  let maximumDuration: Double
  /// Whether decoding runs isolated (the decoding service).
  package let isolated: Bool
  /// How long an isolated decode may take before it is stopped.
  package let timeout: Double
  /// Address space an isolated decoder may add to what it inherits.
  package static let childMemoryLimit = 512 << 20

  /// Starts the decoding service on a thread of its own, unless it runs or is starting
  /// (`foley_service_prewarm`).
  static func prewarmService() {
    locateServiceExecutable()
    foley_service_prewarm(childMemoryLimit)
  }

  /// Tells the services' C side where this program's executable is, once, before any service
  /// starts: Linux and macOS find it themselves, the POSIX build elsewhere cannot (Foundation's
  /// answer is the platform's own).
  package static func locateServiceExecutable() { _ = executableLocated }

  private static let executableLocated: Void = {
    foley_set_service_executable(Bundle.main.executablePath)
  }()

  package func decode(_ data: Data, name: String) throws(SoundError) -> DecodedSamples {
    guard !data.isEmpty else { throw SoundError(.empty, asset: name) }
    var target = foley_target(
      sample_rate: Int32(format.sampleRate), channels: Int32(format.channels),
      is_float: format.sampleFormat == .float32 ? 1 : 0)
    let capacity = foley_decode_capacity(&target, maximumDuration)
    if isolated { Self.locateServiceExecutable() }
    let (status, result, samples) =
      isolated ? decodeInChild(data, &target, capacity) : decodeHere(data, &target, capacity)
    guard status == FOLEY_OK.rawValue, let samples else {
      throw SoundError(Self.code(for: status), asset: name, message: Self.string(result.message))
    }
    let info = result.info
    let description = SourceDescription(
      format: String(cString: foley_format_name(info.format)), sampleRate: Int(info.sample_rate),
      channels: Int(info.channels), loopStart: info.loop_start >= 0 ? Int(info.loop_start) : nil,
      loopEnd: info.loop_end >= 0 ? Int(info.loop_end) : nil, title: Self.tag(result.title),
      artist: Self.tag(result.artist), album: Self.tag(result.album))
    let frames = Int(result.frames)
    return DecodedSamples(
      bytes: samples, byteCount: frames * format.bytesPerFrame, frames: frames, source: description)
  }

  private func decodeHere(
    _ data: Data, _ target: inout foley_target, _ capacity: Int
  ) -> (UInt32, foley_decode_result, UnsafeMutableRawPointer?) {
    var result = foley_decode_result()
    guard let output = SDL_malloc(capacity) else { return (FOLEY_ERR_NOMEM.rawValue, result, nil) }
    let status = data.withUnsafeBytes { bytes in
      foley_decode_whole(bytes.baseAddress, bytes.count, &target, maximumDuration, output, capacity, &result)
    }
    guard status == Int32(FOLEY_OK.rawValue) else {
      SDL_free(output)
      return (UInt32(status), result, nil)
    }
    // The output was sized for the longest sound allowed; keep what was used.
    let used = Int(result.frames) * format.bytesPerFrame
    return (FOLEY_OK.rawValue, result, SDL_realloc(output, used) ?? output)
  }

  private func decodeInChild(
    _ data: Data, _ target: inout foley_target, _ capacity: Int
  ) -> (UInt32, foley_decode_result, UnsafeMutableRawPointer?) {
    var result = foley_decode_result()
    var samples: UnsafeMutableRawPointer?
    let status = data.withUnsafeBytes { bytes in
      foley_decode_isolated_samples(
        bytes.baseAddress, bytes.count, &target, maximumDuration, Int32(timeout * 1_000),
        Self.childMemoryLimit,
        &result, &samples)
    }
    guard status == Int32(FOLEY_OK.rawValue), let samples else {
      return (UInt32(bitPattern: status), result, nil)
    }
    return (FOLEY_OK.rawValue, result, samples)
  }

  package static func code(for status: UInt32) -> SoundError.Code {
    switch status {
    case FOLEY_ERR_IO.rawValue: .unreadable
    case FOLEY_ERR_UNSUPPORTED.rawValue: .unsupportedFormat
    case FOLEY_ERR_TOO_LONG.rawValue: .tooLong
    case FOLEY_ERR_NO_SAMPLES.rawValue: .noSamples
    case FOLEY_ERR_CRASHED.rawValue: .decoderCrashed
    case FOLEY_ERR_TIMED_OUT.rawValue: .decoderTimedOut
    default: .undecodable
    }
  }

  private static func string<T>(_ field: T) -> String {
    withUnsafeBytes(of: field) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
  }

  private static func tag<T>(_ field: T) -> String? {
    let text = string(field)
    return text.isEmpty ? nil : text
  }

  private static func setMessage(_ result: inout foley_decode_result, _ text: String) {
    withUnsafeMutableBytes(of: &result.message) { buffer in
      let bytes = Array(text.utf8.prefix(buffer.count - 1))
      buffer.copyBytes(from: bytes)
      buffer[bytes.count] = 0
    }
  }
}
