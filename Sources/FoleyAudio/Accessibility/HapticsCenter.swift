internal import CFoleySDL2
import FoleyCore
import Foundation

/// Why the controllers cannot rumble.
public enum HapticsError: Error, Sendable, Equatable, CustomStringConvertible {
  /// SDL's joystick subsystem did not start: SDL's own message.
  case joysticksUnavailable(String)

  public var description: String {
    switch self {
    case .joysticksUnavailable(let message): "game controllers are unavailable: \(message)"
    }
  }
}

/// Rumble from sound: a sound whose settings ask for ``SoundSettings/rumble`` runs the game's
/// controllers while it is heard — the heavy (low-frequency) motor from the sound's low band, the
/// light one from the rest, 10 ms at a time — from the moment the mixer
/// reaches its first frame, scaled by its distance from the listener, and stops when it ends.
/// The loudest rumbling sound sets each motor. Nothing rumbles while the session is inactive (the
/// window lost focus) or the player turned rumble off (``isEnabled``).
///
/// An attached scene updates it every frame; a game without a scene calls ``update()`` once per
/// frame itself, on the thread that runs SDL's events.
///
/// ```swift
/// try engine.haptics.useAllControllers()     // every joystick and game controller, as they come
/// var settings = SoundSettings()
/// settings.rumble = 0.8
/// let explosion = try Sound(contentsOf: boomURL, engine: engine, settings: settings)
/// ```
@MainActor
public final class HapticsCenter {
  /// The player's rumble intensity, 0…1, scaling every motor.
  public var intensity: Double = 1
  /// Whether sound may rumble the controllers at all (the player's ``AudioSettings/rumbles``).
  public var isEnabled: Bool {
    get { engine.value.core.buses.withLock { $0.rumbles } }
    set { engine.value.core.buses.withLock { $0.rumbles = newValue } }
  }
  /// The motors' strengths sent at the last update, 0…1 (for a HUD, or a test).
  public private(set) var motors: (low: Double, high: Double) = (0, 0)

  private let engine: AudioEngine.Unowned
  /// The rumbling plays and what each follows in the scene (nil: not placed).
  private var tracked: [(play: NotedPlay, anchor: AnyObject?)] = []
  /// The joysticks rumbled, with their instance ids; opened here unless the game handed them in.
  private var joysticks: [(id: Int32, handle: OpaquePointer, ownsHandle: Bool)] = []
  private var opensAll = false
  private var joystickCountSeen: Int32 = -1
  private var lastSent: (low: UInt16, high: UInt16) = (0, 0)
  private var lastSentFrame = 0

  /// Each send lasts this long, so a game that stops updating does not leave a motor running.
  static let sendDuration: UInt32 = 250
  /// How often an unchanged rumble is sent again (well inside ``sendDuration``), in seconds.
  static let refresh = 0.1

  package init(engine: AudioEngine) {
    self.engine = AudioEngine.Unowned(engine)
  }

  /// Rumbles every joystick and game controller attached, now and as they are plugged in (SDL's
  /// joystick subsystem is started for it).
  /// - Throws: ``HapticsError/joysticksUnavailable(_:)`` when SDL cannot start it.
  public func useAllControllers() throws(HapticsError) {
    guard !opensAll else { return }
    guard SDL_InitSubSystem(UInt32(SDL_INIT_JOYSTICK)) == 0 else {
      throw .joysticksUnavailable(String(cString: SDL_GetError()))
    }
    opensAll = true
    openNewJoysticks()
  }

  /// Rumbles a joystick the game opened itself (an `SDL_Joystick *`; for a game controller,
  /// `SDL_GameControllerGetJoystick`). The game keeps it open while Foley uses it.
  public func use(joystick: OpaquePointer) {
    let id = SDL_JoystickInstanceID(joystick)
    guard !joysticks.contains(where: { $0.id == id }) else { return }
    joysticks.append((id, joystick, false))
  }

  /// Stops the motors and lets go of every joystick (closing those opened here).
  public func releaseControllers() {
    send(low: 0, high: 0, force: true)
    for joystick in joysticks where joystick.ownsHandle { SDL_JoystickClose(joystick.handle) }
    joysticks.removeAll()
    if opensAll { SDL_QuitSubSystem(UInt32(SDL_INIT_JOYSTICK)) }
    opensAll = false
    joystickCountSeen = -1
  }

  /// Takes the new plays and sets the motors from what is heard now. A scene attached to the
  /// engine calls it every update; call it once a frame when there is none. The engine's
  /// ``AudioEngine/space`` places its voices' rumble from where their listeners hear them.
  public func update() {
    update(placing: engine.value.spaceIfMade)
  }

  /// ``update()`` with the scene's placing.
  package func update(placing: (any ScenePlacing)?) {
    let core = engine.value.core
    for play in core.rumblePlays.take() { tracked.append((play, placing?.anchor(of: play.voice))) }
    // A loop, not `removeAll(where:)`: a closure made on the main actor and called by the
    // standard library checks its executor at every call.
    var live = 0
    for index in tracked.indices
    where !tracked[index].play.voice.isFinished && tracked[index].play.sound != nil {
      if index != live { tracked.swapAt(index, live) }
      live += 1
    }
    tracked.removeLast(tracked.count - live)
    if opensAll { openNewJoysticks() }
    let mixed = Int(truncatingIfNeeded: core.mixer.framesMixed.load(ordering: .acquiring))
    let sampleRate = Double(core.format.sampleRate)
    var low = 0.0
    var high = 0.0
    if isEnabled, core.session.isActive {
      for (play, anchor) in tracked {
        let voice = play.voice
        guard voice.state == .playing, !voice.isVirtual, let start = voice.startFrame?.index, mixed > start
        else {
          continue
        }
        guard let sound = play.sound else { continue }
        var seconds = Double(mixed - start) / sampleRate
        if play.duration == nil || (play.duration ?? 0) > sound.duration {
          seconds = seconds.truncatingRemainder(dividingBy: max(sound.duration, HapticEnvelope.hop))
        }
        let (bandLow, bandHigh) = sound.buffer.hapticEnvelope.strengths(at: seconds)
        var placed = voice.initialPlacement?.gain ?? 1
        if let anchor, let placing { placed = placing.placement(of: .passUnretained(anchor)).gain }
        let gain =
          placed * (sound.settings.rumble ?? 0)
          * voice.volume * voice.groupVolume
        low = max(low, Double(bandLow) * gain)
        high = max(high, Double(bandHigh) * gain)
      }
    }
    let scale = min(max(intensity.isFinite ? intensity : 1, 0), 1)
    motors = (min(1, low * scale), min(1, high * scale))
    let refreshFrames = Int(Self.refresh * sampleRate)
    send(
      low: UInt16(motors.low * 65_535), high: UInt16(motors.high * 65_535),
      force: mixed - lastSentFrame >= refreshFrames && (motors.low > 0 || motors.high > 0), frame: mixed)
  }

  private func send(low: UInt16, high: UInt16, force: Bool, frame: Int? = nil) {
    guard force || (low, high) != lastSent else { return }
    lastSent = (low, high)
    if let frame { lastSentFrame = frame }
    let duration = low == 0 && high == 0 ? 0 : Self.sendDuration
    for joystick in joysticks { _ = SDL_JoystickRumble(joystick.handle, low, high, duration) }
  }

  private func openNewJoysticks() {
    let count = SDL_NumJoysticks()
    guard count != joystickCountSeen else { return }
    joystickCountSeen = count
    joysticks.removeAll { joystick in
      guard joystick.ownsHandle, SDL_JoystickGetAttached(joystick.handle) == SDL_FALSE else { return false }
      SDL_JoystickClose(joystick.handle)
      return true
    }
    guard count > 0 else { return }
    for index in 0..<count {
      let id = SDL_JoystickGetDeviceInstanceID(index)
      guard id >= 0, !joysticks.contains(where: { $0.id == id }), let handle = SDL_JoystickOpen(index) else {
        continue
      }
      joysticks.append((id, handle, true))
    }
  }
}

extension AudioEngine {
  /// The engine's rumble from sound (see ``HapticsCenter``). Made on first use; an attached scene
  /// updates it every frame.
  ///
  /// ```swift
  /// try engine.haptics.useAllControllers()
  /// ```
  @MainActor public var haptics: HapticsCenter {
    hapticsState.center.withLock { center in
      if let center { return center }
      let made = HapticsCenter(engine: self)
      center = made
      return made
    }
  }

  /// The haptics, if anything has made them.
  @MainActor package var hapticsIfMade: HapticsCenter? { hapticsState.center.withLock { $0 } }

  private var hapticsState: EngineHaptics { feature { EngineHaptics() } }
}

/// What the haptics keep per engine: the game thread's center, once made.
private final class EngineHaptics: Sendable {
  let center = Locked<HapticsCenter?>(nil)
}
