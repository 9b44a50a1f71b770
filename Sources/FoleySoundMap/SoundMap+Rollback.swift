public import FoleyAudio
public import FoleyScene

/// Why a sound map event cannot be posted through a rollback timeline.
public enum SoundMapRollbackError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The event uses something a rollback timeline does not carry yet: `feature` names it
  /// (`"modulators"`, `"quantize"`, `"positional"`, `"delay"`, `"blend"`).
  case notSupported(event: String, feature: String)

  public var description: String {
    switch self {
    case .notSupported(let event, let feature):
      "sound map event \"\(event)\" cannot be posted through a rollback timeline: it uses \(feature), "
        + "which the timeline does not carry; post it with post(_:) instead"
    }
  }
}

extension SoundMap {
  /// Posts `name` as simulation frame `frame` asked for it, under the game's `key`, through
  /// `timeline`: what the event maps to plays through the timeline, so a re-simulation that
  /// posts it again keeps it, and one that does not fades it out (see `RollbackTimeline`).
  ///
  /// The event's random choices (which file, its volume and pitch variations) are drawn from a
  /// generator seeded by the key, and kept with it: the same key plays the same sounds however
  /// often it is re-simulated, and a mispredicted post leaves the choices of the others as they
  /// would have been. A `stop` entry stops, through the timeline, what the event it names
  /// posted through it. The event's `cooldown` and `maxInstances` do not apply (the keys are what
  /// keeps a re-simulated post from doubling); its containers' history (`avoidRepeat`, `shuffle`,
  /// a sequence's position) moves on at a key's first post.
  ///
  /// ```swift
  /// try map.post("hit.heavy", key: RollbackKey(event: "hit", entity: defender, frame: frame),
  ///              frame: frame, through: timeline, parameters: ["surface": "wood"])
  /// ```
  /// - Parameters:
  ///   - name: the event.
  ///   - key: the game's own identity for this post (its event, entity and frame).
  ///   - frame: the simulation frame that posted it.
  ///   - timeline: the timeline the sounds play through.
  ///   - parameters: the event's parameters, as ``post(_:parameters:from:in:volume:pan:rate:start:fadeIn:)``
  ///     takes them.
  ///   - volume: multiplies the map's volume.
  ///   - pan: adds to the map's pan.
  /// - Returns: what the post started (or kept), as ``recentEvents`` lists it.
  /// - Throws: ``SoundMapRollbackError/notSupported(event:feature:)`` for an event whose
  ///   modulators, blend, quantize, delay or placement the timeline does not carry; nothing plays.
  @discardableResult
  public func post(
    _ name: String, key: RollbackKey, frame: Int, through timeline: RollbackTimeline,
    parameters: [String: EventValue] = [:], volume: Double = 1, pan: Double = 0
  ) throws(SoundMapRollbackError) -> [PlayedSound] {
    statistics.posted += 1
    let time = Self.now
    guard let entry = eventLookup.entry(named: name, in: definition.events) else {
      statistics.unknown[name, default: 0] += 1
      log.append(name: name, time: time, outcome: .unknown, sounds: .none)
      return []
    }
    rollbackPosts.forget(confirmedIn: timeline)
    let played: [RollbackPosts.Play]
    switch entry.effect {
    case .stop(let target, _):
      for play in rollbackPosts.plays(of: target) { timeline.stop(key: play.key, frame: frame) }
      log.append(name: name, time: time, outcome: .stopped, sounds: .none)
      return []
    case .play(let item):
      if let held = rollbackPosts.posts[key], held.event == name {
        played = held.plays
      } else {
        played = try resolve(item, entry: entry, name: name, key: key, parameters: parameters)
        rollbackPosts.posts[key] = RollbackPosts.Post(event: name, frame: frame, plays: played)
      }
    }
    var records = PlayedSounds()
    for play in played {
      timeline.play(
        play.sound, key: play.key, frame: frame, volume: play.gain * volume.clamped(to: 0...1, or: 1),
        pan: pan.isFinite ? pan : 0, loops: entry.loops ? -1 : 0)
      records.append(play.record)
      statistics.played += 1
    }
    let all = records.all
    log.append(name: name, time: time, outcome: .played, sounds: records)
    if !observers.isEmpty { for record in all { observers.send(record) } }
    return all
  }

  /// What `item` plays for the post under `key`, its random draws seeded by the key.
  private func resolve(
    _ item: SoundItem, entry: EventEntry, name: String, key: RollbackKey, parameters: [String: EventValue]
  ) throws(SoundMapRollbackError) -> [RollbackPosts.Play] {
    if !entry.modulators.isEmpty { throw .notSupported(event: name, feature: "modulators") }
    if entry.quantize != nil { throw .notSupported(event: name, feature: "quantize") }
    if entry.positional { throw .notSupported(event: name, feature: "positional") }
    var plans: [Plan] = []
    let own = random
    random = SeededRandomGenerator(seed: key.seed)
    resolve(item, event: GameEvent(name: name, parameters: parameters), offset: Plan.Offset(), into: &plans)
    random = own
    if plans.contains(where: { $0.delay != 0 }) { throw .notSupported(event: name, feature: "delay") }
    if plans.contains(where: { !$0.modulators.isEmpty }) {
      throw .notSupported(event: name, feature: "blend")
    }
    var plays: [RollbackPosts.Play] = []
    for (index, plan) in plans.enumerated() {
      guard let sound = sound(for: plan, entry: entry) else { continue }
      plays.append(
        RollbackPosts.Play(
          key: index == 0 ? key : RollbackKey(RollbackPosts.LayerKey(post: key, layer: index)),
          sound: sound, gain: plan.decibels == 0 ? 1 : pow(10, plan.decibels / 20),
          record: PlayedSound(
            event: name, file: plan.file, semitones: plan.semitones, gainDecibels: plan.decibels, delay: 0)))
    }
    return plays
  }
}

/// The posts a map made through rollback timelines, by key, until their frames are confirmed.
struct RollbackPosts {
  struct Play {
    var key: RollbackKey
    var sound: Sound
    var gain: Double
    var record: SoundMap.PlayedSound
  }

  struct Post {
    var event: String
    var frame: Int
    var plays: [Play]
  }

  /// The key of a post's second and later sounds (a layer's).
  struct LayerKey: Hashable, Sendable, CustomStringConvertible {
    let post: RollbackKey
    let layer: Int
    var description: String { "\(post)#\(layer)" }
  }

  var posts: [RollbackKey: Post] = [:]
  /// How many posts were held after the last time confirmed ones were forgotten.
  private var keptAtLastForget = 0

  /// Forgets the posts of `timeline`'s confirmed frames whose sounds have ended, once the held
  /// ones have doubled since the last time (amortised: the posts are not walked at every post).
  /// A sound still playing stays known, so that a `stop` entry finds it.
  mutating func forget(confirmedIn timeline: RollbackTimeline) {
    guard posts.count > 2 * keptAtLastForget + 64 else { return }
    let confirmed = timeline.confirmedThrough
    posts = posts.filter { _, post in
      post.frame > confirmed || post.plays.contains { timeline.voice(for: $0.key)?.isFinished == false }
    }
    keptAtLastForget = posts.count
  }

  /// The plays of the posts of `event`.
  func plays(of event: String) -> [Play] {
    posts.values.filter { $0.event == event }.flatMap(\.plays)
  }
}
