internal import CFoleyCodecs
internal import CFoleySDL2
import FoleySession
import Foundation

/// Decodes whole sounds: sniffs the format, checks what the header declares before decoding
/// anything (sample rate, channels, length against ``maximumDuration``), decodes with the
/// format's own library, and converts to the mix's format with SDL's resampler.
///
/// It never touches SDL_mixer (whose loader holds the audio lock while it decodes), so decoding
/// never stalls the output.
struct SoundDecoder: Sendable {
  let format: AudioDeviceFormat
  /// The longest sound decoded whole, in seconds.
  let maximumDuration: Double

  /// Sample rates a file may declare; anything else is a corrupt or hostile header.
  static let sampleRates = 1_000...384_000

  func decode(_ data: Data, name: String) throws(SoundError) -> DecodedSamples {
    guard !data.isEmpty else { throw SoundError(.empty, asset: name) }
    let result = data.withUnsafeBytes { bytes -> Result<DecodedSamples, SoundError> in
      var info = foley_info()
      var status: Int32 = 0
      var message = [CChar](repeating: 0, count: 256)
      guard
        let source = foley_source_open_memory(
          bytes.baseAddress, bytes.count, &info, &status, &message, message.count)
      else {
        let text = String(nulTerminated: message)
        let code: SoundError.Code =
          status == Int32(FOLEY_ERR_UNSUPPORTED.rawValue) ? .unsupportedFormat : .undecodable
        return .failure(SoundError(code, asset: name, message: text))
      }
      defer { foley_source_close(source) }
      return Result { () throws(SoundError) in
        try decode(source, info: info, inputBytes: bytes.count, name: name)
      }
    }
    return try result.get()
  }

  private func decode(
    _ source: OpaquePointer, info: foley_info, inputBytes: Int, name: String
  ) throws(SoundError) -> DecodedSamples {
    let rate = Int(info.sample_rate)
    let channels = Int(info.channels)
    guard Self.sampleRates.contains(rate) else {
      throw SoundError(.undecodable, asset: name, message: "the header declares \(rate) Hz")
    }
    let frameLimit = Int(maximumDuration * Double(rate))
    if info.frames >= 0, Int(info.frames) > frameLimit {
      throw SoundError(
        .tooLong, asset: name,
        message: String(
          format: "%.1f s declared, %.1f s is the limit (AudioConfiguration.maximumSoundDuration)",
          Double(info.frames) / Double(rate), maximumDuration))
    }
    let converter = try SampleConverter(from: rate, channels: channels, to: format, name: name)
    let chunkFrames = 8_192
    var input = [Float](repeating: 0, count: chunkFrames * channels)
    var decoded = 0
    while true {
      let got = input.withUnsafeMutableBufferPointer { buffer in
        Int(foley_source_read(source, buffer.baseAddress, Int64(chunkFrames)))
      }
      if got < 0 {
        // A stream that breaks after some audio keeps what came before (as players do); one that
        // yields nothing at all is not a sound.
        if decoded > 0 { break }
        throw SoundError(.undecodable, asset: name, message: String(cString: foley_source_error(source)))
      }
      if got == 0 { break }
      decoded += got
      guard decoded <= frameLimit else {
        throw SoundError(
          .tooLong, asset: name,
          message: String(
            format: "longer than %.1f s (AudioConfiguration.maximumSoundDuration)", maximumDuration))
      }
      try converter.put(input, frames: got)
    }
    guard decoded > 0 else { throw SoundError(.noSamples, asset: name) }
    let description = SourceDescription(
      format: String(cString: foley_format_name(info.format)), sampleRate: rate, channels: channels,
      loopStart: info.loop_start >= 0 ? Int(info.loop_start) : nil,
      loopEnd: info.loop_end >= 0 ? Int(info.loop_end) : nil,
      title: Self.tag("TITLE", of: source), artist: Self.tag("ARTIST", of: source),
      album: Self.tag("ALBUM", of: source))
    // SDL's resampler pads its output when flushed; the sound is exactly as long as the source.
    let frames = Int((Double(decoded) * Double(format.sampleRate) / Double(rate)).rounded())
    return try converter.finish(source: description, frames: frames)
  }

  static func tag(_ key: String, of source: OpaquePointer) -> String? {
    var value = [CChar](repeating: 0, count: 1_025)
    guard foley_source_tag(source, key, &value, value.count) >= 0 else { return nil }
    return String(nulTerminated: value)
  }
}

/// SDL's audio stream, from a decoder's float frames to the mix's rate, channels and format,
/// collected into one `SDL_malloc` buffer.
final class SampleConverter {
  private let stream: OpaquePointer
  private let target: AudioDeviceFormat
  private let name: String
  private var output: UnsafeMutableRawPointer?
  private var capacity = 0
  private var length = 0
  private let inputChannels: Int

  init(from rate: Int, channels: Int, to target: AudioDeviceFormat, name: String) throws(SoundError) {
    let targetFormat = target.sampleFormat == .float32 ? CFoleySDL2_AUDIO_F32SYS() : CFoleySDL2_AUDIO_S16SYS()
    guard
      let stream = SDL_NewAudioStream(
        CFoleySDL2_AUDIO_F32SYS(), UInt8(channels), Int32(rate), targetFormat, UInt8(target.channels),
        Int32(target.sampleRate))
    else {
      let error = SDLError.fromSDL("SDL_NewAudioStream")
      throw SoundError(
        .unsupportedFormat, asset: name,
        message: "cannot convert \(channels) channels at \(rate) Hz: \(error.message)")
    }
    self.stream = stream
    self.target = target
    self.name = name
    self.inputChannels = channels
  }

  deinit {
    SDL_FreeAudioStream(stream)
    if let output { SDL_free(output) }
  }

  func put(_ samples: [Float], frames: Int) throws(SoundError) {
    let accepted = samples.withUnsafeBytes { bytes in
      SDL_AudioStreamPut(stream, bytes.baseAddress, Int32(frames * inputChannels * 4))
    }
    guard accepted == 0 else { throw conversionError("SDL_AudioStreamPut") }
    try collect()
  }

  func finish(source: SourceDescription, frames: Int) throws(SoundError) -> DecodedSamples {
    // The resampler holds back the last few milliseconds until more input follows: feed it
    // silence, then keep exactly the source's length.
    try put([Float](repeating: 0, count: 4_096 * inputChannels), frames: 4_096)
    guard SDL_AudioStreamFlush(stream) == 0 else { throw conversionError("SDL_AudioStreamFlush") }
    try collect()
    let frameBytes = target.bytesPerFrame
    length = min(length - length % frameBytes, frames * frameBytes)
    guard length > 0, let bytes = output else { throw SoundError(.noSamples, asset: name) }
    output = nil
    return DecodedSamples(bytes: bytes, byteCount: length, frames: length / frameBytes, source: source)
  }

  private func collect() throws(SoundError) {
    // The stream converts in pieces: what is available can grow as it is taken.
    while case let available = Int(SDL_AudioStreamAvailable(stream)), available > 0 {
      if length + available > capacity {
        let grown = max(length + available, capacity * 2)
        guard let bigger = SDL_realloc(output, grown) else {
          throw SoundError(.undecodable, asset: name, message: "out of memory")
        }
        output = bigger
        capacity = grown
      }
      let got = Int(SDL_AudioStreamGet(stream, output! + length, Int32(available)))
      guard got > 0 else {
        if got < 0 { throw conversionError("SDL_AudioStreamGet") }
        return
      }
      length += got
    }
  }

  private func conversionError(_ operation: String) -> SoundError {
    SoundError(.undecodable, asset: name, message: SDLError.fromSDL(operation).message)
  }
}

extension String {
  /// The text in a C buffer up to its first NUL.
  init(nulTerminated buffer: [CChar]) {
    self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
