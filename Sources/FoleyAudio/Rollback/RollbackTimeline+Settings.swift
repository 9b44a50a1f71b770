// What a rollback timeline can be told to do with late and mispredicted sounds, and what one
// reconciliation did.
extension RollbackTimeline {
  /// How a timeline treats what the new timeline no longer wants and what it wants late.
  public struct Settings: Sendable, Equatable {
    /// The fade of a mispredicted sound (click-free, short: 30 ms by default).
    public var fadeOut: Tween
    /// The de-click ramp, in seconds, at the start of a sound that joins part-way through (2 ms
    /// by default; 0 joins at full level, for a sound that starts silent).
    public var lateFadeIn: Double
    /// How many frames the timeline keeps unconfirmed at most (two seconds by default): frames
    /// further back than this are confirmed as the simulation moves on, so a game whose netcode
    /// never confirms still holds a bounded window.
    public var window: Int?
    /// How far ahead of the mix, in seconds, the frame the simulation has reached should sound
    /// (nil, the default: the origin stays where it was made, as an offline render needs). A live
    /// game whose simulation follows the wall clock sets it and calls
    /// ``RollbackTimeline/advance(to:)`` each frame: the origin then moves, a buffer's worth at a
    /// time, as the device's clock drifts from the game's, so that sounds neither fall behind the
    /// mix (and join late, losing their attack) nor drift later and later.
    public var lead: Double?

    public init(
      fadeOut: Tween = Tween(duration: 0.03), lateFadeIn: Double = 0.002, window: Int? = nil,
      lead: Double? = nil
    ) {
      self.fadeOut = fadeOut
      self.lateFadeIn = lateFadeIn
      self.window = window
      self.lead = lead.flatMap { $0.isFinite && $0 >= 0 ? min($0, 1) : nil }
    }
  }

  /// What a request whose frame has already been mixed does.
  public enum LateStart: Sendable, Hashable {
    /// Joins at the sample it would have reached (the default).
    case join
    /// Does not start (a sound not worth starting late: a footstep, an onset-only click).
    case skip
  }

  /// What a sound does when the new timeline no longer asks for it.
  public enum Misprediction: Sendable, Hashable {
    /// Fades out over ``Settings/fadeOut`` (the default).
    case fadeOut
    /// Rings on to its end (a crowd cheer, music-like tails where a cut would be heard more than
    /// the mistake).
    case ring
  }

  /// What one ``endResimulation()`` did.
  public struct Reconciliation: Sendable, Equatable {
    /// Requests that matched a sound already sounding, left untouched.
    public var kept = 0
    /// Mispredicted sounds faded out.
    public var fadedOut = 0
    /// Mispredicted sounds let ring.
    public var letRing = 0
    /// New requests started on their frame (it had not been mixed yet).
    public var started = 0
    /// New requests whose frame had been mixed, joined part-way through.
    public var startedLate = 0
    /// New requests not started: they would have ended already, or were marked `late: .skip`.
    public var skipped = 0
    /// Stops the re-simulation asked for that the first timeline did not make on that frame.
    public var stopped = 0
    /// Stops the first timeline made that the re-simulation did not ask for: the sound comes back.
    public var unstopped = 0

    public init() {}
  }
}
