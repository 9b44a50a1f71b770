internal import CSDL2

/// Drains SDL's event queue and translates what Foley and games care about into
/// ``PlatformEvent`` values. Call ``poll()`` once per frame on the main thread.
///
/// ```swift
/// let pump = EventPump(sceneHeight: 480)
/// for event in pump.poll() { handle(event) }
/// ```
@MainActor
public struct EventPump {
  /// Used to flip mouse coordinates into scene coordinates (y up).
  public var sceneHeight: Double

  public init(sceneHeight: Double) {
    self.sceneHeight = sceneHeight
  }

  /// Every pending event, oldest first; events Foley does not translate are dropped.
  public func poll() -> [PlatformEvent] {
    var events: [PlatformEvent] = []
    var event = SDL_Event()
    while SDL_PollEvent(&event) != 0 {
      if let translated = translate(event) { events.append(translated) }
    }
    return events
  }

  func translate(_ event: SDL_Event) -> PlatformEvent? {
    switch SDL_EventType(event.type) {
    case SDL_QUIT:
      return .quit
    case SDL_KEYDOWN, SDL_KEYUP:
      let name = SDL_GetKeyName(event.key.keysym.sym).map { String(cString: $0) } ?? ""
      guard !name.isEmpty else { return nil }
      return event.type == SDL_KEYDOWN.rawValue
        ? .keyDown(Key(name: name), isRepeat: event.key.repeat != 0) : .keyUp(Key(name: name))
    case SDL_MOUSEBUTTONDOWN:
      return .mouseDown(x: Double(event.button.x), y: sceneHeight - Double(event.button.y))
    case SDL_WINDOWEVENT:
      switch SDL_WindowEventID(UInt32(event.window.event)) {
      case SDL_WINDOWEVENT_FOCUS_GAINED: return .windowFocusGained
      case SDL_WINDOWEVENT_FOCUS_LOST: return .windowFocusLost
      case SDL_WINDOWEVENT_MINIMIZED: return .windowMinimized
      case SDL_WINDOWEVENT_RESTORED: return .windowRestored
      default: return nil
      }
    case SDL_APP_WILLENTERBACKGROUND:
      return .appWillEnterBackground
    case SDL_APP_DIDENTERFOREGROUND:
      return .appDidEnterForeground
    case SDL_AUDIODEVICEADDED:
      return .audioDeviceAdded(index: event.adevice.which, isCapture: event.adevice.iscapture != 0)
    case SDL_AUDIODEVICEREMOVED:
      return .audioDeviceRemoved(deviceID: event.adevice.which, isCapture: event.adevice.iscapture != 0)
    default:
      return nil
    }
  }
}
