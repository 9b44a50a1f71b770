/// Why a sound could not be loaded or played. Each case names the asset.
///
/// ```swift
/// do {
///   _ = try Sound(contentsOf: url, engine: engine)
/// } catch let error as SoundError {
///   print(error)  // "cannot decode 'boom.ogg': Unrecognized audio format"
/// }
/// ```
public struct SoundError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: Sendable, Hashable {
    /// The bytes are empty.
    case empty
    /// SDL_mixer could not decode the bytes (corrupt, truncated or unsupported).
    case undecodable
    /// The file does not exist or cannot be read.
    case unreadable
    /// The engine has been closed.
    case engineClosed
    /// The audio device was lost and none is open yet; sounds decode into the device's format,
    /// so this one can be loaded again once a device is back.
    case noDevice
  }

  public let code: Code
  /// The asset's name: a file name, or the name given with the data.
  public let asset: String
  /// SDL's message, or the system's, when there is one.
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
    case .unreadable: what = "cannot read '\(asset)'"
    case .engineClosed: what = "cannot load '\(asset)': the audio engine is closed"
    case .noDevice: what = "cannot load '\(asset)' now: no audio device is open"
    }
    return message.isEmpty ? what : "\(what): \(message)"
  }
}
