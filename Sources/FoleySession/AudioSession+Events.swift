internal import CFoleySDL2

extension AudioSession {
  /// What a platform reports that concerns sound: the window and the app's lifecycle, and audio
  /// devices coming and going. A host with its own event loop (SDL or not) translates its events
  /// into these and calls ``handle(_:)``.
  public enum Event: Hashable, Sendable {
    case focusLost
    case focusGained
    case minimized
    /// Restored or maximised after being minimised.
    case restored
    case willEnterBackground
    case didEnterForeground
    /// `SDL_AUDIODEVICEREMOVED`: `deviceID` is an opened device's *id*.
    case audioDeviceRemoved(deviceID: UInt32, isCapture: Bool)
    /// `SDL_AUDIODEVICEADDED`: `index` is a device *index*.
    case audioDeviceAdded(index: UInt32, isCapture: Bool)
  }

  /// Applies one platform event: window and app events change the state; device events go to the
  /// engines and recorders.
  public func handle(_ event: Event) {
    switch event {
    case .focusLost: deactivate(reason: .focusLost)
    case .focusGained: activate(reason: .focusLost)
    case .minimized: deactivate(reason: .minimized)
    case .restored: activate(reason: .minimized)
    case .willEnterBackground: deactivate(reason: .background)
    case .didEnterForeground: activate(reason: .background)
    case .audioDeviceRemoved(let id, let isCapture):
      for participant in participants { participant.audioDeviceRemoved(deviceID: id, isCapture: isCapture) }
    case .audioDeviceAdded(let index, let isCapture):
      for participant in participants { participant.audioDeviceAdded(index: index, isCapture: isCapture) }
    }
  }

  /// The session event an SDL event carries, if any.
  public static func event(fromSDLEvent bytes: UnsafeRawBufferPointer) -> Event? {
    guard bytes.count >= MemoryLayout<SDL_Event>.size, let base = bytes.baseAddress else { return nil }
    return event(from: base.loadUnaligned(as: SDL_Event.self))
  }

  static func event(from event: SDL_Event) -> Event? {
    switch SDL_EventType(event.type) {
    case SDL_WINDOWEVENT:
      switch SDL_WindowEventID(UInt32(event.window.event)) {
      case SDL_WINDOWEVENT_FOCUS_LOST: return .focusLost
      case SDL_WINDOWEVENT_FOCUS_GAINED: return .focusGained
      case SDL_WINDOWEVENT_MINIMIZED: return .minimized
      case SDL_WINDOWEVENT_RESTORED, SDL_WINDOWEVENT_MAXIMIZED: return .restored
      default: return nil
      }
    case SDL_APP_WILLENTERBACKGROUND: return .willEnterBackground
    case SDL_APP_DIDENTERFOREGROUND: return .didEnterForeground
    case SDL_AUDIODEVICEREMOVED:
      return .audioDeviceRemoved(deviceID: event.adevice.which, isCapture: event.adevice.iscapture != 0)
    case SDL_AUDIODEVICEADDED:
      return .audioDeviceAdded(index: event.adevice.which, isCapture: event.adevice.iscapture != 0)
    default: return nil
    }
  }

  /// Applies one SDL event, given as its raw bytes: for a host that runs its own SDL loop with
  /// its own Swift binding of SDL2 (every binding has SDL's layout, 56 bytes). Buffers shorter
  /// than an `SDL_Event` are ignored.
  ///
  /// ```swift
  /// var event = SDL_Event()
  /// while SDL_PollEvent(&event) != 0 {
  ///   withUnsafeBytes(of: &event) { _ = session.handleSDLEvent(bytes: $0) }
  /// }
  /// ```
  /// - Returns: true when the event concerned the session or a device.
  @discardableResult
  public func handleSDLEvent(bytes: UnsafeRawBufferPointer) -> Bool {
    guard let event = Self.event(fromSDLEvent: bytes) else { return false }
    handle(event)
    return true
  }

  /// Applies one SDL event from a raw pointer, reading `MemoryLayout<SDL_Event>.size` (56) bytes
  /// from it unchecked. Prefer ``handleSDLEvent(bytes:)``, which checks the size, or
  /// ``handle(_:)``; this stays for hosts that already call it.
  @discardableResult
  public func handleSDLEvent(_ event: UnsafeRawPointer) -> Bool {
    handleSDLEvent(bytes: UnsafeRawBufferPointer(start: event, count: MemoryLayout<SDL_Event>.size))
  }
}
