import Foundation

/// A player's sound settings, as a settings screen edits them and a game saves them: the master
/// volume, mono output, left/right balance, the range mode, captions, rumble, the calibrated
/// latency, and each bus's volume and mute. `Codable`, so it goes
/// to JSON (or any encoder) as it is; decoding checks every value and throws a `DecodingError`
/// naming the field that is out of range, so a hand-edited or corrupt file never reaches the mix.
///
/// ```swift
/// var settings = engine.settings               // what the engine plays with now
/// settings.isMono = true
/// settings.busVolumes["music"] = 0.5
/// engine.apply(settings)                       // ramped, like every other change
/// try JSONEncoder().encode(settings).write(to: settingsURL, options: .atomic)
/// let saved = try JSONDecoder().decode(AudioSettings.self, from: Data(contentsOf: settingsURL))
/// ```
public struct AudioSettings: Codable, Sendable, Hashable {
  /// The master volume, 0…1.
  public var masterVolume: Double
  /// Mono output (see ``AudioEngine/isMono``).
  public var isMono: Bool
  /// The left/right balance, -1…1 (see ``AudioEngine/balance``).
  public var balance: Double
  /// Each bus's volume, 0…1, by category name; a bus not named keeps its volume.
  public var busVolumes: [String: Double]
  /// The buses the player muted, by category name.
  public var mutedBuses: Set<String>
  /// How much of the loudness range is heard (see ``AudioEngine/dynamicRange``).
  public var dynamicRange: DynamicRange
  /// Whether heard sounds are captioned (see ``CaptionCenter/isEnabled``).
  public var showsCaptions: Bool
  /// Whether sound may rumble the game's controllers (see ``HapticsCenter/isEnabled``).
  public var rumbles: Bool
  /// The delays the player's calibration measured (see ``LatencyOffsets``).
  public var latencyOffsets: LatencyOffsets

  public init(
    masterVolume: Double = 1, isMono: Bool = false, balance: Double = 0, busVolumes: [String: Double] = [:],
    mutedBuses: Set<String> = [], dynamicRange: DynamicRange = .full, showsCaptions: Bool = true,
    rumbles: Bool = true, latencyOffsets: LatencyOffsets = LatencyOffsets()
  ) {
    self.masterVolume = masterVolume
    self.isMono = isMono
    self.balance = balance
    self.busVolumes = busVolumes
    self.mutedBuses = mutedBuses
    self.dynamicRange = dynamicRange
    self.showsCaptions = showsCaptions
    self.rumbles = rumbles
    self.latencyOffsets = latencyOffsets
  }

  private enum CodingKeys: String, CodingKey {
    case masterVolume, isMono, balance, busVolumes, mutedBuses, dynamicRange, showsCaptions, rumbles
    case latencyOffsets
  }

  /// Decodes and checks: a missing field takes its default; a value out of its range, or not a
  /// finite number, is a `DecodingError.dataCorrupted` naming the field.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func checked(_ key: CodingKeys, _ value: Double, in range: ClosedRange<Double>) throws -> Double {
      guard value.isFinite, range.contains(value) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container,
          debugDescription: "\(value) is not in \(range.lowerBound)…\(range.upperBound)")
      }
      return value
    }
    masterVolume = try checked(
      .masterVolume, container.decodeIfPresent(Double.self, forKey: .masterVolume) ?? 1, in: 0...1)
    isMono = try container.decodeIfPresent(Bool.self, forKey: .isMono) ?? false
    balance = try checked(.balance, container.decodeIfPresent(Double.self, forKey: .balance) ?? 0, in: -1...1)
    busVolumes = try container.decodeIfPresent([String: Double].self, forKey: .busVolumes) ?? [:]
    for (name, volume) in busVolumes where !(volume.isFinite && (0...1).contains(volume)) {
      throw DecodingError.dataCorruptedError(
        forKey: .busVolumes, in: container, debugDescription: "bus \"\(name)\": \(volume) is not in 0…1")
    }
    mutedBuses = try container.decodeIfPresent(Set<String>.self, forKey: .mutedBuses) ?? []
    dynamicRange = try container.decodeIfPresent(DynamicRange.self, forKey: .dynamicRange) ?? .full
    showsCaptions = try container.decodeIfPresent(Bool.self, forKey: .showsCaptions) ?? true
    rumbles = try container.decodeIfPresent(Bool.self, forKey: .rumbles) ?? true
    latencyOffsets =
      try container.decodeIfPresent(LatencyOffsets.self, forKey: .latencyOffsets) ?? LatencyOffsets()
  }
}

extension AudioEngine {
  /// The settings the engine plays with now: the master volume, mono, balance, the latency
  /// offsets, and the volume and mute of every bus that has been given one.
  public var settings: AudioSettings {
    core.buses.withLock { buses in
      AudioSettings(
        masterVolume: buses.masterVolume, isMono: buses.isMono, balance: buses.balance,
        busVolumes: Dictionary(uniqueKeysWithValues: buses.volumes.map { ($0.key.name, $0.value) }),
        mutedBuses: Set(buses.muted.map(\.name)), dynamicRange: buses.dynamicRange,
        showsCaptions: buses.showsCaptions, rumbles: buses.rumbles, latencyOffsets: buses.latencyOffsets)
    }
  }

  /// Applies `settings` in one step, ramped as each of its setters would be: values out of range
  /// are clamped (a NaN keeps what was there); buses it does not name keep their volume, and every
  /// bus it does not list as muted is unmuted.
  public func apply(_ settings: AudioSettings) {
    core.buses.withLock { buses in
      buses.masterVolume = settings.masterVolume.clamped(to: 0...1, or: buses.masterVolume)
      buses.isMono = settings.isMono
      buses.balance = settings.balance.clamped(to: -1...1, or: buses.balance)
      for (name, volume) in settings.busVolumes {
        let category = SoundCategory(name)
        buses.volumes[category] = volume.clamped(to: 0...1, or: buses.volume(for: category))
      }
      buses.muted = Set(settings.mutedBuses.map { SoundCategory($0) })
      buses.dynamicRange = settings.dynamicRange
      buses.showsCaptions = settings.showsCaptions
      buses.rumbles = settings.rumbles
      buses.latencyOffsets = LatencyOffsets(
        audio: settings.latencyOffsets.audio, input: settings.latencyOffsets.input)
    }
    applyBuses(tween: .immediate)
  }
}
