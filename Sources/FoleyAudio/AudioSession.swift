internal import CSDL2
import Dispatch
import Foundation
import Synchronization

/// The global audio-active flag and the rules for losing and regaining it, after the iOS audio
/// session in the seeds.
///
/// The session is inactive while at least one *reason* holds: the window lost focus, it is
/// minimised, the app is in the background, an interruption is under way, the device was lost,
/// or the host said so. Reasons nest: focus coming back while the window is still minimised
/// leaves the session inactive until every reason is cleared.
///
/// Deactivating sets ``isActive`` false *first*, then every engine pauses its voices with a short
/// ramp (or ducks them, per ``SessionPolicy``). Activating resumes exactly the voices that were
/// playing and not paused by the game, then sets the flag true *last*. Sounds triggered while
/// inactive are dropped and counted as suppressed, never queued to burst out later.
///
/// ```swift
/// let session = AudioSession()                 // or AudioSession.shared
/// let engine = try AudioEngine(session: session)
/// session.addObserver { transition in          // on the game thread (main actor)
///   print(transition.reason, transition.new.isActive)
/// }
/// session.beginInterruption()                  // a call comes in: everything pauses
/// session.endInterruption(shouldResume: true)  // and resumes where it was
///
/// // A host running its own SDL loop hands Foley each event:
/// // withUnsafePointer(to: &event) { session.handleSDLEvent($0) }
/// ```
///
/// `AudioSession.shared` is the process's default session; tests and tools create their own so
/// that nothing global has to be reset.
public final class AudioSession: Sendable {
  /// The process's default session, used by engines that are not handed one.
  public static let shared = AudioSession()

  /// Why the session is inactive.
  public enum Reason: Hashable, Sendable, CustomStringConvertible {
    /// The window lost keyboard focus.
    case focusLost
    /// The window was minimised.
    case minimized
    /// The app went to the background (`SDL_APP_WILLENTERBACKGROUND`).
    case background
    /// ``AudioSession/beginInterruption()``: a call, an alarm, another app took the audio.
    case interruption
    /// The audio device went away and no other could be opened yet.
    case deviceLost
    /// The host's own reason, from ``AudioSession/deactivate(reason:)``.
    case host(String)

    /// Interruptions and device loss silence every category, whatever its policy; the others
    /// are "unfocused" reasons, where ``SessionPolicy/playback`` and ``SessionPolicy/duck(decibels:)``
    /// keep sound going.
    public var silencesEverything: Bool { self == .interruption || self == .deviceLost }

    public var description: String {
      switch self {
      case .focusLost: "focusLost"
      case .minimized: "minimized"
      case .background: "background"
      case .interruption: "interruption"
      case .deviceLost: "deviceLost"
      case .host(let name): name
      }
    }
  }

  /// The session's state: active when no reason holds.
  public struct State: Hashable, Sendable, CustomStringConvertible {
    public var inactiveReasons: Set<Reason>
    public var isActive: Bool { inactiveReasons.isEmpty }
    /// True while an interruption or device loss holds.
    public var silencesEverything: Bool { inactiveReasons.contains { $0.silencesEverything } }

    public init(inactiveReasons: Set<Reason> = []) {
      self.inactiveReasons = inactiveReasons
    }

    public var description: String {
      isActive ? "active" : "inactive(\(inactiveReasons.map(\.description).sorted().joined(separator: ", ")))"
    }
  }

  /// One change of the session's state.
  public struct Transition: Sendable, Hashable {
    public let old: State
    public let new: State
    /// The reason that was added or cleared.
    public let reason: Reason
    /// True when the reason was cleared (an activation step), false when it was added.
    public let isClearing: Bool
  }

  private struct Registry {
    var state = State()
    var participants: [ObjectIdentifier: WeakParticipant] = [:]
    var observers: [(id: Int, body: @MainActor @Sendable (Transition) -> Void)] = []
    var nextObserverID = 0
    var undelivered: [Transition] = []
  }

  private struct WeakParticipant {
    weak var participant: (any AudioSessionParticipant)?
  }

  private let active: Atomic<Bool>
  private let registry = Mutex(Registry())
  /// Serialises transitions, so participants see them one at a time and in order. Participants
  /// may block (an engine waits for its queue); nothing they call takes this lock again.
  private let transitionLock = Mutex(())

  public init() {
    active = Atomic(true)
  }

  /// Whether sound may play. Lock-free; safe from any thread.
  public var isActive: Bool { active.load(ordering: .acquiring) }

  /// The reasons that hold right now.
  public var state: State { registry.withLock { $0.state } }

  // MARK: - Transitions

  /// Adds `reason`; the first reason makes the session inactive. Adding a reason that already
  /// holds does nothing.
  public func deactivate(reason: Reason = .host("host")) {
    transition(reason: reason, clearing: false, resumes: true)
  }

  /// Clears `reason`; clearing the last one makes the session active and resumes what the
  /// deactivation paused. Clearing a reason that does not hold does nothing.
  public func activate(reason: Reason = .host("host")) {
    transition(reason: reason, clearing: true, resumes: true)
  }

  /// Starts an interruption: every category pauses, whatever its policy.
  public func beginInterruption() {
    deactivate(reason: .interruption)
  }

  /// Ends an interruption. With `shouldResume` false the session becomes active again but the
  /// voices the interruption paused stay paused (their state is ``Voice/State/paused``) for the
  /// game to resume or stop.
  public func endInterruption(shouldResume: Bool) {
    transition(reason: .interruption, clearing: true, resumes: shouldResume)
  }

  private func transition(reason: Reason, clearing: Bool, resumes: Bool) {
    let changed: Bool = transitionLock.withLock { _ in
      let (old, participants): (State, [any AudioSessionParticipant]) = registry.withLock { registry in
        (registry.state, registry.participants.values.compactMap(\.participant))
      }
      var new = old
      if clearing {
        guard new.inactiveReasons.remove(reason) != nil else { return false }
      } else {
        guard new.inactiveReasons.insert(reason).inserted else { return false }
      }
      let change = StateChange(old: old, new: new, reason: reason, resumesPausedVoices: resumes)
      // The flag goes false before anything is paused, and true only after everything resumed.
      if !new.isActive { active.store(false, ordering: .releasing) }
      registry.withLock { $0.state = new }
      for participant in participants { participant.sessionDidChange(change) }
      if new.isActive { active.store(true, ordering: .releasing) }
      registry.withLock {
        $0.undelivered.append(Transition(old: old, new: new, reason: reason, isClearing: clearing))
      }
      return true
    }
    guard changed else { return }
    if Thread.isMainThread {
      MainActor.assumeIsolated { deliverTransitions() }
    } else {
      DispatchQueue.main.async { self.deliverTransitions() }
    }
  }

  // MARK: - Observers

  /// Calls `body` with every transition, on the game thread (the main actor). A transition made
  /// on the main thread is delivered at once; one made elsewhere arrives at the next
  /// `EventPump.poll()`, the next update of a scene the engine is attached to, or when the main
  /// queue next runs, whichever is first. Returns a token for ``removeObserver(_:)``.
  @discardableResult
  public func addObserver(_ body: @escaping @MainActor @Sendable (Transition) -> Void) -> Int {
    registry.withLock { registry in
      registry.nextObserverID += 1
      registry.observers.append((registry.nextObserverID, body))
      return registry.nextObserverID
    }
  }

  public func removeObserver(_ token: Int) {
    registry.withLock { $0.observers.removeAll { $0.id == token } }
  }

  /// Hands observers the transitions they have not seen yet, in order.
  @MainActor
  public func deliverTransitions() {
    let (pending, observers) = registry.withLock { registry in
      defer { registry.undelivered.removeAll() }
      return (registry.undelivered, registry.observers)
    }
    for transition in pending {
      for observer in observers { observer.body(transition) }
    }
  }

  // MARK: - Participants

  /// Registers an engine or recorder to be told about transitions and device events. The
  /// session holds it weakly.
  public func addParticipant(_ participant: any AudioSessionParticipant) {
    registry.withLock {
      $0.participants[ObjectIdentifier(participant)] = WeakParticipant(participant: participant)
    }
  }

  public func removeParticipant(_ participant: any AudioSessionParticipant) {
    registry.withLock { _ = $0.participants.removeValue(forKey: ObjectIdentifier(participant)) }
  }

  private var participants: [any AudioSessionParticipant] {
    registry.withLock { $0.participants.values.compactMap(\.participant) }
  }

  // MARK: - SDL events

  /// Applies one SDL event: window focus, minimise and restore, app background and foreground
  /// change the state; audio device events go to the engines and recorders. Other events are
  /// ignored. For hosts that run their own SDL loop; FoleyPlatform's `EventPump` calls it for
  /// every event it polls.
  ///
  /// - Parameter event: a pointer to an `SDL_Event` (any Swift binding of SDL2 has the same layout).
  /// - Returns: true when the event concerned the session or a device.
  @discardableResult
  public func handleSDLEvent(_ event: UnsafeRawPointer) -> Bool {
    handle(event.load(as: SDL_Event.self))
  }

  func handle(_ event: SDL_Event) -> Bool {
    switch SDL_EventType(event.type) {
    case SDL_WINDOWEVENT:
      switch SDL_WindowEventID(UInt32(event.window.event)) {
      case SDL_WINDOWEVENT_FOCUS_LOST: deactivate(reason: .focusLost)
      case SDL_WINDOWEVENT_FOCUS_GAINED: activate(reason: .focusLost)
      case SDL_WINDOWEVENT_MINIMIZED: deactivate(reason: .minimized)
      case SDL_WINDOWEVENT_RESTORED, SDL_WINDOWEVENT_MAXIMIZED: activate(reason: .minimized)
      default: return false
      }
    case SDL_APP_WILLENTERBACKGROUND: deactivate(reason: .background)
    case SDL_APP_DIDENTERFOREGROUND: activate(reason: .background)
    case SDL_AUDIODEVICEREMOVED:
      for participant in participants {
        participant.audioDeviceRemoved(deviceID: event.adevice.which, isCapture: event.adevice.iscapture != 0)
      }
    case SDL_AUDIODEVICEADDED:
      for participant in participants {
        participant.audioDeviceAdded(index: event.adevice.which, isCapture: event.adevice.iscapture != 0)
      }
    default: return false
    }
    return true
  }
}

/// What a participant is told when the session's state changes.
public struct StateChange: Sendable {
  public let old: AudioSession.State
  public let new: AudioSession.State
  public let reason: AudioSession.Reason
  /// False for `endInterruption(shouldResume: false)`: what the interruption paused stays paused.
  public let resumesPausedVoices: Bool
}

/// Something that follows an ``AudioSession``: engines pause and resume voices, recorders pause
/// and resume capture, and both react to their device going away.
///
/// Calls come on the thread that made the transition, one at a time; a participant may block
/// briefly (an engine waits for its audio queue) but must not start another transition from
/// ``sessionDidChange(_:)``.
public protocol AudioSessionParticipant: AnyObject, Sendable {
  func sessionDidChange(_ change: StateChange)
  /// `SDL_AUDIODEVICEREMOVED`: `deviceID` is the id of an opened device.
  func audioDeviceRemoved(deviceID: UInt32, isCapture: Bool)
  /// `SDL_AUDIODEVICEADDED`: `index` is a device index, not an id.
  func audioDeviceAdded(index: UInt32, isCapture: Bool)
}
