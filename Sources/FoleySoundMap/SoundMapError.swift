import FoleyAudio

/// Why a sound map could not be loaded: every problem, each with its JSON path.
///
/// ```
/// events["player.footstep"].switch.cases.grass.random[1]: file "step/grass2.ogg" not found in /game/Assets
/// events["ui.click"].volumeDb: 6 is outside -96...0
/// ```
public struct SoundMapError: Error, Sendable, Hashable, CustomStringConvertible {
  public var errors: [String]

  public init(errors: [String]) {
    self.errors = errors
  }

  public var description: String { errors.joined(separator: "\n") }
}
