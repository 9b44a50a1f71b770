package import Synchronization

/// What the engine has done, for tests, the HUD and reports: counters read from atomics, cheap
/// enough for every frame. An ``AudioSnapshot`` carries the same counters with everything else.
///
/// ```swift
/// let stats = engine.statistics
/// print("\(stats.started) of \(stats.requested) started, \(stats.suppressed) suppressed")
/// ```
public struct AudioStatistics: Sendable, Hashable, Codable {
  /// Plays asked for, by actions or by `play(_:)`.
  public var requested = 0
  /// Plays that started: on a mixer channel, or virtual (``Voice/isVirtual``).
  public var started = 0
  /// Plays dropped because the session was inactive.
  public var suppressed = 0
  /// Plays refused by a policy (cap, `maximumInstances`, `minimumInterval`).
  public var rejected = 0
  /// Voices stopped to make room for another.
  public var stolen = 0
  /// Plays that failed: undecodable data, a missing file, no engine.
  public var failed = 0
  /// Voices playing or paused right now.
  public var activeVoices = 0
  /// The most voices at once since the engine opened.
  public var peakVoices = 0
  /// Times sound bytes were decoded.
  public var decodes = 0
  /// Scheduled plays whose frame was already mixed when they reached the mixer: they started
  /// at once, or on the next occurrence of their musical moment.
  public var lateStarts = 0
  /// Voices virtual right now: playing, in time, without a mixer channel (``Voice/isVirtual``).
  public var virtualVoices = 0
  /// Times a voice went virtual (it gave its channel back); a voice that comes back and goes
  /// again counts again.
  public var virtualizations = 0
  /// Output samples that came out of the mix as NaN or infinite and were put out as silence by
  /// the master's last guard. 0 in a healthy engine: every number the API takes is checked where
  /// it enters, so a count here is a bug worth reporting.
  public var nonFiniteSamples = 0
}

/// The live counters behind ``AudioStatistics``: atomics, bumped from the game thread and the
/// audio queue alike.
///
/// What every play writes on the game thread (``requested``, ``nextVoiceID``) has a cache line
/// of its own, padded off the object's header and the counters the audio queue writes: sharing
/// one, each trigger's increment waited for the line to come back from the queue's core.
package final class AudioCounters: Sendable {
  private let leadingPad: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
  package let requested = Atomic<Int>(0)
  /// The id of the next voice made (any thread, one a play).
  let nextVoiceID = Atomic<UInt64>(1)
  private let trailingPad: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)
  package let started = Atomic<Int>(0)
  package let suppressed = Atomic<Int>(0)
  package let rejected = Atomic<Int>(0)
  package let stolen = Atomic<Int>(0)
  package let failed = Atomic<Int>(0)
  package let activeVoices = Atomic<Int>(0)
  package let peakVoices = Atomic<Int>(0)
  package let decodes = Atomic<Int>(0)
  package let lateStarts = Atomic<Int>(0)
  package let virtualVoices = Atomic<Int>(0)
  package let virtualizations = Atomic<Int>(0)
  /// Voices that have finished, for anyone who keeps voices and wants to know when to look.
  package let finishedVoices = Atomic<Int>(0)

  /// The outcomes a play request can be counted under.
  package enum Outcome {
    case requested, started, suppressed, rejected, stolen, failed, decoded
  }

  // Wrapping adds: one locked add each, where a checked add is a compare-and-swap loop (no
  // count here comes near 2^63).
  func bump(_ outcome: Outcome) {
    switch outcome {
    case .requested: requested.wrappingAdd(1, ordering: .relaxed)
    case .started: started.wrappingAdd(1, ordering: .relaxed)
    case .suppressed: suppressed.wrappingAdd(1, ordering: .relaxed)
    case .rejected: rejected.wrappingAdd(1, ordering: .relaxed)
    case .stolen: stolen.wrappingAdd(1, ordering: .relaxed)
    case .failed: failed.wrappingAdd(1, ordering: .relaxed)
    case .decoded: decodes.wrappingAdd(1, ordering: .relaxed)
    }
  }

  /// A new voice's id, unique for the engine's life.
  func takeVoiceID() -> UInt64 {
    nextVoiceID.wrappingAdd(1, ordering: .relaxed).oldValue
  }

  func voiceStarted() {
    let now = activeVoices.add(1, ordering: .relaxed).newValue
    var peak = peakVoices.load(ordering: .relaxed)
    while now > peak {
      let (exchanged, original) = peakVoices.compareExchange(
        expected: peak, desired: now, ordering: .relaxed)
      if exchanged { break }
      peak = original
    }
  }

  package var snapshot: AudioStatistics {
    AudioStatistics(
      requested: requested.load(ordering: .relaxed), started: started.load(ordering: .relaxed),
      suppressed: suppressed.load(ordering: .relaxed), rejected: rejected.load(ordering: .relaxed),
      stolen: stolen.load(ordering: .relaxed), failed: failed.load(ordering: .relaxed),
      activeVoices: activeVoices.load(ordering: .relaxed), peakVoices: peakVoices.load(ordering: .relaxed),
      decodes: decodes.load(ordering: .relaxed), lateStarts: lateStarts.load(ordering: .relaxed),
      virtualVoices: virtualVoices.load(ordering: .relaxed),
      virtualizations: virtualizations.load(ordering: .relaxed))
  }
}
