public import FoleyScene
public import Foundation

// SpriteKit's audio actions take `Float` levels; these overloads take them as written, so a
// ported `SKAction.changeVolume(to: volume, duration: 1)` with a `Float` volume needs no
// `Double(…)`. They are generic, so a literal (`-1`, `0.5`) still picks the `Double` form
// without ambiguity. The relative forms SpriteKit has
// (`changeReverb(by:)`, `changeObstruction(by:)`, `changeOcclusion(by:)`) are here too.
extension Action {
  /// Changes the node's reverb send by `delta` (the result clamped to 0…1) over `duration`.
  public static func changeReverb(by delta: Double, duration: TimeInterval) -> Action {
    .behavior(NodeAudioChangeBehavior(property: .reverb, target: delta, relative: true, duration: duration))
  }

  /// Changes the node's obstruction by `delta` decibels (the result clamped to -100…0) over
  /// `duration`.
  ///
  /// ```swift
  /// ball.run(.changeObstruction(by: -6, duration: 0.2))   // one more pillar in the way
  /// ```
  public static func changeObstruction(by delta: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(property: .obstruction, target: delta, relative: true, duration: duration))
  }

  /// Changes the node's occlusion by `delta` decibels (the result clamped to -100…0) over
  /// `duration`.
  public static func changeOcclusion(by delta: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(property: .occlusion, target: delta, relative: true, duration: duration))
  }

  /// ``changeVolume(to:duration:)`` with SpriteKit's `Float` (any floating-point type).
  ///
  /// ```swift
  /// let volume: Float = 0.4                              // as a SpriteKit game keeps it
  /// music.run(.changeVolume(to: volume, duration: 1))
  /// ```
  public static func changeVolume<Level: BinaryFloatingPoint>(
    to volume: Level, duration: TimeInterval
  ) -> Action {
    changeVolume(to: Double(volume), duration: duration)
  }

  /// ``changeVolume(by:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changeVolume<Level: BinaryFloatingPoint>(
    by delta: Level, duration: TimeInterval
  ) -> Action {
    changeVolume(by: Double(delta), duration: duration)
  }

  /// ``changePlaybackRate(to:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changePlaybackRate<Level: BinaryFloatingPoint>(
    to rate: Level, duration: TimeInterval
  ) -> Action {
    changePlaybackRate(to: Double(rate), duration: duration)
  }

  /// ``changePlaybackRate(by:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changePlaybackRate<Level: BinaryFloatingPoint>(
    by delta: Level, duration: TimeInterval
  ) -> Action {
    changePlaybackRate(by: Double(delta), duration: duration)
  }

  /// ``changeReverb(to:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changeReverb<Level: BinaryFloatingPoint>(
    to level: Level, duration: TimeInterval
  ) -> Action {
    changeReverb(to: Double(level), duration: duration)
  }

  /// ``changeReverb(by:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changeReverb<Level: BinaryFloatingPoint>(
    by delta: Level, duration: TimeInterval
  ) -> Action {
    changeReverb(by: Double(delta), duration: duration)
  }

  /// ``changeObstruction(to:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changeObstruction<Level: BinaryFloatingPoint>(
    to decibels: Level, duration: TimeInterval
  ) -> Action {
    changeObstruction(to: Double(decibels), duration: duration)
  }

  /// ``changeObstruction(by:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changeObstruction<Level: BinaryFloatingPoint>(
    by delta: Level, duration: TimeInterval
  ) -> Action {
    changeObstruction(by: Double(delta), duration: duration)
  }

  /// ``changeOcclusion(to:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changeOcclusion<Level: BinaryFloatingPoint>(
    to decibels: Level, duration: TimeInterval
  ) -> Action {
    changeOcclusion(to: Double(decibels), duration: duration)
  }

  /// ``changeOcclusion(by:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func changeOcclusion<Level: BinaryFloatingPoint>(
    by delta: Level, duration: TimeInterval
  ) -> Action {
    changeOcclusion(by: Double(delta), duration: duration)
  }

  /// ``stereoPan(to:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func stereoPan<Level: BinaryFloatingPoint>(to pan: Level, duration: TimeInterval) -> Action {
    stereoPan(to: Double(pan), duration: duration)
  }

  /// ``stereoPan(by:duration:)`` with SpriteKit's `Float` (any floating-point type).
  public static func stereoPan<Level: BinaryFloatingPoint>(by delta: Level, duration: TimeInterval) -> Action
  {
    stereoPan(by: Double(delta), duration: duration)
  }
}
