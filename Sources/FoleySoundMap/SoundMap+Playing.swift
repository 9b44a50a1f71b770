import Dispatch
package import FoleyAudio
import FoleyMusic
package import FoleyScene
import FoleySceneAudio
import FoleySession
import Foundation

// How the map turns one posted event into voices: the entry, its containers, its variations
// and its limits.
extension SoundMap {

  /// Plays what `event` maps to and logs it (``EventLog/latest`` is what it started).
  package func handle(_ event: GameEvent, in scene: Scene?) {
    let (outcome, played) = outcome(of: event, in: scene)
    // The posting node's own position (no walk up its parents: the post's cost stays flat).
    log.append(
      name: event.name, time: event.time, outcome: outcome, sounds: played, position: event.node?.position)
  }

  private func outcome(of event: GameEvent, in scene: Scene?) -> (PostedEvent.Outcome, PlayedSounds) {
    statistics.posted += 1
    guard let entry = eventLookup.entry(named: event.name, in: definition.events) else {
      if handleMusic(event) { return (.music, .none) }
      let count = statistics.unknown[event.name, default: 0]
      statistics.unknown[event.name] = count + 1
      if count == 0 {
        engine.core.logger.info("sound map: no event \"\(event.name)\" (counted, logged once)")
      }
      return (.unknown, .none)
    }
    switch entry.effect {
    case .stop(let target, let fadeOut):
      for voice in runtime.voices[target] ?? [] { voice.stop(tween: Tween(duration: fadeOut)) }
      runtime.voices[target] = nil
      return (.stopped, .none)
    case .play(let item):
      if entry.cooldown > 0, let last = runtime.lastTrigger[event.name], event.time - last < entry.cooldown {
        statistics.cooledDown += 1
        return (.cooledDown, .none)
      }
      if let limit = entry.maxInstances {
        // Capped: the event's voices still playing, oldest first (never more than the cap). Moved
        // out of the table and back, so the array is not copied.
        var live = runtime.voices.removeValue(forKey: event.name) ?? []
        live.isolatedRemoveAll { $0.isFinished }
        defer { runtime.voices[event.name] = live }
        if live.count >= limit, !entry.stealsOldest {
          statistics.limited += 1
          return (.limited, .none)
        }
        while live.count >= limit {
          live.removeFirst().stop(tween: 0.02)
          statistics.stolen += 1
        }
      } else if let count = runtime.voices[event.name]?.count, count >= 16, count & (count - 1) == 0 {
        // Kept for a stop entry only: the finished ones go at each power of two (amortised).
        runtime.voices[event.name]!.isolatedRemoveAll { $0.isFinished }
      }
      // Kept only for an event with a cooldown, the one reader (a hash and a store per post
      // otherwise). An event given a cooldown by a reload starts it at its next play.
      if entry.cooldown > 0 { runtime.lastTrigger[event.name] = event.time }
      // One file (most events, `{"play": "file"}` a layer of one): its plan straight, with no
      // list of plans to build. The draws are made in `resolve`'s order.
      var single = item
      var offset = Plan.Offset()
      while case .layer(let items) = single.kind, items.count == 1 {
        offset = drawn(single, on: offset)
        single = items[0]
      }
      if case .file(let name) = single.kind {
        return (
          .played,
          PlayedSounds(
            launch(filePlan(single, name: name, offset: offset), entry: entry, event: event, in: scene))
        )
      }
      var plans: [Plan] = []
      resolve(item, event: event, offset: Plan.Offset(), into: &plans)
      var played = PlayedSounds()
      for plan in plans { played.append(launch(plan, entry: entry, event: event, in: scene)) }
      return (.played, played)
    }
  }

  /// Starts `plan` now, or after its delay; returns its record.
  private func launch(_ plan: Plan, entry: EventEntry, event: GameEvent, in scene: Scene?) -> PlayedSound {
    let record = PlayedSound(
      event: event.name, file: plan.file, semitones: plan.semitones, gainDecibels: plan.decibels,
      delay: plan.delay)
    if plan.delay > 0, let scene {
      let host = event.node.flatMap { $0.scene === scene ? $0 : nil } ?? scene
      let node = event.node
      host.run(
        .sequence([
          .wait(forDuration: plan.delay),
          .run { [weak self] in
            self?.start(plan, entry: entry, event: event.name, node: node, record: record)
          },
        ]))
    } else {
      start(plan, entry: entry, event: event.name, node: event.node, record: record)
    }
    return record
  }

  /// One sound to start: a file, its pitch and gain, and when.
  package struct Plan {
    package struct Offset {
      var decibels = 0.0
      var semitones = 0.0
      var delay = 0.0
      /// What a blend container gives its layers' voices (empty for any other).
      var modulators: [Modulator] = []
    }

    package var file: String
    package var decibels: Double
    package var semitones: Double
    package var delay: Double
    /// The file item it came from (which keeps the sound it plays at its own pitch).
    package var item: SoundItem
    /// The modulators of the blends it is in, on top of the event's.
    package var modulators: [Modulator] = []
  }

  /// `offset` with `item`'s variations drawn on top (volume, pitch, delay: the order the seeded
  /// generator replays).
  private func drawn(_ item: SoundItem, on offset: Plan.Offset) -> Plan.Offset {
    var here = offset
    here.decibels += draw(item.volumeDecibels)
    here.semitones += draw(item.pitchSemitones)
    here.delay += draw(item.delay)
    return here
  }

  /// The plan of file item `item` (`name`), its variations drawn on top of `offset`.
  private func filePlan(_ item: SoundItem, name: String, offset: Plan.Offset) -> Plan {
    let here = drawn(item, on: offset)
    let steps = (here.semitones * PitchVariants.stepsPerSemitone).rounded()
    return Plan(
      file: name, decibels: here.decibels, semitones: steps / PitchVariants.stepsPerSemitone,
      delay: here.delay,
      item: item, modulators: here.modulators)
  }

  /// Walks `item` for one post, making the random choices and stepping the sequences.
  package func resolve(_ item: SoundItem, event: GameEvent, offset: Plan.Offset, into plans: inout [Plan]) {
    if case .file(let name) = item.kind {
      plans.append(filePlan(item, name: name, offset: offset))
      return
    }
    let here = drawn(item, on: offset)
    let key = ObjectIdentifier(item)
    switch item.kind {
    case .file: break  // above
    case .random(let items, let avoidRepeat, let shuffle):
      var state = runtime.items[key] ?? ItemState()
      let index = shuffle ? nextFromBag(&state, count: items.count) : pick(items, avoiding: state.recent)
      // The last picks: the ones to avoid, and for a shuffle the one a new round must not repeat.
      state.recent.append(index)
      if state.recent.count > max(avoidRepeat, 1) {
        state.recent.removeFirst(state.recent.count - max(avoidRepeat, 1))
      }
      if avoidRepeat == 0, !shuffle { state.recent.removeAll() }
      runtime.items[key] = state
      resolve(items[index], event: event, offset: here, into: &plans)
    case .sequence(let items, let continuous, let resetAfter):
      if continuous {
        var start = here
        for child in items {
          var childPlans: [Plan] = []
          resolve(child, event: event, offset: start, into: &childPlans)
          let end = childPlans.map { $0.delay + duration(of: $0) }.max() ?? start.delay
          plans += childPlans
          start.delay = end
        }
        return
      }
      var state = runtime.items[key] ?? ItemState()
      if let resetAfter, let last = state.lastTime, event.time - last > resetAfter { state.position = 0 }
      let index = state.position % items.count
      state.position = index + 1
      state.lastTime = event.time
      runtime.items[key] = state
      resolve(items[index], event: event, offset: here, into: &plans)
    case .switchOn(let parameter, let cases, let fallback):
      let value = event.parameters[parameter]?.description
      guard let chosen = value.flatMap({ cases[$0] }) ?? fallback.flatMap({ cases[$0] }) else { return }
      resolve(chosen, event: event, offset: here, into: &plans)
    case .blend(let parameter, let layers, let curves):
      for (layer, curve) in zip(layers, curves) {
        var inner = here
        inner.modulators.append(.parameter(parameter, curve: curve))
        resolve(layer, event: event, offset: inner, into: &plans)
      }
    case .layer(let items):
      for child in items { resolve(child, event: event, offset: here, into: &plans) }
    }
  }

  /// How long a plan sounds: its file's length at its pitch.
  package func duration(of plan: Plan) -> Double {
    (sounds[plan.file]?.duration ?? 0) / pow(2, plan.semitones / 12)
  }

  /// The sound `plan` plays: its file at its pitch (the nearest rendered while the variant is on
  /// its way), with the entry's settings; nil when the file is not loaded.
  package func sound(for plan: Plan, entry: EventEntry) -> Sound? {
    let steps = Int((plan.semitones * PitchVariants.stepsPerSemitone).rounded())
    if steps == 0, let prepared = plan.item.preparedSound { return prepared }
    guard let base = sounds[plan.file] else { return nil }
    let pitched = variants.variant(of: base, steps: steps).nearest
    var settings = SoundSettings()
    settings.category = entry.category
    settings.priority = entry.priority
    settings.normalizesLoudness = entry.normalize
    settings.caption = entry.caption
    settings.isCritical = entry.isCritical
    settings.rumble = entry.rumble
    // The file's loudness stands for its pitch variants' (the same to within a fraction of a dB).
    if entry.normalize { pitched.buffer.assumeLoudness(base.loudness) }
    let sound = Sound(name: base.name, settings: settings, buffer: pitched.buffer)
    // At its own pitch the sound is the same every post: kept on the item (a variant may still
    // be on its way, and then the nearest plays meanwhile: those are made each time).
    if steps == 0 { plan.item.preparedSound = sound }
    return sound
  }

  package func start(_ plan: Plan, entry: EventEntry, event: String, node: Node?, record: PlayedSound) {
    guard !engine.isClosed, let sound = sound(for: plan, entry: entry) else { return }
    // The event's modulators ride with the play, so its voice starts under them (an envelope's
    // attack from its first frame); a list the engine refuses is logged by it.
    var options = postOptions
    if !entry.modulators.isEmpty || !plan.modulators.isEmpty {
      options = options ?? PlayOptions()
      options?.modulators = entry.modulators + plan.modulators
    }
    // On the music's next beat or bar; with no music in time to land on, at once.
    if let moment = entry.quantize, let schedule = try? engine.music.scheduledStart(on: moment) {
      options = options ?? PlayOptions()
      options?.schedule = schedule
    }
    guard
      let voice = SceneVoices.start(
        .sound(sound), for: node, engine: engine,
        volume: (plan.decibels == 0 ? 1 : pow(10, plan.decibels / 20)) * postVolume,
        loops: entry.loops ? -1 : 0, positional: entry.positional, options: options),
      !voice.isFinished
    else { return }
    // Kept only where something needs them: a cap, or a stop entry naming the event. Every post
    // of an event once filtered all its voices: a post's cost grew with the voices playing.
    if entry.maxInstances != nil || entry.isStopTarget {
      runtime.voices[event, default: []].append(voice)
    }
    statistics.played += 1
    if !observers.isEmpty { observers.send(record) }
  }

  package func draw(_ range: ClosedRange<Double>) -> Double {
    range.lowerBound == range.upperBound ? range.lowerBound : Double.random(in: range, using: &random)
  }

  /// A weighted pick, never one of `recent` when another is possible.
  func pick(_ items: [SoundItem], avoiding recent: [Int]) -> Int {
    var allowed = items.indices.filter { !recent.contains($0) }
    if allowed.isEmpty { allowed = Array(items.indices) }
    let total = allowed.reduce(0) { $0 + items[$1].weight }
    var roll = Double.random(in: 0..<total, using: &random)
    for index in allowed {
      roll -= items[index].weight
      if roll < 0 { return index }
    }
    return allowed.last!
  }

  /// The next of a shuffled round; a new round never starts with the one that ended the last.
  func nextFromBag(_ state: inout ItemState, count: Int) -> Int {
    if state.bag.isEmpty {
      state.bag = Array(0..<count).shuffled(using: &random)
      if count > 1, state.bag.last == state.recent.last { state.bag.swapAt(0, count - 1) }
    }
    return state.bag.removeLast()
  }

  struct ItemState {
    package var recent: [Int] = []
    var bag: [Int] = []
    package var position = 0
    var lastTime: Double?
  }

  struct Runtime {
    package var items: [ObjectIdentifier: ItemState] = [:]
    /// The voices of the events that are capped (`maxInstances`) or that a stop entry names.
    package var voices: [String: [Voice]] = [:]
    var lastTrigger: [String: Double] = [:]
    /// The music state last asked for, and the game parameters' last values.
    package var musicState: String?
    package var parameters: [String: Double] = [:]
  }

  package static var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// The entries of recently posted names (or their absence), found by the name's bits before its
/// hash. A posted name is most often a literal, whose bits are the same at every post, or a short
/// name held in the string itself: its slot is picked from its two words, and a string compare
/// that starts by comparing those words confirms it, where the definition's dictionary hashed
/// every byte of the name at every post. A name built afresh for each post
/// lands in a slot by its new bits, misses, and is looked up in the definition. The map empties
/// it whenever its definition changes.
struct EventLookup {
  private static let slots = 32
  private var names = [String?](repeating: nil, count: slots)
  private var entries = [EventEntry?](repeating: nil, count: slots)

  package init() {}

  /// `name`'s entry in `events`, from its slot when it was posted there last.
  @inline(__always)
  package mutating func entry(named name: String, in events: [String: EventEntry]) -> EventEntry? {
    let words = unsafeBitCast(name, to: (UInt64, UInt64).self)
    let mixed = (words.0 ^ (words.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
    let slot = Int(truncatingIfNeeded: mixed >> 59)
    if let held = names[slot], held == name { return entries[slot] }
    let entry = events[name]
    names[slot] = name
    entries[slot] = entry
    return entry
  }

  package mutating func removeAll() {
    for slot in 0..<Self.slots {
      names[slot] = nil
      entries[slot] = nil
    }
  }
}
