import Synchronization

/// The global audio-active flag, after the iOS audio session in the seeds: while it is false,
/// sound actions do nothing and count as suppressed.
///
/// The flag is an atomic, readable from any thread. It is checked when a sound action runs and
/// again on the audio queue right before a channel starts, so no sound slips through a
/// transition. Deactivating sets the flag false *first*; activating sets it true *last*.
///
/// ```swift
/// let session = AudioSession()               // or AudioSession.shared
/// let engine = try AudioEngine(session: session)
/// session.isActive = false                    // sounds are now suppressed
/// ```
///
/// `AudioSession.shared` is the process's default session; tests and tools create their own so
/// that nothing global has to be reset.
public final class AudioSession: Sendable {
  /// The process's default session, used by engines that are not handed one.
  public static let shared = AudioSession()

  private let active: Atomic<Bool>

  public init(isActive: Bool = true) {
    active = Atomic(isActive)
  }

  /// Whether sound may play. Lock-free; safe from any thread.
  public var isActive: Bool {
    get { active.load(ordering: .acquiring) }
    set { active.store(newValue, ordering: .releasing) }
  }
}
