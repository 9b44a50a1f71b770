import Foundation

/// What a category of sound does while the `AudioSession` is inactive for an "unfocused"
/// reason (focus lost, minimised, background, or the host's own). Interruptions and device loss
/// pause every category whatever its policy.
///
/// ```swift
/// engine.sessionPolicy = .ambient                          // the default: silent when unfocused
/// engine.bus(.music).sessionPolicy = .duck(decibels: -12) // music carries on, quieter
/// engine.bus(.speech).sessionPolicy = .playback         // speech keeps playing
/// ```
public enum SessionPolicy: Hashable, Sendable, CustomStringConvertible {
  /// Pauses while inactive and resumes when active again; new plays are dropped. The default.
  case ambient
  /// Keeps playing while unfocused; new plays start as usual.
  case playback
  /// Keeps playing while unfocused, lowered by `decibels` (a negative number, e.g. -12).
  case duck(decibels: Double)

  /// The gain this policy applies while unfocused, or nil when it pauses.
  var unfocusedGain: Float? {
    switch self {
    case .ambient: nil
    case .playback: 1
    case .duck(let decibels): Float(pow(10, min(0, decibels) / 20))
    }
  }

  public var description: String {
    switch self {
    case .ambient: "ambient"
    case .playback: "playback"
    case .duck(let decibels): "duck(\(decibels) dB)"
    }
  }
}
