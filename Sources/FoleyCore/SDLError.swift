internal import CFoleySDL2

/// A failure reported by SDL or SDL_mixer, carrying SDL's own message.
///
/// The message is read with `SDL_GetError()` at the throw site and SDL's error is cleared, so a
/// later failure never reports a stale message.
///
/// ```swift
/// do {
///   let context = try SDLContext(subsystems: [.audio], mode: .headless)
/// } catch let error as SDLError {
///   print(error)  // "SDL_InitSubSystem failed: No available audio device"
/// }
/// ```
public struct SDLError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The SDL or SDL_mixer function that failed, e.g. `"Mix_OpenAudioDevice"`.
  public let operation: String
  /// SDL's explanation, as `SDL_GetError()` gave it.
  public let message: String

  public init(operation: String, message: String) {
    self.operation = operation
    self.message = message
  }

  public var description: String {
    message.isEmpty ? "\(operation) failed" : "\(operation) failed: \(message)"
  }

  /// Reads SDL's current error for `operation`, then clears it.
  package static func fromSDL(_ operation: String) -> SDLError {
    let message = SDL_GetError().map { String(cString: $0) } ?? ""
    SDL_ClearError()
    return SDLError(operation: operation, message: message)
  }
}
