package import FoleyAudio
package import FoleyMusic
package import Foundation

/// A sound map as read from its JSON: what each event plays and its limits. Checked whole: every
/// problem is reported with its JSON path, and a map with any problem is not used.
package struct SoundMapDefinition {
  package var events: [String: EventEntry] = [:]
  /// Every file the map names, with the path of its first mention (for errors).
  package var files: [(name: String, path: String)] = []
  /// The buses' effects, sends and volumes, and the reverb (the map's `mix` section).
  package var mix: MixDefinition?
  /// The music's tracks and states (the map's `music` section).
  package var music: MusicDefinition?
  /// The game parameters and mix snapshots (the map's `parameters` and `snapshots` sections).
  package var parameters: [String: ParameterDefinition] = [:]
  package var snapshots: [String: MixSnapshot] = [:]
  /// Each event's entry as canonical JSON (keys sorted), to tell which entries a reload or an
  /// edit changed.
  var sources: [String: Data] = [:]
}

/// What one event does.
///
/// A class, so a post reads its event's entry where the map keeps it: as a struct, each post
/// copied it (its effect, its item and its category's name). Its fields are read on the game
/// thread only, each read instantaneous: no runtime exclusivity checks (eight a post).
package final class EventEntry {
  package enum Effect {
    case play(SoundItem)
    case stop(event: String, fadeOut: Double)
  }

  @exclusivity(unchecked) package var effect: Effect
  @exclusivity(unchecked) var cooldown: Double = 0
  @exclusivity(unchecked) var maxInstances: Int?
  /// At `maxInstances`: stop the event's oldest voice (true) or drop the new one.
  @exclusivity(unchecked) var stealsOldest = true
  @exclusivity(unchecked) package var priority = 0
  @exclusivity(unchecked) package var category: SoundCategory = .effects
  @exclusivity(unchecked) package var positional = false
  /// Plays at its category's loudness target (`mix.buses[…].loudnessLufs`).
  @exclusivity(unchecked) package var normalize = false
  @exclusivity(unchecked) package var loops = false
  /// What the event's sounds are, in words, for the engine's captions.
  @exclusivity(unchecked) package var caption: Caption?
  /// Never made virtual by the voice budget, captioned even muted.
  @exclusivity(unchecked) package var isCritical = false
  /// Rumble on the game's controllers at this strength (0…1) while the event's sounds play.
  @exclusivity(unchecked) package var rumble: Double?
  /// Whether a stop entry names this event (its voices are kept for it); set when the map
  /// applies its definition, so a post asks no set.
  @exclusivity(unchecked) var isStopTarget = false
  /// What moves its voices' volume while they play: `volumeDb` as a parameter's curve, `modulators`.
  @exclusivity(unchecked) package var modulators: [Modulator] = []
  /// The music's moment its sounds start on (`"quantize": "grid"`, `"beat"` or `"bar"`); nil: at once.
  @exclusivity(unchecked) package var quantize: MusicMoment?

  package init(effect: Effect) { self.effect = effect }
}

/// A node of an event's sound tree: a file or a container of items, with its variations. A class,
/// so that containers keep their state (last picks, position) by identity.
package final class SoundItem {
  package enum Kind {
    case file(String)
    case random([SoundItem], avoidRepeat: Int, shuffle: Bool)
    case sequence([SoundItem], continuous: Bool, resetAfter: Double?)
    case switchOn(parameter: String, cases: [String: SoundItem], fallback: String?)
    case layer([SoundItem])
    /// Layers heard together, each one's volume following `parameter` through its curve (in
    /// decibels): a crossfade along the parameter.
    case blend(parameter: String, layers: [SoundItem], curves: [ParameterCurve])
  }

  package let kind: Kind
  /// A file item's sound at its own pitch, with its event's settings, made at its first post (a
  /// post made a new `Sound` each time). A reload makes new items, so it never outlives the
  /// definition and decoded files it was made from.
  @exclusivity(unchecked) var preparedSound: Sound?
  let volumeDecibels: ClosedRange<Double>
  package let pitchSemitones: ClosedRange<Double>
  package let delay: ClosedRange<Double>
  package let weight: Double

  package init(
    kind: Kind, volumeDecibels: ClosedRange<Double>, pitchSemitones: ClosedRange<Double>,
    delay: ClosedRange<Double>,
    weight: Double
  ) {
    self.kind = kind
    self.volumeDecibels = volumeDecibels
    self.pitchSemitones = pitchSemitones
    self.delay = delay
    self.weight = weight
  }

  /// Calls `body` with this item and every item inside it, depth first.
  func forEachItem(_ body: (SoundItem) -> Void) {
    body(self)
    switch kind {
    case .file: break
    case .random(let items, _, _), .sequence(let items, _, _), .layer(let items), .blend(_, let items, _):
      for item in items { item.forEachItem(body) }
    case .switchOn(_, let cases, _):
      for item in cases.values { item.forEachItem(body) }
    }
  }
}

/// Reads and checks a sound map's JSON, collecting every error with its path.
package struct SoundMapParser {
  package internal(set) var errors: [String] = []
  var definition = SoundMapDefinition()
  private var seenFiles: Set<String> = []
  /// The parameters curves and snapshots name, where, and a snapshot's value, checked once the
  /// whole map is read.
  var parameterReferences: [(name: String, path: String, value: Double?)] = []
  /// The buses events, snapshots, sidechains, followers and parents name, and where, checked once
  /// the whole map is read against the buses it declares.
  var busReferences: [(name: String, path: String)] = []

  package init() {}

  static let contentKeys: Set<String> = ["play", "file", "random", "sequence", "switch", "layer", "blend"]
  static let modifierKeys: Set<String> = ["volumeDb", "pitchSemitones", "delay"]
  static let limitKeys: Set<String> = [
    "cooldown", "maxInstances", "steal", "priority", "category", "positional", "loop", "normalize",
    "caption", "critical", "rumble", "modulators", "quantize",
  ]
  static let optionKeys: [String: Set<String>] = [
    "random": ["avoidRepeat", "shuffle"], "sequence": ["mode", "resetAfter"],
  ]

  /// The map in `data`, as far as it parses (nil when nothing does: not JSON, no events); the
  /// problems are in ``errors``, and a map with any is not to be used.
  package mutating func parse(_ data: Data) -> SoundMapDefinition? {
    let json: Any
    do {
      json = try JSONSerialization.jsonObject(with: data)
    } catch {
      errors.append("not valid JSON: \(JSONSyntax.describe(error, in: data))")
      return nil
    }
    guard let root = json as? [String: Any] else {
      errors.append("the map must be a JSON object with \"version\" and \"events\"")
      return nil
    }
    // JSON lets a key stand twice in one object and keeps one of them; an editor changes the
    // first, the game would play the last. Either way a designer's edit would vanish: refused.
    let duplicates = SoundMapDocument(data).duplicateKeys()
    guard duplicates.isEmpty else {
      errors += duplicates
      return nil
    }
    unknownKeys(
      in: root, allowed: ["$schema", "version", "events", "mix", "music", "parameters", "snapshots"], at: "")
    // An editor's pointer to the schema (Schemas/sound-map.schema.json); the map ignores it.
    if let schema = root["$schema"], !(schema is String) {
      errors.append("$schema: must be the schema's address")
    }
    if let mix = root["mix"] { definition.mix = self.mix(mix, at: "mix") }
    if let music = root["music"] { definition.music = self.music(music, at: "music") }
    if let parameters = root["parameters"] {
      definition.parameters = self.parameters(parameters, at: "parameters")
    }
    if let snapshots = root["snapshots"] { definition.snapshots = self.snapshots(snapshots, at: "snapshots") }
    if let version = root["version"] {
      if Self.number(version) != 1 { errors.append("version: must be 1") }
    } else {
      errors.append("version: missing (it must be 1)")
    }
    guard let events = root["events"] as? [String: Any] else {
      errors.append("events: missing, or not an object of event names")
      return nil
    }
    if events.isEmpty, root["music"] == nil { errors.append("events: empty (a map needs events, or music)") }
    for name in events.keys.sorted() {
      let path = "events[\"\(name)\"]"
      guard let object = events[name] as? [String: Any] else {
        errors.append("\(path): must be an object")
        continue
      }
      if let entry = entry(object, at: path) {
        definition.events[name] = entry
        definition.sources[name] = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
      }
    }
    // A stop must name an event of this map.
    for (name, entry) in definition.events {
      if case .stop(let target, _) = entry.effect, definition.events[target] == nil {
        errors.append("events[\"\(name)\"].stop: no event \"\(target)\" in this map")
      }
    }
    checkParameterReferences()
    checkBusReferences()
    // What parsed, even with errors elsewhere: its files are checked too, so one look at a map
    // reports every problem it has.
    return definition
  }

  private mutating func entry(_ object: [String: Any], at path: String) -> EventEntry? {
    if let target = object["stop"] {
      unknownKeys(in: object, allowed: ["stop", "fadeOut"], at: path)
      guard let name = target as? String, !name.isEmpty else {
        errors.append("\(path).stop: must be an event name")
        return nil
      }
      let fade = number(object["fadeOut"], at: "\(path).fadeOut", in: 0...60) ?? 0
      return EventEntry(effect: .stop(event: name, fadeOut: fade))
    }
    // `volumeDb` written as a parameter's curve moves the volume; the items keep their numbers.
    var items = object
    if items["volumeDb"] is [String: Any] { items["volumeDb"] = nil }
    let modulators = self.modulators(object, at: path)
    guard let content = item(items, at: path, extraKeys: Self.limitKeys) else { return nil }
    let entry = EventEntry(effect: .play(content))
    entry.modulators = modulators
    entry.cooldown = number(object["cooldown"], at: "\(path).cooldown", in: 0...3_600) ?? 0
    if let quantize = object["quantize"] {
      switch quantize as? String {
      case "grid": entry.quantize = .nextGrid
      case "beat": entry.quantize = .nextBeat
      case "bar": entry.quantize = .nextBar
      default: errors.append("\(path).quantize: must be \"grid\", \"beat\" or \"bar\"")
      }
    }
    if let limit = object["maxInstances"] {
      if let count = Self.number(limit), count >= 1, count.rounded() == count, count <= 256 {
        entry.maxInstances = Int(count)
      } else {
        errors.append("\(path).maxInstances: must be a whole number from 1 to 256")
      }
    }
    if let steal = object["steal"] {
      switch steal as? String {
      case "oldest": entry.stealsOldest = true
      case "none": entry.stealsOldest = false
      default: errors.append("\(path).steal: must be \"oldest\" or \"none\"")
      }
    }
    if let priority = object["priority"] {
      if let value = Self.number(priority), value.rounded() == value, abs(value) < 1e9 {
        entry.priority = Int(value)
      } else {
        errors.append("\(path).priority: must be a whole number")
      }
    }
    if let category = object["category"] {
      if let name = category as? String, !name.isEmpty {
        entry.category = SoundCategory(name)
        busReferences.append((name, "\(path).category"))
      } else {
        errors.append(
          "\(path).category: must be a bus name (effects, music, ambience, speech, or one mix.buses declares)"
        )
      }
    }
    entry.positional = flag(object["positional"], at: "\(path).positional") ?? false
    entry.normalize = flag(object["normalize"], at: "\(path).normalize") ?? false
    entry.loops = flag(object["loop"], at: "\(path).loop") ?? false
    entry.isCritical = flag(object["critical"], at: "\(path).critical") ?? false
    if let caption = object["caption"] { entry.caption = self.caption(caption, at: "\(path).caption") }
    if let rumble = object["rumble"] {
      if Self.isBoolean(rumble), let on = rumble as? Bool {
        entry.rumble = on ? 1 : nil
      } else {
        entry.rumble = number(rumble, at: "\(path).rumble", in: 0...1)
      }
    }
    return entry
  }

  /// An item: a file name, or an object with one content key and its options.
  mutating func item(_ value: Any, at path: String, extraKeys: Set<String> = []) -> SoundItem? {
    if let name = value as? String { return file(name, at: path, modifiers: [:]) }
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be a file name or an object")
      return nil
    }
    let contents = Self.contentKeys.intersection(object.keys)
    guard contents.count == 1, let key = contents.first else {
      errors.append(
        "\(path): needs exactly one of \(Self.contentKeys.sorted().joined(separator: ", "))"
          + (contents.isEmpty ? "" : " (has \(contents.sorted().joined(separator: ", ")))"))
      // The keys it has that no item takes, each with the nearest one it may have meant ("plya").
      unknownKeys(in: object, allowed: Self.itemKeys.union(extraKeys), at: path)
      return nil
    }
    let allowed = Self.modifierKeys.union(["weight", key]).union(Self.optionKeys[key] ?? []).union(extraKeys)
    unknownKeys(in: object, allowed: allowed, at: path)
    let inner = "\(path).\(key)"
    let made: SoundItem.Kind?
    switch key {
    case "file":
      guard let name = object[key] as? String else {
        errors.append("\(inner): must be a file name")
        return nil
      }
      return file(name, at: inner, modifiers: object)
    case "play":
      guard let played = item(object[key]!, at: inner) else { return nil }
      return wrap(played, modifiers: object, at: path)
    case "random":
      let children = list(object[key], at: inner)
      let avoid = object["avoidRepeat"].map { _ in
        number(object["avoidRepeat"], at: "\(path).avoidRepeat", in: 0...64)
      }
      let shuffle = flag(object["shuffle"], at: "\(path).shuffle") ?? false
      let avoidRepeat = Int((avoid ?? 0) ?? 0)
      if shuffle, avoidRepeat > 0 {
        errors.append("\(path): \"avoidRepeat\" and \"shuffle\" do not go together")
      }
      if let children, avoidRepeat >= children.count, !children.isEmpty {
        errors.append("\(path).avoidRepeat: must be less than the \(children.count) choices")
      }
      made = children.map { .random($0, avoidRepeat: avoidRepeat, shuffle: shuffle) }
    case "sequence":
      let children = list(object[key], at: inner)
      var continuous = false
      if let mode = object["mode"] {
        switch mode as? String {
        case "step": continuous = false
        case "continuous": continuous = true
        default: errors.append("\(path).mode: must be \"step\" or \"continuous\"")
        }
      }
      let reset = number(object["resetAfter"], at: "\(path).resetAfter", in: 0.001...86_400)
      made = children.map { .sequence($0, continuous: continuous, resetAfter: reset) }
    case "switch":
      made = switchOn(object[key], at: inner)
    case "blend":
      made = blend(object[key], at: inner)
    default:  // "layer"
      made = list(object[key], at: inner).map { .layer($0) }
    }
    guard let kind = made else { return nil }
    return SoundItem(
      kind: kind, volumeDecibels: range(object["volumeDb"], at: "\(path).volumeDb", in: -96...0) ?? 0...0,
      pitchSemitones: range(object["pitchSemitones"], at: "\(path).pitchSemitones", in: -24...24) ?? 0...0,
      delay: range(object["delay"], at: "\(path).delay", in: 0...60) ?? 0...0,
      weight: number(object["weight"], at: "\(path).weight", in: 0.000_001...1e6) ?? 1)
  }

  private mutating func file(_ written: String, at path: String, modifiers: [String: Any]) -> SoundItem? {
    guard !written.isEmpty else {
      errors.append("\(path): the file name is empty")
      return nil
    }
    // One file, one name: the map may spell it `./chime.wav` in one place and `chime.wav` in another.
    let name = AssetRoots.canonicalName(written)
    if seenFiles.insert(name).inserted { definition.files.append((name, path)) }
    return SoundItem(
      kind: .file(name),
      volumeDecibels: range(modifiers["volumeDb"], at: "\(path).volumeDb", in: -96...0) ?? 0...0,
      pitchSemitones: range(modifiers["pitchSemitones"], at: "\(path).pitchSemitones", in: -24...24) ?? 0...0,
      delay: range(modifiers["delay"], at: "\(path).delay", in: 0...60) ?? 0...0,
      weight: number(modifiers["weight"], at: "\(path).weight", in: 0.000_001...1e6) ?? 1)
  }

  /// `{"play": item, ...modifiers}`: the item with the outer modifiers (and weight) on top.
  private mutating func wrap(_ inner: SoundItem, modifiers: [String: Any], at path: String) -> SoundItem {
    SoundItem(
      kind: .layer([inner]),
      volumeDecibels: range(modifiers["volumeDb"], at: "\(path).volumeDb", in: -96...0) ?? 0...0,
      pitchSemitones: range(modifiers["pitchSemitones"], at: "\(path).pitchSemitones", in: -24...24) ?? 0...0,
      delay: range(modifiers["delay"], at: "\(path).delay", in: 0...60) ?? 0...0,
      weight: number(modifiers["weight"], at: "\(path).weight", in: 0.000_001...1e6) ?? 1)
  }

  private mutating func list(_ value: Any?, at path: String) -> [SoundItem]? {
    guard let array = value as? [Any] else {
      errors.append("\(path): must be a list")
      return nil
    }
    guard !array.isEmpty else {
      errors.append("\(path): empty")
      return nil
    }
    let items = array.enumerated().compactMap { item($1, at: "\(path)[\($0)]") }
    return items.count == array.count ? items : nil
  }
}
