/// A moment of the engine's output, to the sample: the index of a frame in everything the
/// mixer has produced since the engine first mixed (at the device's sample rate).
///
/// Every musical moment is one: the music's beats and bars, and a sound scheduled to start on
/// one starts on that very sample, mid-buffer if need be.
///
/// ```swift
/// let now = engine.audioFrame
/// let inHalfASecond = now + engine.frames(forSeconds: 0.5)
/// engine.play(clap, start: .frame(inHalfASecond))
/// ```
public struct AudioFrame: Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
  ExpressibleByIntegerLiteral
{
  /// Frames since the engine first mixed.
  public var index: Int

  public init(_ index: Int) { self.index = max(0, index) }
  public init(integerLiteral value: Int) { self.init(value) }

  public static func < (lhs: AudioFrame, rhs: AudioFrame) -> Bool { lhs.index < rhs.index }
  /// The frame `frames` later (earlier when negative; never before frame 0, never past
  /// `Int.max`: it saturates rather than traps).
  public static func + (lhs: AudioFrame, frames: Int) -> AudioFrame {
    let (sum, overflow) = lhs.index.addingReportingOverflow(frames)
    return AudioFrame(overflow ? (frames > 0 ? Int.max : 0) : sum)
  }
  /// The frame `frames` earlier (saturating, as `+`).
  public static func - (lhs: AudioFrame, frames: Int) -> AudioFrame {
    let (difference, overflow) = lhs.index.subtractingReportingOverflow(frames)
    return AudioFrame(overflow ? (frames > 0 ? 0 : Int.max) : difference)
  }
  /// Frames from `rhs` to `lhs`.
  public static func - (lhs: AudioFrame, rhs: AudioFrame) -> Int { lhs.index - rhs.index }

  public var description: String { "frame \(index)" }
}

/// A start on a given mix frame, and what to do when the request reaches the mixer after that
/// frame was already mixed.
package struct ScheduledStart: Sendable {
  package var frame: UInt64
  /// Given the frame the mix has reached, the next acceptable start (a musical moment's next
  /// occurrence); nil starts at once, late. Called on the audio queue.
  package var whenLate: (@Sendable (UInt64) -> UInt64?)?
  /// Called on the audio queue with the frame right before the voice is put on it (again with
  /// the new frame if that one was late): a transition's outgoing music fades from there.
  package var willStart: (@Sendable (UInt64) -> Void)?
  /// Given the start frame a pause held the voice before, what to ask when it resumes; that,
  /// given the frame the mix has reached, gives its new start (a musical moment's place in the
  /// music after the resume); nil moves it on by the pause's length. Called on the audio queue.
  package var whenHeld: (@Sendable (UInt64) -> (@Sendable (UInt64) -> UInt64?)?)?
  /// Whether a start the mix has already passed joins the sound at the sample it would have
  /// reached (a rollback timeline's late start) instead of starting late from its beginning.
  package var joinsLate = false

  package init(
    frame: UInt64, whenLate: (@Sendable (UInt64) -> UInt64?)? = nil,
    willStart: (@Sendable (UInt64) -> Void)? = nil,
    whenHeld: (@Sendable (UInt64) -> (@Sendable (UInt64) -> UInt64?)?)? = nil
  ) {
    self.frame = frame
    self.whenLate = whenLate
    self.willStart = willStart
    self.whenHeld = whenHeld
  }
}
