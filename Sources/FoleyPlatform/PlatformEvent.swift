public import FoleyCore

/// An SDL event, translated into a value the game can match without importing SDL.
///
/// ```swift
/// for polled in pump.poll() {
///   switch polled.event {
///   case .quit, .keyDown(Key(name: "escape"), _): running = false
///   case .keyDown(let key, _): print("pressed", key.name)
///   default: break
///   }
/// }
/// ```
public enum PlatformEvent: Sendable, Equatable {
  case quit
  /// A key went down; `isRepeat` is true for the keyboard's auto-repeat.
  case keyDown(Key, isRepeat: Bool)
  case keyUp(Key)
  /// A mouse button went down at a point in scene coordinates (y up).
  case mouseDown(x: Double, y: Double)
  case windowFocusGained
  case windowFocusLost
  case windowMinimized
  case windowRestored
  case appWillEnterBackground
  case appDidEnterForeground
  /// `SDL_AUDIODEVICEADDED`: `index` is a device *index*, as SDL reports it for this event.
  case audioDeviceAdded(index: UInt32, isCapture: Bool)
  /// `SDL_AUDIODEVICEREMOVED`: `deviceID` is an opened device's *id*, as SDL reports it.
  case audioDeviceRemoved(deviceID: UInt32, isCapture: Bool)
}

/// A keyboard key by SDL's lower-cased key name: `"left"`, `"space"`, `"r"`, `"escape"`.
public struct Key: Hashable, Sendable, CustomStringConvertible {
  public let name: String

  public init(name: String) {
    self.name = name.lowercased()
  }

  public var description: String { name }

  public static let left = Key(name: "left")
  public static let right = Key(name: "right")
  public static let up = Key(name: "up")
  public static let down = Key(name: "down")
  public static let space = Key(name: "space")
  public static let escape = Key(name: "escape")
}

/// A ``PlatformEvent`` and the host instant it happened: ``EventPump/poll()`` returns these, oldest
/// first.
///
/// The instant is SDL's own stamp (SDL 2 stamps to the millisecond), carried onto `HostTime`,
/// so it can be set against the engine's clock: `engine.heardFrame(at: polled.time)` is the
/// frame of the output the player heard when it happened. SDL stamps an event when it is queued:
/// an event pushed from any thread (``EventPump/push(_:)``) at that moment; the window system's
/// keys and clicks when SDL gathers them, which is at each poll, so a game that judges timing
/// polls often (every frame, or from a loop of its own on the main thread).
///
/// ```swift
/// for polled in pump.poll() {
///   if case .keyDown(.space, _) = polled.event, let heard = engine.heardFrame(at: polled.time) {
///     judge(tapAt: heard)
///   }
/// }
/// ```
public struct TimedEvent: Sendable, Equatable {
  /// What happened.
  public var event: PlatformEvent
  /// When, on the host's monotonic clock (to within half a millisecond of SDL's stamp).
  public var time: HostTime

  public init(_ event: PlatformEvent, at time: HostTime) {
    self.event = event
    self.time = time
  }
}
