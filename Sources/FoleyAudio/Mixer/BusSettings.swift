/// The volume and mute of each category's bus, and the master's. Written by the game thread
/// (under the core's mutex), applied by the queue to every voice of the bus with a per-sample
/// ramp.
package struct BusSettings: Sendable {
  package var volumes: [SoundCategory: Double] = [:]
  package var muted: Set<SoundCategory> = []
  package var masterVolume: Double = 1
  package var isMasterMuted = false
  /// Ducks under way, by name: the categories they turn down and the gain they turn them to.
  package var ducks: [String: (categories: Set<SoundCategory>, gain: Double)] = [:]

  package func volume(for category: SoundCategory) -> Double { volumes[category] ?? 1 }

  /// What a bus contributes to each of its voices' gain: its volume, or nothing while muted, and
  /// the deepest duck that holds it down.
  package func gain(for category: SoundCategory) -> Double {
    guard !muted.contains(category) else { return 0 }
    var gain = volume(for: category)
    for duck in ducks.values where duck.categories.contains(category) {
      gain = min(gain, volume(for: category) * duck.gain)
    }
    return gain
  }

  package var masterGain: Double { isMasterMuted ? 0 : masterVolume }
}
