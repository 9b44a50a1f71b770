public import FoleyCore

/// Why an ``AudioEngine`` could not open.
///
/// ```swift
/// do {
///   engine = try AudioEngine()
/// } catch AudioEngineError.alreadyOpen {
///   // another engine in this process has SDL_mixer open
/// }
/// ```
public enum AudioEngineError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Another engine has SDL_mixer open; close it first.
  case alreadyOpen
  /// Something else in the process (the host game) already has SDL_mixer open. Foley needs the
  /// mixer to itself: close it with `Mix_CloseAudio` first, or play the host's sounds through
  /// Foley.
  case mixerOpenedByHost
  /// SDL audio could not start at all, not even on the dummy driver.
  case noAudio(SDLError)
  /// A configuration value is out of range; the text names it.
  case invalidConfiguration(String)

  public var description: String {
    switch self {
    case .alreadyOpen: "another AudioEngine already has SDL_mixer open; close it first"
    case .mixerOpenedByHost:
      "SDL_mixer is already open in this process (not by Foley); close it (Mix_CloseAudio) before opening an AudioEngine"
    case .noAudio(let error): "SDL audio cannot start, not even silently: \(error)"
    case .invalidConfiguration(let what): "invalid audio configuration: \(what)"
    }
  }
}
