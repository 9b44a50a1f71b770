import Synchronization

/// The slot every node has for one feature's state, typed by what the feature keeps there.
///
/// A feature (the scene bridge's per-node volume and voices, its per-scene engine link) makes one
/// key, once, as a `static let`, and reads and writes its state through `node[storage: key]`.
/// Each key has a slot of its own, so one feature can never overwrite or evict another's state —
/// which a single shared slot once did, crashing a scene that played a sound from itself.
///
/// ```swift
/// final class Footprints { var count = 0 }
/// extension Footprints { static let key = NodeStorageKey<Footprints>() }
///
/// let state = node[storage: Footprints.key] ?? Footprints()
/// node[storage: Footprints.key] = state
/// ```
package struct NodeStorageKey<Value: AnyObject>: Sendable {
  /// The slot's place in every node's storage.
  let index: Int

  /// A new slot, distinct from every other key's.
  package init() {
    index = nextNodeStorageIndex.add(1, ordering: .relaxed).oldValue
  }
}

/// Slots handed out so far.
private let nextNodeStorageIndex = Atomic<Int>(0)
