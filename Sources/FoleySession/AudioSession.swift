import Dispatch
public import FoleyCore
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
/// ramp (or ducks them, per its session policy). Activating resumes exactly the voices that were
/// playing and not paused by the game, then sets the flag true *last*. Sounds triggered while
/// inactive are dropped and counted as suppressed, never queued to burst out later.
///
/// ```swift
/// let session = AudioSession()                 // or AudioSession.shared
/// let engine = try AudioEngine(session: session)
/// session.observe { transition in          // on the game thread (main actor)
///   print(transition.reason, transition.new.isActive)
/// }
/// session.beginInterruption()                  // a call comes in: everything pauses
/// session.endInterruption(shouldResume: true)  // and resumes where it was
/// session.handle(.focusLost)                   // what a host's own event loop forwards
/// ```
///
/// `AudioSession.shared` is the process's default session; tests and tools create their own so
/// that nothing global has to be reset.
public final class AudioSession: Sendable {
  /// The process's default session, used by engines that are not handed one.
  public static let shared = AudioSession()

  /// Transitions kept for observers until the game thread takes them. A host whose loop never
  /// drains the main queue must not make them pile up without bound: past this many, the oldest
  /// are dropped (and counted in ``droppedTransitions``).
  public static let undeliveredLimit = 1_024

  private struct Registry {
    var state = State()
    var participants: [ObjectIdentifier: WeakParticipant] = [:]
    var observers: [(id: Int, body: @MainActor @Sendable (Transition) -> Void)] = []
    var nextObserverID = 0
    var undelivered: [Transition] = []
    var dropped = 0
  }

  private struct WeakParticipant {
    weak var participant: (any AudioSessionParticipant)?
  }

  private let active: Atomic<Bool>
  private let registry = Locked(Registry())
  /// True while a delivery is queued on the main queue, so transitions made off the main thread
  /// schedule one delivery between drains instead of one each.
  /// Where the session's transitions, and the events of every engine and recorder that use this
  /// session (music, sound maps, speech), wait for the game thread.
  public let mailbox = GameThreadMailbox()
  /// Whether a delivery of transitions is already in the mailbox.
  private let deliveryScheduled = Atomic<Bool>(false)
  /// Serialises transitions, so participants see them one at a time and in order, and counts
  /// them. Participants may block (an engine waits for its audio queue); nothing they call takes
  /// this lock again. (It holds a count rather than nothing: a zero-size value would share its
  /// address with the lock's own fields, which ThreadSanitizer then reports as a race.)
  private let transitionLock = Locked(0)

  public init() {
    active = Atomic(true)
  }

  /// Whether sound may play. Lock-free; safe from any thread.
  public var isActive: Bool { active.load(ordering: .acquiring) }

  /// The reasons that hold right now.
  public var state: State { registry.withLock { $0.state } }

  /// Transitions dropped because observers had not taken them for too long (see
  /// ``undeliveredLimit``).
  public var droppedTransitions: Int { registry.withLock { $0.dropped } }

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
  /// voices the interruption paused stay paused (their state is `Voice.State.paused`) for the
  /// game to resume or stop (`AudioEngine.resumeAllVoices()` and `stopAllVoices(tween:)` reach
  /// the ones no handle names).
  public func endInterruption(shouldResume: Bool) {
    transition(reason: .interruption, clearing: true, resumes: shouldResume)
  }

  /// Clears every reason in `reasons` that holds; used by a participant that goes away and must
  /// not leave its own reasons (a lost device) behind.
  public func clear(_ reasons: Set<Reason>) {
    for reason in reasons where state.inactiveReasons.contains(reason) { activate(reason: reason) }
  }

  private func transition(reason: Reason, clearing: Bool, resumes: Bool) {
    let changed: Bool = transitionLock.withLock { transitions in
      let (old, participants): (State, [any AudioSessionParticipant]) = registry.withLock { registry in
        (registry.state, registry.participants.values.compactMap(\.participant))
      }
      var new = old
      if clearing {
        guard new.inactiveReasons.remove(reason) != nil else { return false }
      } else {
        guard new.inactiveReasons.insert(reason).inserted else { return false }
      }
      transitions += 1
      let transition = Transition(
        old: old, new: new, reason: reason, isClearing: clearing, resumesPausedVoices: resumes)
      // The flag goes false before anything is paused, and true only after everything resumed.
      if !new.isActive { active.store(false, ordering: .releasing) }
      registry.withLock { $0.state = new }
      for participant in participants { participant.sessionDidChange(transition) }
      if new.isActive { active.store(true, ordering: .releasing) }
      registry.withLock { registry in
        registry.undelivered.append(transition)
        let excess = registry.undelivered.count - AudioSession.undeliveredLimit
        if excess > 0 {
          registry.undelivered.removeFirst(excess)
          registry.dropped += excess
        }
      }
      return true
    }
    guard changed else { return }
    if Thread.isMainThread {
      MainActor.assumeIsolated { deliverTransitions() }
    } else if deliveryScheduled.compareExchange(
      expected: false, desired: true, ordering: .acquiringAndReleasing
    )
    .exchanged {
      mailbox.post { self.deliverTransitions() }
    }
  }

  // MARK: - Observers

  /// Calls `body` with every transition, on the game thread (the main actor). A transition made
  /// on the main thread is delivered at once; one made elsewhere goes through the ``mailbox``,
  /// and arrives at the next `EventPump.poll()`, the next update of a scene the engine is
  /// attached to, or when the main queue next runs, whichever is first. Until the observation is
  /// cancelled.
  @discardableResult
  public func observe(_ body: @escaping @MainActor @Sendable (Transition) -> Void) -> Observation {
    let token = registry.withLock { registry in
      registry.nextObserverID += 1
      registry.observers.append((registry.nextObserverID, body))
      return registry.nextObserverID
    }
    return Observation { [weak self] in self?.registry.withLock { $0.observers.removeAll { $0.id == token } }
    }
  }

  /// Hands observers the transitions they have not seen yet, in order.
  @MainActor
  public func deliverTransitions() {
    deliveryScheduled.store(false, ordering: .releasing)
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

  var participants: [any AudioSessionParticipant] {
    registry.withLock { $0.participants.values.compactMap(\.participant) }
  }
}
