/// The volume and mute of each category's bus, and the master's. Written by the game thread
/// (under the core's mutex), applied by the queue to every voice of the bus with a per-sample
/// ramp.
struct BusSettings: Sendable {
  var volumes: [SoundCategory: Double] = [:]
  var muted: Set<SoundCategory> = []
  var masterVolume: Double = 1
  var isMasterMuted = false

  func volume(for category: SoundCategory) -> Double { volumes[category] ?? 1 }

  /// What a bus contributes to each of its voices' gain.
  func gain(for category: SoundCategory) -> Double { muted.contains(category) ? 0 : volume(for: category) }

  var masterGain: Double { isMasterMuted ? 0 : masterVolume }
}
