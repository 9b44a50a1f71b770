import Foundation

/// The base class of FoleyScene's own runners (sequence, group, repeat, wait, the property
/// changes, the timing and speed stages, instant effects, and ``BehaviorStage`` around a
/// behavior's runner).
///
/// A class, not the ``ActionRunner`` existential, so a container keeps its parts as plain strong
/// references and calls them borrowed (``Unmanaged/borrow(_:)``): walking a
/// repeat → sequence → move tree each frame retains nothing. That is safe because no stage ever
/// lets go of a part while a run is under way: a part is made once, when first reached, and
/// restarted after that — every stage's ``restart(on:)`` succeeds (a behavior's runner that
/// cannot restart is replaced inside its ``BehaviorStage``, whose own call holds it) — and a
/// node drops a run's stage only when no advance of it is under way.
@MainActor
class RunnerStage: ActionRunner {
  package func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    preconditionFailure("every stage overrides advance(by:on:)")
  }

  /// Makes the stage ready to run from the start again. Every stage can: always true.
  package func restart(on node: Node) -> Bool {
    preconditionFailure("every stage overrides restart(on:)")
  }
}

/// A behavior's runner (``ActionBehavior/makeRunner(on:)``) as a stage. One the behavior cannot
/// restart is replaced by a new one on the next step, as a container used to replace it.
@MainActor
final class BehaviorStage: RunnerStage {
  private let behavior: any ActionBehavior
  @exclusivity(unchecked) private var runner: (any ActionRunner)?

  init(_ behavior: any ActionBehavior, runner: any ActionRunner) {
    self.behavior = behavior
    self.runner = runner
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    // Called through the existential, which holds the runner for the call: replacing it inside
    // a nested update cannot free one still running.
    let current: any ActionRunner
    if let runner {
      current = runner
    } else {
      current = behavior.makeRunner(on: node)
      runner = current
    }
    return current.advance(by: deltaTime, on: node)
  }

  override func restart(on node: Node) -> Bool {
    if let runner, !runner.restart(on: node) { self.runner = nil }
    return true
  }
}

extension Optional where Wrapped: AnyObject {
  /// The reference without a retain, for ``Unmanaged/borrow(_:)``: its owner must hold it for
  /// as long as it is borrowed.
  @inlinable @inline(__always) var unretained: Unmanaged<Wrapped>? {
    guard let self else { return nil }
    return Unmanaged.passUnretained(self)
  }
}

extension Unmanaged {
  /// Calls `body` with the instance, unretained: no reference counting around the call. (The
  /// standard library's `_withUnsafeGuaranteedRef` called straight from main-actor code checks
  /// the executor on every call, a Swift 5 module's closure parameter; this one, declared here,
  /// does not.) Package-wide: the scene's audio link borrows its positional voices' nodes and
  /// voices through it.
  @inlinable @inline(__always) package func borrow<Result>(_ body: (Instance) -> Result) -> Result {
    _withUnsafeGuaranteedRef(body)
  }
}
