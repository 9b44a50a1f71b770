/// An SDL event, translated into a value the game can match without importing SDL.
///
/// ```swift
/// for event in pump.poll() {
///   switch event {
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
