package import FoleyAudio
import Foundation

/// The map's `mix` section: the engine's reverb, and per category bus its effects, its send to the
/// reverb and its volume.
///
/// ```json
/// "mix": {
///   "reverb": "cave",
///   "buses": {
///     "music": { "volumeDb": -3, "reverbSend": 0.1,
///                "effects": [{ "type": "compressor", "threshold": -40, "ratio": 8, "range": 10, "sidechain": "speech" }] },
///     "ambience": { "effects": [{ "type": "lowPass", "frequency": 900 }] }
///   }
/// }
/// ```
package struct MixDefinition {
  package struct Bus {
    package var effects: [EffectSpec] = []
    package var reverbSend: Double?
    var volumeDecibels: Double?
    /// The loudness its normalizing sounds play at, in LUFS.
    package var loudness: Double?
    /// The category's bus it sums into (nil: the master).
    package var parent: SoundCategory?
  }

  /// An effect as the map describes it; made anew each time the map is applied.
  package enum EffectSpec {
    case filter(FilterEffect.Kind, frequency: Double, q: Double)
    case reverb(ReverbEffect.Preset, dry: Double)
    case delay(time: Double, feedback: Double, wet: Double, dry: Double, damping: Double)
    case compressor(
      threshold: Double, ratio: Double, attack: Double, release: Double, range: Double, makeUp: Double,
      sidechain: SoundCategory?)

    package func make() -> AudioEffect {
      switch self {
      case .filter(let kind, let frequency, let q): FilterEffect(kind, frequency: frequency, q: q)
      case .reverb(let preset, let dry): ReverbEffect(preset, dry: dry)
      case .delay(let time, let feedback, let wet, let dry, let damping):
        DelayEffect(time: time, feedback: feedback, wet: wet, dry: dry, damping: damping)
      case .compressor(
        let threshold, let ratio, let attack, let release, let range, let makeUp, let sidechain):
        CompressorEffect(
          threshold: threshold, ratio: ratio, attack: attack, release: release, range: range,
          makeUpGain: makeUp,
          sidechain: sidechain)
      }
    }
  }

  package var reverb: ReverbEffect.Preset?
  package var buses: [SoundCategory: Bus] = [:]
}

extension SoundMapParser {
  static let presets: [String: ReverbEffect.Preset] = [
    "room": .room, "hall": .hall, "cave": .cave, "underwater": .underwater,
  ]
  static let filterTypes: Set<String> = [
    "lowPass", "highPass", "bandPass", "notch", "lowShelf", "highShelf", "peaking",
  ]
  static let effectKeys: [String: Set<String>] = [
    "filter": ["type", "frequency", "q", "gainDb"],
    "reverb": ["type", "preset", "roomSize", "damping", "preDelay", "wet", "dry"],
    "delay": ["type", "time", "feedback", "wet", "dry", "damping"],
    "compressor": ["type", "threshold", "ratio", "attack", "release", "range", "makeUpDb", "sidechain"],
  ]

  mutating func mix(_ value: Any, at path: String) -> MixDefinition? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"reverb\" and \"buses\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["reverb", "buses"], at: path)
    var mix = MixDefinition()
    if let reverb = object["reverb"] { mix.reverb = preset(reverb, at: "\(path).reverb") }
    if let buses = object["buses"] {
      guard let buses = buses as? [String: Any] else {
        errors.append("\(path).buses: must be an object of category names")
        return mix
      }
      for name in buses.keys.sorted() {
        let busPath = "\(path).buses[\"\(name)\"]"
        guard Self.isCategoryBus(name) else {
          errors.append(
            "\(busPath): \"\(name)\" is not a category's bus (the master and the reverb are set apart)")
          continue
        }
        guard let setup = buses[name] as? [String: Any] else {
          errors.append("\(busPath): must be an object")
          continue
        }
        mix.buses[SoundCategory(name)] = bus(setup, at: busPath)
      }
    }
    return mix
  }

  /// Whether a map may name `name` as a bus (its own, or a parent): a category's, not the master
  /// or the reverb return, which the engine sets apart.
  private static func isCategoryBus(_ name: String) -> Bool {
    !name.isEmpty && name != "master" && name != "reverb"
  }

  private mutating func bus(_ object: [String: Any], at path: String) -> MixDefinition.Bus {
    unknownKeys(
      in: object, allowed: ["effects", "reverbSend", "volumeDb", "parent", "loudnessLufs"], at: path)
    var bus = MixDefinition.Bus()
    if let parent = object["parent"] {
      if let name = parent as? String, Self.isCategoryBus(name) {
        bus.parent = SoundCategory(name)
        busReferences.append((name, "\(path).parent"))
      } else {
        errors.append("\(path).parent: must be a category's name")
      }
    }
    bus.reverbSend = number(object["reverbSend"], at: "\(path).reverbSend", in: 0...1)
    bus.volumeDecibels = number(object["volumeDb"], at: "\(path).volumeDb", in: -100...12)
    bus.loudness = number(object["loudnessLufs"], at: "\(path).loudnessLufs", in: -70...0)
    if let effects = object["effects"] {
      guard let list = effects as? [Any] else {
        errors.append("\(path).effects: must be a list of effects")
        return bus
      }
      for (index, item) in list.enumerated() {
        if let effect = effect(item, at: "\(path).effects[\(index)]") { bus.effects.append(effect) }
      }
    }
    return bus
  }

  private mutating func effect(_ item: Any, at path: String) -> MixDefinition.EffectSpec? {
    guard let object = item as? [String: Any], let type = object["type"] as? String else {
      errors.append("\(path): must be an object with a \"type\"")
      return nil
    }
    let types = Self.filterTypes.union(["reverb", "delay", "compressor"])
    guard types.contains(type) else {
      let hint = Self.nearest(to: type, among: types).map { " (did you mean \($0)?)" } ?? ""
      errors.append("\(path).type: unknown effect \"\(type)\"\(hint)")
      return nil
    }
    let family = Self.filterTypes.contains(type) ? "filter" : type
    unknownKeys(in: object, allowed: Self.effectKeys[family] ?? [], at: path)
    func value(_ key: String, _ limits: ClosedRange<Double>, _ fallback: Double) -> Double? {
      guard object[key] != nil else { return fallback }
      return number(object[key], at: "\(path).\(key)", in: limits)
    }
    switch family {
    case "filter":
      guard let frequency = number(object["frequency"], at: "\(path).frequency", in: 10...20_000) else {
        if object["frequency"] == nil { errors.append("\(path).frequency: missing") }
        return nil
      }
      guard let q = value("q", 0.1...20, 0.5.squareRoot()), let gain = value("gainDb", -48...48, 0) else {
        return nil
      }
      let kinds: [String: FilterEffect.Kind] = [
        "lowPass": .lowPass, "highPass": .highPass, "bandPass": .bandPass, "notch": .notch,
        "lowShelf": .lowShelf(gainDB: gain), "highShelf": .highShelf(gainDB: gain),
        "peaking": .peaking(gainDB: gain),
      ]
      return kinds[type].map { .filter($0, frequency: frequency, q: q) }
    case "reverb":
      var base = ReverbEffect.Preset.room
      if let name = object["preset"] {
        guard let chosen = preset(name, at: "\(path).preset") else { return nil }
        base = chosen
      }
      guard let size = value("roomSize", 0...1, base.roomSize),
        let damping = value("damping", 0...1, base.damping),
        let preDelay = value("preDelay", 0...0.25, base.preDelay), let wet = value("wet", 0...1, base.wet),
        let dry = value("dry", 0...1, 1)
      else { return nil }
      return .reverb(
        ReverbEffect.Preset(roomSize: size, damping: damping, preDelay: preDelay, wet: wet), dry: dry)
    case "delay":
      guard let time = value("time", 0.001...DelayEffect.maximumTime, 0.3),
        let feedback = value("feedback", 0...0.95, 0.4),
        let wet = value("wet", 0...1, 0.5), let dry = value("dry", 0...1, 1),
        let damping = value("damping", 200...20_000, 5_000)
      else { return nil }
      return .delay(time: time, feedback: feedback, wet: wet, dry: dry, damping: damping)
    default:
      guard let threshold = value("threshold", -80...0, -24), let ratio = value("ratio", 1...100, 4),
        let attack = value("attack", 0.0001...1, 0.01), let release = value("release", 0.001...5, 0.25),
        let range = value("range", 0...80, 60), let makeUp = value("makeUpDb", -24...24, 0)
      else { return nil }
      var sidechain: SoundCategory?
      if let key = object["sidechain"] {
        guard let name = key as? String, !name.isEmpty else {
          errors.append("\(path).sidechain: must be a category's name")
          return nil
        }
        sidechain = SoundCategory(name)
        busReferences.append((name, "\(path).sidechain"))
      }
      return .compressor(
        threshold: threshold, ratio: ratio, attack: attack, release: release, range: range, makeUp: makeUp,
        sidechain: sidechain)
    }
  }

  private mutating func preset(_ value: Any, at path: String) -> ReverbEffect.Preset? {
    guard let name = value as? String, let preset = Self.presets[name] else {
      let text = (value as? String).map { "\"\($0)\"" } ?? "that"
      let hint = (value as? String).flatMap { Self.nearest(to: $0, among: Set(Self.presets.keys)) }
      errors.append(
        "\(path): \(text) is not a reverb preset (room, hall, cave, underwater)"
          + (hint.map { "; did you mean \($0)?" } ?? ""))
      return nil
    }
    return preset
  }
}

extension SoundMapParser {
  /// The buses every map may name: the engine's own four.
  static let engineBuses = Set([SoundCategory.effects, .music, .ambience, .speech].map(\.name))

  /// Every bus a name in the map refers to is the engine's or one the map's `mix.buses` declares
  /// (`"ui": {}` declares a bus with nothing set): a misspelt bus would otherwise be made anew,
  /// silently, and the sound would leave the bus its mix, ducking and snapshots act on.
  mutating func checkBusReferences() {
    let declared = definition.declaredBuses
    for (name, path) in busReferences where !declared.contains(name) {
      let hint = Self.nearest(to: name, among: declared).map { " (did you mean \($0)?)" } ?? ""
      errors.append(
        "\(path): no bus \"\(name)\"\(hint); a map names the engine's buses (effects, music, ambience, "
          + "speech) or those its mix.buses declares")
    }
  }
}

extension SoundMapDefinition {
  /// The buses the map may name: the engine's four and those its `mix.buses` declares.
  package var declaredBuses: Set<String> {
    SoundMapParser.engineBuses.union((mix?.buses.keys).map { $0.map(\.name) } ?? [])
  }
}
