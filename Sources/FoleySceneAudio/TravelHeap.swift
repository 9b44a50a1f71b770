/// The scene link's far slots by the listener travel at which each could first be heard: a
/// binary min-heap of (key, slot), so an update pops only the due ones. Entries are never
/// searched for: a slot whose key fell pushes a new entry, and the link drops the older one when
/// it comes up (``SceneAudioLink``'s `heapKey`).
struct TravelHeap {
  struct Entry {
    var key: Double
    var slot: Int
  }

  private(set) var entries: [Entry] = []

  var count: Int { entries.count }
  /// The entry with the smallest key.
  var first: Entry? { entries.first }

  mutating func push(_ entry: Entry) {
    entries.append(entry)
    var child = entries.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard entries[child].key < entries[parent].key else { break }
      entries.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes the first entry.
  mutating func removeFirst() {
    let last = entries.removeLast()
    guard !entries.isEmpty else { return }
    entries[0] = last
    siftDown(from: 0)
  }

  mutating func removeAll() {
    entries.removeAll(keepingCapacity: true)
  }

  /// The heap of `entries`, in linear time.
  mutating func rebuild(from newEntries: some Sequence<Entry>) {
    entries.removeAll(keepingCapacity: true)
    entries.append(contentsOf: newEntries)
    for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < entries.count else { return }
      let right = left + 1
      let child = right < entries.count && entries[right].key < entries[left].key ? right : left
      guard entries[child].key < entries[parent].key else { return }
      entries.swapAt(child, parent)
      parent = child
    }
  }
}
