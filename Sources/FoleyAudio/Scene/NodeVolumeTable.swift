import FoleyScene

/// The volume each node applies to the voices it started, for `Action.changeVolume(to:duration:)`.
/// Lives on the game thread, like the nodes; entries go when their node does.
@MainActor
final class NodeVolumeTable {
  private struct Entry {
    weak var node: Node?
    var volume: Double = 1
    var voices: [Voice] = []
  }

  private var entries: [ObjectIdentifier: Entry] = [:]

  nonisolated init() {}

  func volume(of node: Node) -> Double {
    entries[ObjectIdentifier(node)].flatMap { $0.node === node ? $0.volume : nil } ?? 1
  }

  /// Remembers that `node` started `voice`, so later volume changes reach it.
  func register(_ voice: Voice, for node: Node) {
    guard !voice.isFinished else { return }
    let key = ObjectIdentifier(node)
    var entry = entries[key].flatMap { $0.node === node ? $0 : nil } ?? Entry(node: node)
    entry.voices.removeAll { $0.isFinished }
    entry.voices.append(voice)
    entries[key] = entry
    if entries.count > 256 { entries = entries.filter { $0.value.node != nil } }
  }

  /// Sets the node's volume and applies it to its voices still playing.
  func setVolume(_ volume: Double, of node: Node) {
    let key = ObjectIdentifier(node)
    var entry = entries[key].flatMap { $0.node === node ? $0 : nil } ?? Entry(node: node)
    entry.volume = volume
    entry.voices.removeAll { $0.isFinished }
    for voice in entry.voices { voice.groupVolume = volume }
    entries[key] = entry
  }
}
