public import FoleyCore
public import Foundation

/// A custom timing curve: maps linear progress in 0...1 to the progress to apply.
/// It should return 0 for 0 and 1 for 1 so the action ends where it should.
public typealias ActionTimingFunction = @Sendable (Double) -> Double

/// An immutable, reusable description of something a node does over time, with SpriteKit's
/// names and semantics.
///
/// An `Action` is a value: running it on a node starts a separate running state beside it, so one
/// action can run on a thousand nodes at once, and changing a copy (its `timingMode`, `speed` or
/// `duration`) never affects a run already under way. Time is never read from a clock: the scene
/// hands each running action the time that passed (`Scene.update(deltaTime:)`), and every action
/// returns the part of a step it did not need, so sequences and repeats never drift.
///
/// ```swift
/// let hop = Action.sequence([
///   .move(by: Vector(dx: 0, dy: 20), duration: 0.15),
///   .move(by: Vector(dx: 0, dy: -20), duration: 0.15),
/// ])
/// var bounce = Action.repeat(hop, count: 3)
/// bounce.timingMode = .easeOut
/// player.run(bounce, withKey: "bounce")
/// scene.update(deltaTime: 1.0 / 60.0)
/// ```
///
/// Modules add their own actions through ``ActionBehavior`` (FoleyAudio's sound actions do).
public struct Action: Sendable {
  /// How long the action takes, in seconds of its own time (before `speed`). For a sequence it
  /// is the sum of its parts, for a group the longest part; `.infinity` for `repeatForever`.
  /// Setting it on a container stretches or squeezes the whole container.
  public var duration: TimeInterval

  /// The shape of the action's progress over its duration.
  public var timingMode: Easing = .linear

  /// A custom timing curve; when set it is used instead of `timingMode`.
  public var timingFunction: ActionTimingFunction?

  /// A multiplier for the action's own clock: 2 runs twice as fast, 0 holds it still.
  public var speed: Double = 1

  let kind: Kind
  /// The duration the parts add up to; differs from `duration` only when the caller set it.
  let naturalDuration: TimeInterval

  init(kind: Kind, duration: TimeInterval) {
    let clamped = Action.sanitized(duration)
    self.kind = kind
    self.duration = clamped
    self.naturalDuration = clamped
  }

  /// Negative and NaN durations are treated as zero: a bad number should not stall a game.
  static func sanitized(_ duration: TimeInterval) -> TimeInterval {
    duration.isNaN || duration < 0 ? 0 : duration
  }

  indirect enum Kind: Sendable {
    case sequence([Action])
    case group([Action])
    case repeating(Action, count: Int?)
    case wait(range: TimeInterval)
    case run(@MainActor @Sendable () -> Void)
    case runOnChild(Action, name: String)
    /// A node property changed over the duration.
    case change(PropertyChange)
    case setHidden(Bool)
    case removeFromParent
    case behavior(any ActionBehavior)
  }
}
