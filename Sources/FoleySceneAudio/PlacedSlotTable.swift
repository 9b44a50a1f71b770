/// The scene link's slots (``SceneAudioLink/PlacedState``) in memory the link owns: a growable
/// table of plain values whose elements are read and written where they lie.
///
/// An array held by the link checked that its buffer was uniquely referenced on every write, four
/// times for each voice placed in an update. A slot is a plain value (its node and voice are
/// `Unmanaged`), so the table needs no copy-on-write and no destruction of its elements; the link
/// frees the memory (``deallocate()``) when it goes. Sendable unchecked: only its link, on the
/// main actor, touches it, and the link's deinit last.
struct PlacedSlotTable: @unchecked Sendable {
  private var base: UnsafeMutablePointer<SceneAudioLink.PlacedState>
  private(set) var count = 0
  private var capacity: Int

  init() {
    capacity = 16
    base = .allocate(capacity: capacity)
  }

  var indices: Range<Int> { 0..<count }

  /// Slot `slot`, read or written in place.
  subscript(slot: Int) -> SceneAudioLink.PlacedState {
    unsafeAddress {
      precondition(slot >= 0 && slot < count, "no such slot")
      return UnsafePointer(base + slot)
    }
    nonmutating unsafeMutableAddress {
      precondition(slot >= 0 && slot < count, "no such slot")
      return base + slot
    }
  }

  /// Adds `state` as the last slot, growing the memory (twice over) when it is full.
  mutating func append(_ state: SceneAudioLink.PlacedState) {
    if count == capacity {
      let grown = UnsafeMutablePointer<SceneAudioLink.PlacedState>.allocate(capacity: capacity * 2)
      grown.moveInitialize(from: base, count: count)
      base.deallocate()
      base = grown
      capacity *= 2
    }
    (base + count).initialize(to: state)
    count += 1
  }

  /// Gives the memory back (the slots are plain values: nothing to destroy). The table must not
  /// be used after.
  func deallocate() { base.deallocate() }
}
