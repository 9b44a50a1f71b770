internal import CFoleySDL2
import FoleyCore

/// Owns SDL's initialisation for Foley: initialises the subsystems asked for, applies hints, and
/// shuts down exactly what it started.
///
/// In `.headless` mode it selects SDL's dummy audio and video drivers, unless the environment
/// already names others (`SDL_AUDIODRIVER=disk` for a test that reads the mixed output, say).
/// Embedding in a game that already initialised SDL is fine: SDL counts subsystem
/// initialisations, and the context quits only the ones it started.
///
/// ```swift
/// let sdl = try SDLContext(subsystems: [.audio, .video, .events], mode: .headless)
/// print(sdl.audioDriver ?? "no audio driver")  // "dummy"
/// sdl.shutdown()
/// ```
@MainActor
public final class SDLContext {
  /// The SDL subsystems to initialise.
  public struct Subsystems: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let audio = Subsystems(rawValue: SDL_INIT_AUDIO)
    public static let video = Subsystems(rawValue: SDL_INIT_VIDEO)
    public static let events = Subsystems(rawValue: SDL_INIT_EVENTS)
    public static let timer = Subsystems(rawValue: SDL_INIT_TIMER)
    public static let gameController = Subsystems(rawValue: SDL_INIT_GAMECONTROLLER)
  }

  /// Whether a display and sound card are expected.
  public enum Mode: Sendable {
    /// Use whatever drivers SDL picks (or the environment names).
    case windowed
    /// Default to SDL's dummy audio and video drivers unless the environment names others.
    case headless
  }

  public let subsystems: Subsystems
  public let mode: Mode
  public private(set) var isRunning: Bool

  /// Initialises SDL.
  /// - Parameters:
  ///   - subsystems: the SDL subsystems to start (video, events, audio, …).
  ///   - mode: how the video is presented: a window, or off screen.
  ///   - hints: extra SDL hints (`SDL_HINT_*` names and values), applied before init at
  ///     normal priority, so environment variables still win.
  /// - Throws: `SDLError` with SDL's message when a subsystem cannot start.
  public init(subsystems: Subsystems, mode: Mode = .windowed, hints: [String: String] = [:]) throws {
    self.subsystems = subsystems
    self.mode = mode
    if mode == .headless {
      // SDL reads SDL_AUDIODRIVER / SDL_VIDEODRIVER from the environment ahead of these hints.
      SDL_SetHint(SDL_HINT_AUDIODRIVER, "dummy")
      SDL_SetHint(SDL_HINT_VIDEODRIVER, "dummy")
    }
    for (name, value) in hints.sorted(by: { $0.key < $1.key }) {
      SDL_SetHint(name, value)
    }
    guard SDL_InitSubSystem(subsystems.rawValue) == 0 else {
      throw SDLError.fromSDL("SDL_InitSubSystem")
    }
    isRunning = true
  }

  /// The audio driver SDL is using (`"pulseaudio"`, `"dummy"`, `"disk"`…), nil without audio.
  public var audioDriver: String? {
    SDL_GetCurrentAudioDriver().map { String(cString: $0) }
  }

  /// The video driver SDL is using, nil without video.
  public var videoDriver: String? {
    SDL_GetCurrentVideoDriver().map { String(cString: $0) }
  }

  /// Quits the subsystems this context started, and SDL itself when nothing else uses it.
  /// Safe to call more than once.
  public func shutdown() {
    guard isRunning else { return }
    isRunning = false
    SDL_QuitSubSystem(subsystems.rawValue)
    if SDL_WasInit(0) == 0 {
      SDL_Quit()
    }
  }
}
