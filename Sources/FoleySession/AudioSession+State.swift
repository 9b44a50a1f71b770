extension AudioSession {
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
    /// are "unfocused" reasons, where a `playback` or `duck` session policy keeps sound going.
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

  /// One change of the session's state, as participants (engines, recorders) and observers see it.
  public struct Transition: Sendable, Hashable {
    public let old: State
    public let new: State
    /// The reason that was added or cleared.
    public let reason: Reason
    /// True when the reason was cleared (an activation step), false when it was added.
    public let isClearing: Bool
    /// False only for `endInterruption(shouldResume: false)`: what the interruption paused stays
    /// paused for the game.
    public let resumesPausedVoices: Bool

    public init(old: State, new: State, reason: Reason, isClearing: Bool, resumesPausedVoices: Bool = true) {
      self.old = old
      self.new = new
      self.reason = reason
      self.isClearing = isClearing
      self.resumesPausedVoices = resumesPausedVoices
    }
  }
}

/// Something that follows an ``AudioSession``: engines pause and resume voices, recorders pause
/// and resume capture, and both react to their device going away.
///
/// Calls come on the thread that made the transition, one at a time; a participant may block
/// briefly (an engine waits for its audio queue) but must not start another transition from
/// ``sessionDidChange(_:)``.
public protocol AudioSessionParticipant: AnyObject, Sendable {
  func sessionDidChange(_ transition: AudioSession.Transition)
  /// `SDL_AUDIODEVICEREMOVED`: `deviceID` is the id of an opened device.
  func audioDeviceRemoved(deviceID: UInt32, isCapture: Bool)
  /// `SDL_AUDIODEVICEADDED`: `index` is a device index, not an id.
  func audioDeviceAdded(index: UInt32, isCapture: Bool)
}
