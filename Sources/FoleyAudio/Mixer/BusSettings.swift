/// The volume and mute of each category's bus, and the master's. Written by the game thread
/// (under the core's mutex), applied by the queue to every voice of the bus with a per-sample
/// ramp.
package struct BusSettings: Sendable {
  var volumes: [SoundCategory: Double] = [:]
  package var muted: Set<SoundCategory> = []
  /// Soloed buses: while any is, only they and the buses routed into them are heard.
  var soloed: Set<SoundCategory> = []
  /// Each bus's effect chain as the game last set it (the mixer holds the chain it runs).
  package var effects: [SoundCategory: [AudioEffect]] = [:]
  package var masterVolume: Double = 1
  var isMasterMuted = false
  /// The whole mix in mono (every voice centred at equal power, then the channels averaged).
  package var isMono = false
  /// The master's left/right balance, -1 (left only) … 1 (right only).
  package var balance: Double = 0
  /// The range mode on the master (``DynamicRange``).
  package var dynamicRange = DynamicRange.full
  /// Whether the player wants captions (``CaptionCenter/isEnabled`` reads it).
  package var showsCaptions = true
  /// Whether sound may rumble the controllers (``HapticsCenter/isEnabled`` reads it).
  var rumbles = true
  /// The player's calibrated delays, which the heard clock applies.
  var latencyOffsets = LatencyOffsets()
  /// The buses whose voices are critical cues: ducked by at most `criticalDuckFloor`.
  var critical: Set<SoundCategory> = []
  /// The least gain a duck leaves a critical bus: -6 dB.
  static let criticalDuckFloor = 0.5
  /// Ducks under way, by name: the categories they turn down and the gain they turn them to.
  var ducks: [String: (categories: Set<SoundCategory>, gain: Double)] = [:]
  /// The bus each category's bus sums into (absent: the master). Never a cycle.
  var parents: [SoundCategory: SoundCategory] = [:]
  /// The categories whose volume the mixer's bus applies (its fader, after the bus's effects),
  /// so it is left out of their voices' gains. Set by the queue on its copy; empty on the game's,
  /// whose ``gain(for:criticalCue:)`` is then the whole of it.
  var faded: Set<SoundCategory> = []

  package func volume(for category: SoundCategory) -> Double { volumes[category] ?? 1 }

  /// What a bus and the buses it sums into contribute to each of its voices' gain: each one's
  /// volume, or nothing while one is muted, and the deepest duck that holds each down (no deeper
  /// than the critical floor for a critical bus, or for every bus when `criticalCue`: a critical
  /// sound on an ordinary bus is ducked no more than a critical bus); nothing while other buses are
  /// soloed and neither it nor a bus it sums into is.
  package func gain(for category: SoundCategory, criticalCue: Bool = false) -> Double {
    var gain = ownGain(for: category, criticalCue: criticalCue)
    var heard = soloed.isEmpty || soloed.contains(category)
    var bus = category
    var depth = 0
    while let parent = parents[bus], depth < 32 {
      gain *= ownGain(for: parent, criticalCue: criticalCue)
      heard = heard || soloed.contains(parent)
      bus = parent
      depth += 1
    }
    return heard ? gain : 0
  }

  /// Whether routing `category` into `parent` would close a loop.
  func wouldLoop(_ category: SoundCategory, into parent: SoundCategory) -> Bool {
    var bus: SoundCategory? = parent
    var depth = 0
    while let current = bus, depth <= 32 {
      if current == category { return true }
      bus = parents[current]
      depth += 1
    }
    return depth > 32
  }

  private func ownGain(for category: SoundCategory, criticalCue: Bool) -> Double {
    guard !muted.contains(category) else { return 0 }
    let volume = faded.contains(category) ? 1 : volume(for: category)
    var gain = volume
    let floor = criticalCue || critical.contains(category) ? Self.criticalDuckFloor : 0
    for duck in ducks.values where duck.categories.contains(category) {
      gain = min(gain, volume * max(duck.gain, floor))
    }
    return gain
  }

  /// What the faders of a bus and of the buses it sums into give its voices: the volumes
  /// ``gain(for:criticalCue:)`` leaves out.
  func faderGain(for category: SoundCategory) -> Double {
    var gain = faded.contains(category) ? volume(for: category) : 1
    var bus = category
    var depth = 0
    while let parent = parents[bus], depth < 32 {
      if faded.contains(parent) { gain *= volume(for: parent) }
      bus = parent
      depth += 1
    }
    return gain
  }

  /// How much of a voice's gain the buses give, faders and all: what the player hears of them.
  func heardGain(for category: SoundCategory, criticalCue: Bool = false) -> Double {
    gain(for: category, criticalCue: criticalCue) * faderGain(for: category)
  }

  var masterGain: Double { isMasterMuted ? 0 : masterVolume }
}
