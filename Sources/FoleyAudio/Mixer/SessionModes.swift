import FoleySession

/// How the session currently treats one voice.
package enum SessionMode: Equatable {
  case normal
  case ducked(Float)
  case paused

  package var gain: Float {
    switch self {
    case .normal: 1
    case .ducked(let gain): gain
    case .paused: 0
    }
  }
}

/// The session policy of each category; read by the game thread's gate while inactive.
struct PolicyTable: Sendable {
  var standard: SessionPolicy = .ambient
  var byCategory: [SoundCategory: SessionPolicy] = [:]

  package func policy(for category: SoundCategory) -> SessionPolicy { byCategory[category] ?? standard }

  /// What a voice of `category` does in `state`.
  package func mode(for category: SoundCategory, in state: AudioSession.State) -> SessionMode {
    if state.isActive { return .normal }
    if state.silencesEverything { return .paused }
    guard let gain = policy(for: category).unfocusedGain else { return .paused }
    return gain >= 1 ? .normal : .ducked(gain)
  }

  /// Whether a new play of `category` may start in `state`.
  func mayStart(_ category: SoundCategory, in state: AudioSession.State) -> Bool {
    mode(for: category, in: state) != .paused
  }
}
