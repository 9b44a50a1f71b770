internal import CFoleySDL2
import FoleyCore
public import FoleySession
import Synchronization

/// Drains SDL's event queue and translates what Foley and games care about into
/// ``PlatformEvent`` values. Call ``poll()`` once per frame on the main thread.
///
/// Given a session, the pump hands it every event first, so focus, minimise, background and audio
/// device events drive the audio-active flag (and device recovery) without the game doing
/// anything; the game still sees them as ``PlatformEvent`` values.
///
/// ```swift
/// let pump = EventPump(sceneHeight: 480, session: engine.session)
/// for polled in pump.poll() { handle(polled.event) }
/// ```
@MainActor
public struct EventPump {
  /// Used to flip mouse coordinates into scene coordinates (y up).
  public var sceneHeight: Double
  /// The session that follows the window and the audio devices, if any.
  public var session: AudioSession?

  public init(sceneHeight: Double, session: AudioSession? = nil) {
    self.sceneHeight = sceneHeight
    self.session = session
  }

  /// Every pending event, oldest first, each with the host instant SDL stamped it with; events
  /// Foley does not translate are dropped.
  public func poll() -> [TimedEvent] {
    var events: [TimedEvent] = []
    var event = SDL_Event()
    while SDL_PollEvent(&event) != 0 {
      if let session { withUnsafeBytes(of: &event) { _ = session.handleSDLEvent(bytes: $0) } }
      if let translated = translate(event) {
        events.append(TimedEvent(translated, at: SDLTicks.hostTime(ofStamp: event.common.timestamp)))
      }
    }
    session?.mailbox.drain()
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

extension EventPump {
  /// Puts `event` on SDL's event queue (`SDL_PushEvent`), so it travels exactly the path a real
  /// one does: the next ``poll()`` hands it to the session and returns it. Scripted runs and tests
  /// use this for window, app and audio-device events.
  ///
  /// ```swift
  /// try EventPump.push(.windowFocusLost)
  /// _ = pump.poll()          // the session is now inactive
  /// ```
  ///
  /// SDL stamps it now: the event ``poll()`` returns carries this instant.
  /// - Throws: `SDLError` when SDL's event queue is not running or refuses the event.
  public static func push(_ event: PlatformEvent) throws {
    var raw = SDL_Event()
    switch event {
    case .quit:
      raw.type = SDL_QUIT.rawValue
    case .keyDown(let key, let isRepeat):
      raw = try keyEvent(key, isDown: true, isRepeat: isRepeat)
    case .keyUp(let key):
      raw = try keyEvent(key, isDown: false, isRepeat: false)
    case .mouseDown(let x, let y):
      raw.type = SDL_MOUSEBUTTONDOWN.rawValue
      raw.button.button = UInt8(SDL_BUTTON_LEFT)
      raw.button.state = UInt8(SDL_PRESSED)
      raw.button.clicks = 1
      raw.button.x = try pixel(x, "x")
      raw.button.y = try pixel(y, "y")
    case .windowFocusGained: raw = windowEvent(SDL_WINDOWEVENT_FOCUS_GAINED)
    case .windowFocusLost: raw = windowEvent(SDL_WINDOWEVENT_FOCUS_LOST)
    case .windowMinimized: raw = windowEvent(SDL_WINDOWEVENT_MINIMIZED)
    case .windowRestored: raw = windowEvent(SDL_WINDOWEVENT_RESTORED)
    case .appWillEnterBackground: raw.type = SDL_APP_WILLENTERBACKGROUND.rawValue
    case .appDidEnterForeground: raw.type = SDL_APP_DIDENTERFOREGROUND.rawValue
    case .audioDeviceAdded(let index, let isCapture):
      raw.type = SDL_AUDIODEVICEADDED.rawValue
      raw.adevice.which = index
      raw.adevice.iscapture = isCapture ? 1 : 0
    case .audioDeviceRemoved(let deviceID, let isCapture):
      raw.type = SDL_AUDIODEVICEREMOVED.rawValue
      raw.adevice.which = deviceID
      raw.adevice.iscapture = isCapture ? 1 : 0
    }
    raw.common.timestamp = SDL_GetTicks()
    guard SDL_PushEvent(&raw) == 1 else { throw SDLError.fromSDL("SDL_PushEvent") }
  }

  /// `value` as SDL's whole-pixel coordinate, or an error naming it (a position from a script or
  /// a player may be anything: 1e308 once trapped here).
  private static func pixel(_ value: Double, _ name: String) throws(SDLError) -> Int32 {
    guard value.isFinite, let pixel = Int32(exactly: value.rounded()) else {
      throw SDLError(
        operation: "EventPump.push",
        message: "mouse \(name) = \(value) is not a pixel position in Int32's range")
    }
    return pixel
  }

  private static func keyEvent(_ key: Key, isDown: Bool, isRepeat: Bool) throws -> SDL_Event {
    let keycode = SDL_GetKeyFromName(key.name)
    guard keycode != SDLK_UNKNOWN.rawValue else {
      throw SDLError(operation: "SDL_GetKeyFromName", message: "unknown key '\(key.name)'")
    }
    var raw = SDL_Event()
    raw.type = (isDown ? SDL_KEYDOWN : SDL_KEYUP).rawValue
    raw.key.state = UInt8(isDown ? SDL_PRESSED : SDL_RELEASED)
    raw.key.repeat = isRepeat ? 1 : 0
    raw.key.keysym.sym = keycode
    raw.key.keysym.scancode = SDL_GetScancodeFromKey(keycode)
    return raw
  }

  private static func windowEvent(_ id: SDL_WindowEventID) -> SDL_Event {
    var raw = SDL_Event()
    raw.type = SDL_WINDOWEVENT.rawValue
    raw.window.event = UInt8(id.rawValue)
    return raw
  }
}

extension Key {
  /// Whether SDL has a key by this name (`SDL_GetKeyFromName`), e.g. for checking scripts.
  public var isKnownToSDL: Bool { SDL_GetKeyFromName(name) != SDLK_UNKNOWN.rawValue }
}

/// SDL's millisecond ticks (`SDL_GetTicks`, which stamps every event) on the host clock. SDL 2
/// counts them on `CLOCK_MONOTONIC_RAW` from an origin it keeps to itself: the origin is found
/// once, from the instant the tick count is seen to change, and a stamp becomes the middle of the
/// millisecond SDL's arithmetic gives it. SDL starts its ticks again when it is quit and
/// initialised anew (the last of its users shut down, then another opened it), so the origin is
/// checked against a reading of the ticks at each use and found again when they disagree.
package enum SDLTicks {
  /// The origin last found (0: none yet).
  private static let knownOrigin = Atomic<UInt64>(0)

  /// SDL's tick origin, in nanoseconds of the host clock: the one last found while the ticks
  /// read now agree with it, else found again.
  static var origin: UInt64 {
    let before = HostTime.now.nanoseconds
    let ticks = SDL_GetTicks64()
    let after = HostTime.now.nanoseconds
    let known = knownOrigin.load(ordering: .relaxed)
    if known != 0, agrees(origin: known, ticks: ticks, between: before, and: after) { return known }
    let found = findOrigin()
    knownOrigin.store(found, ordering: .relaxed)
    return found
  }

  /// Whether tick count `ticks`, read between host instants `before` and `after`, is what
  /// `origin` gives there (a millisecond either way for the rounding at the edges).
  package static func agrees(origin: UInt64, ticks: UInt64, between before: UInt64, and after: UInt64) -> Bool
  {
    let low = Self.ticks(at: before, origin: origin)
    let high = Self.ticks(at: after, origin: origin)
    return ticks &+ 1 >= low && ticks <= high &+ 1
  }

  /// The host instant of event stamp `stamp` (32-bit milliseconds, as `SDL_Event` carries it,
  /// unwrapped against the ticks now).
  static func hostTime(ofStamp stamp: UInt32) -> HostTime {
    let now = SDL_GetTicks64()
    let behind = UInt64(UInt32(truncatingIfNeeded: now) &- stamp)
    let ticks = now >= behind ? now - behind : UInt64(stamp)
    let start = origin
    let base = start &+ ticks &* 1_000_000
    // Half a millisecond after the tick began, or before it (SDL's sums round the other way for
    // part of each second): whichever SDL's own arithmetic gives this stamp.
    for candidate in [base &+ 500_000, base &- 500_000]
    where Self.ticks(at: candidate, origin: start) == ticks {
      return HostTime(nanoseconds: candidate)
    }
    return HostTime(nanoseconds: base)
  }

  /// SDL 2.26's `SDL_GetTicks64` at host instant `time` for tick origin `origin`: seconds and
  /// nanoseconds subtracted apart, the nanoseconds truncated towards zero.
  static func ticks(at time: UInt64, origin: UInt64) -> UInt64 {
    let seconds = Int64(time / 1_000_000_000) - Int64(origin / 1_000_000_000)
    let nanoseconds = Int64(time % 1_000_000_000) - Int64(origin % 1_000_000_000)
    return UInt64(max(0, seconds * 1_000 + nanoseconds / 1_000_000))
  }

  /// Watches the tick count change (at most a few milliseconds) and takes the origin that puts a
  /// tick boundary at that instant and agrees with both readings either side of it.
  static func findOrigin() -> UInt64 {
    var before = HostTime.now.nanoseconds
    var last = SDL_GetTicks64()
    let deadline = before + 5_000_000
    while true {
      let start = HostTime.now.nanoseconds
      let ticks = SDL_GetTicks64()
      let end = HostTime.now.nanoseconds
      if ticks != last {
        // The boundary lies between the last reading's start and this one's end.
        let boundary = before / 2 + end / 2
        for candidate in [ticks, ticks &- 1] {
          let origin = boundary &- candidate &* 1_000_000
          if Self.ticks(at: end, origin: origin) == ticks, Self.ticks(at: before, origin: origin) == last {
            return origin
          }
        }
        return boundary &- ticks &* 1_000_000
      }
      if end > deadline { return end &- ticks &* 1_000_000 }
      before = start
      last = ticks
    }
  }
}
