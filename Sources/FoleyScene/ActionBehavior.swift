public import Foundation

/// The extension point for actions defined outside FoleyScene, such as FoleyAudio's
/// `playSound(data:)`.
///
/// A behavior is an immutable description (it must be `Sendable`); each time its action runs on a
/// node, ``makeRunner(on:)`` creates the running state.
///
/// ```swift
/// struct Blink: ActionBehavior {
///   var duration: TimeInterval { 0 }
///   func makeRunner(on node: Node) -> any ActionRunner { BlinkRunner() }
/// }
/// final class BlinkRunner: ActionRunner {
///   func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
///     node.isHidden.toggle()
///     return deltaTime  // instantaneous: all of the step is left over
///   }
/// }
/// node.run(.behavior(Blink()))
/// ```
public protocol ActionBehavior: Sendable {
  /// The nominal duration, used when the action sits in a sequence or group and for timing curves.
  /// A behavior that ends on an outside event (a sound finishing) returns its best estimate.
  var duration: TimeInterval { get }

  /// Creates the running state for one run on `node`. Called on the game thread when the action
  /// first advances.
  @MainActor func makeRunner(on node: Node) -> any ActionRunner

  /// The behavior that undoes this one; by default the behavior itself.
  func reversed() -> any ActionBehavior

  /// True when every run does its whole work at once, in its first step, and keeps no state:
  /// a node then calls ``perform(on:)`` instead of making a runner, so running the action
  /// allocates nothing (a sound trigger's path). False by default. (Inside a sequence, group or
  /// repeat, a runner is made once and restarted, as for any action.)
  var isInstant: Bool { get }

  /// Does an instant behavior's work on `node`. Called only when ``isInstant`` is true; by
  /// default it makes a runner and advances it once.
  @MainActor func perform(on node: Node)
}

/// A behavior whose every run is one call of its ``ActionBehavior/perform(on:)``, at once: it
/// takes no time, is instant (a node runs it with no runner), and inside a container its runner
/// just calls `perform`. A conforming type must implement `perform(on:)` itself (the default one
/// would make this runner, which calls it again).
package protocol InstantActionBehavior: ActionBehavior {}

extension InstantActionBehavior {
  package var duration: TimeInterval { 0 }
  package var isInstant: Bool { true }
  @MainActor package func makeRunner(on node: Node) -> any ActionRunner {
    InstantRunner { [self] node in perform(on: node) }
  }
}

extension ActionBehavior {
  public func reversed() -> any ActionBehavior { self }
  public var isInstant: Bool { false }
  @MainActor public func perform(on node: Node) { _ = makeRunner(on: node).advance(by: 0, on: node) }
}

/// The running state of one action on one node.
@MainActor
public protocol ActionRunner: AnyObject {
  /// Advances the action by `deltaTime` seconds of its own time.
  ///
  /// - Returns: `nil` while the action is still running after this step, or the part of
  ///   `deltaTime` it did not need when it finished during this step (0 when it used all of it).
  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval?

  /// Makes the runner ready to run its action again from the start, for a repeat or a sequence
  /// that comes round again; returns false to have a new runner made instead (the default).
  /// Restarting saves an allocation per repetition.
  func restart(on node: Node) -> Bool
}

extension ActionRunner {
  public func restart(on node: Node) -> Bool { false }
}
