/// Why a sound could not be loaded or played. Each error names the asset.
///
/// ```swift
/// do {
///   _ = try engine.sound(named: "boom.ogg")
/// } catch let error as SoundError {
///   print(error)  // "cannot decode 'boom.ogg': corrupt Vorbis data"
/// }
/// ```
public struct SoundError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: Sendable, Hashable {
    /// The bytes are empty.
    case empty
    /// The bytes are corrupt, truncated or not audio at all.
    case undecodable
    /// A format Foley recognises but does not decode (MIDI, tracker modules, VOC, an unusual
    /// WAV encoding or channel layout).
    case unsupportedFormat
    /// Longer than `AudioConfiguration.maximumSoundDuration` (or than the bytes could hold):
    /// refused before decoding. Stream long audio instead.
    case tooLong
    /// Decoding produced no samples at all.
    case noSamples
    /// The decoder crashed or overran its memory on these bytes; the crash was contained in a
    /// separate process and the game goes on.
    case decoderCrashed
    /// The decoder took longer than allowed and was stopped.
    case decoderTimedOut
    /// The file does not exist or cannot be read.
    case unreadable
    /// The name is not a relative path inside the asset root (empty, absolute, a NUL byte, or it
    /// leads outside the root, through `..` or a link); nothing was read.
    case invalidName
    /// The engine has been closed.
    case engineClosed
  }

  public let code: Code
  /// The asset's name: a file name, or the name given with the data.
  public let asset: String
  /// The decoder's, SDL's or the system's message, when there is one.
  public let message: String

  public init(_ code: Code, asset: String, message: String = "") {
    self.code = code
    self.asset = asset
    self.message = message
  }

  public var description: String {
    let what: String
    switch code {
    case .empty: what = "sound data for '\(asset)' is empty"
    case .undecodable: what = "cannot decode '\(asset)'"
    case .unsupportedFormat: what = "cannot decode '\(asset)': unsupported"
    case .tooLong: what = "'\(asset)' is too long to decode whole"
    case .noSamples: what = "'\(asset)' decodes to no samples"
    case .decoderCrashed: what = "the decoder crashed on '\(asset)' (contained; the game goes on)"
    case .decoderTimedOut: what = "decoding '\(asset)' took too long and was stopped"
    case .unreadable: what = "cannot read '\(asset)'"
    case .invalidName: what = "'\(asset)' is not a name inside the asset root"
    case .engineClosed: what = "cannot load '\(asset)': the audio engine is closed"
    }
    return message.isEmpty ? what : "\(what): \(message)"
  }
}
