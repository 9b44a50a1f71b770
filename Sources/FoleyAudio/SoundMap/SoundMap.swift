import Dispatch
public import FoleyScene
import FoleySession
public import Foundation
import Synchronization

/// Game events mapped to sounds, from data: the game posts what happened
/// (`scene.events.post("player.footstep", parameters: ["surface": "grass"], from: player)`) and
/// never calls audio code; the map says what each event sounds like.
///
/// ```json
/// { "version": 1,
///   "events": {
///     "player.footstep": {
///       "switch": { "parameter": "surface", "default": "stone", "cases": {
///         "stone": { "random": ["step/stone1.wav", {"file": "step/stone2.wav", "weight": 0.5}], "avoidRepeat": 1 },
///         "grass": { "random": ["step/grass1.wav", "step/grass2.wav"], "shuffle": true } } },
///       "volumeDb": [-3, 0], "pitchSemitones": [-1, 1], "delay": [0, 0.02],
///       "cooldown": 0.08, "maxInstances": 3, "steal": "oldest", "priority": 10, "positional": true },
///     "enemy.alert": { "sequence": ["vo/alert1.wav", "vo/alert2.wav"], "mode": "step", "resetAfter": 5 },
///     "engine.start": { "play": "engine.wav", "loop": true },
///     "engine.stop": { "stop": "engine.start", "fadeOut": 0.3 } } }
/// ```
///
/// ```swift
/// let map = try SoundMap(contentsOf: URL(fileURLWithPath: "Assets/sounds.json"), engine: engine)
/// engine.use(map, for: scene)
/// try map.reload()          // after editing the file (debug builds poll it on their own)
/// ```
///
/// - Items: a file name, or an object with one of `play`, `file`, `random` (weighted; `avoidRepeat: N`
///   or `shuffle: true`), `sequence` (`mode`: `step`, one per post, or `continuous`, all in turn;
///   `resetAfter` seconds), `switch` (on a parameter, with a `default` case) and `layer` (all at
///   once). They nest. Any item may vary its `volumeDb`, `pitchSemitones` and `delay` (a number or
///   `[min, max]`) and weigh in a `random` with `weight`.
/// - Limits are per event, across its files: `cooldown`, `maxInstances` (with `steal`: `oldest` or
///   `none`), `priority`, `category`; `positional` plays at the posting node around the scene's
///   listener; `loop` loops until a `stop` entry (`"stop": "event", "fadeOut": s`) ends it.
/// - Pitch is rendered, not set (SDL_mixer has no per-channel pitch): each file is resampled in
///   25-cent steps off the game thread, kept within ``pitchBudget``.
/// - Loading checks everything: an unknown key, a wrong type, an empty container or a file that is
///   missing or does not decode gives an error naming its JSON path, and nothing is loaded. Every
///   file is decoded at load, so nothing fails mid-game. File names are relative to the map's
///   folder (and must stay inside it).
@MainActor
public final class SoundMap {
  /// What a post of an event played.
  public struct PlayedSound: Sendable, Hashable, CustomStringConvertible {
    public var event: String
    /// The file, as the map names it.
    public var file: String
    /// The pitch it was played at, in semitones (quantised to 25 cents).
    public var semitones: Double
    /// Its gain, in dB.
    public var gainDecibels: Double
    /// Seconds after the post it starts.
    public var delay: Double

    public var description: String {
      String(format: "%@ → %@, pitch %+.2f st, gain %.1f dB", event, file, semitones, gainDecibels)
        + (delay > 0 ? String(format: ", after %.3f s", delay) : "")
    }
  }

  /// What the map has done.
  public struct Statistics: Sendable, Hashable {
    public var posted = 0
    /// Sounds started.
    public var played = 0
    /// Posts dropped by a `cooldown`.
    public var cooledDown = 0
    /// Posts dropped at `maxInstances` with `steal: "none"`.
    public var limited = 0
    /// Voices stopped to make room at `maxInstances` (`steal: "oldest"`).
    public var stolen = 0
    /// Posts of events the map does not have, by name.
    public var unknown: [String: Int] = [:]
  }

  /// The map's file, if it came from one.
  public let url: URL?
  public let engine: AudioEngine
  /// Bytes the rendered pitch variants may take (least recently used go first).
  public let pitchBudget: Int
  public private(set) var statistics = Statistics()
  /// The errors of the last reload that failed (the map kept what it had); empty otherwise.
  public private(set) var lastErrors: [String] = []

  private var definition: SoundMapDefinition
  private var sounds: [String: Sound] = [:]
  private var signatures: [String: FileSignature] = [:]
  private var mapSignature: FileSignature?
  private let folder: URL
  private var random: SeededRandomGenerator
  private let variants: PitchVariants
  private var runtime = Runtime()
  private var observers = ObserverList<PlayedSound>()
  /// The scenes the map plays for (weakly: each scene keeps its map, through its subscription).
  private var subscriptions: [(scene: WeakScene, events: Int, update: Int)] = []
  private let watch = Watch()

  /// Loads the map at `url`, decoding every file it names through `engine`.
  /// - Parameter seed: fixes the random choices (tests, replays); random by default.
  /// - Throws: ``SoundMapError`` with every problem found.
  public convenience init(
    contentsOf url: URL, engine: AudioEngine, seed: UInt64? = nil, pitchBudget: Int = 32 << 20
  ) throws(SoundMapError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw SoundMapError(errors: ["cannot read \(url.path): \(error.localizedDescription)"])
    }
    try self.init(
      data: data, url: url, folder: url.deletingLastPathComponent(), engine: engine, seed: seed,
      budget: pitchBudget)
    mapSignature = FileSignature(of: url)
    #if DEBUG
      watchesFile = true
      updateWatch()
    #endif
  }

  /// A map from JSON bytes, its file names relative to `folder`.
  public convenience init(
    json: Data, relativeTo folder: URL, engine: AudioEngine, seed: UInt64? = nil, pitchBudget: Int = 32 << 20
  ) throws(SoundMapError) {
    try self.init(data: json, url: nil, folder: folder, engine: engine, seed: seed, budget: pitchBudget)
  }

  private init(
    data: Data, url: URL?, folder: URL, engine: AudioEngine, seed: UInt64?, budget: Int
  ) throws(SoundMapError) {
    self.url = url
    self.folder = folder.standardizedFileURL
    self.engine = engine
    self.pitchBudget = budget
    random = SeededRandomGenerator(seed: seed ?? UInt64.random(in: 0...UInt64.max))
    variants = PitchVariants(library: engine.library, budget: budget)
    definition = SoundMapDefinition()
    let (loaded, decoded, signatures) = try load(data)
    apply(loaded, sounds: decoded, signatures: signatures)
  }

  isolated deinit {
    watch.stop()
  }

  /// The events the map knows.
  public var eventNames: [String] { definition.events.keys.sorted() }

  /// Reads the map's file again. If it (or a file it names) is wrong, the map keeps what it had,
  /// ``lastErrors`` holds the problems and this throws them; voices already playing go on either
  /// way. Files that did not change are not decoded again.
  public func reload() throws(SoundMapError) {
    guard let url else { return }
    do throws(SoundMapError) {
      let data: Data
      do {
        data = try Data(contentsOf: url)
      } catch {
        throw SoundMapError(errors: ["cannot read \(url.path): \(error.localizedDescription)"])
      }
      let (loaded, decoded, signatures) = try load(data)
      apply(loaded, sounds: decoded, signatures: signatures)
      mapSignature = FileSignature(of: url)
      lastErrors = []
    } catch {
      lastErrors = error.errors
      engine.core.logger.warning(
        "sound map \(url.lastPathComponent) not reloaded: \(error.errors.joined(separator: "; "))")
      throw error
    }
  }

  /// Looks at the map's file (and the files it names) twice a second and reloads when one changes
  /// (on the game thread, at the next update of a scene the map is used for, or when the main queue
  /// runs). On by default in debug builds. Dispatch on Linux has no file-system events, hence the
  /// poll (a `stat` per file).
  public var watchesFile: Bool = false {
    didSet {
      if watchesFile != oldValue { updateWatch() }
    }
  }

  private func updateWatch() {
    if watchesFile, url != nil {
      watch.start(files: watchedFiles) { [weak self] in
        DispatchQueue.main.async { MainActor.assumeIsolated { self?.reloadIfChanged() } }
      }
    } else {
      watch.stop()
    }
  }

  /// Calls `body` with every sound the map starts (for tools, logs and the demo's report).
  @discardableResult
  public func addObserver(_ body: @escaping @MainActor (PlayedSound) -> Void) -> Int {
    observers.add(body)
  }

  public func removeObserver(_ token: Int) {
    observers.remove(token)
  }

  /// Waits until the pitch variants asked for so far are rendered (tools and tests; a game just
  /// plays, and a variant not ready yet is heard at the nearest pitch that is).
  public func waitUntilReady() {
    variants.waitUntilRendered()
  }

  /// Plays what `name` maps to, as if posted in `scene` from `node` (the map's own entry point;
  /// ``AudioEngine/use(_:for:)`` routes a scene's posts here). Returns what it started now.
  @discardableResult
  public func post(
    _ name: String, parameters: [String: EventValue] = [:], from node: Node? = nil, in scene: Scene? = nil
  ) -> [PlayedSound] {
    let scene = scene ?? node?.scene
    return handle(
      GameEvent(name: name, parameters: parameters, node: node, time: scene?.currentTime ?? Self.now),
      in: scene)
  }

  // MARK: - Scenes

  func attach(to scene: Scene) {
    detach(from: scene)
    // The scene keeps the map while it uses it.
    let events = scene.events.subscribe("*") { [self, unowned scene] event in handle(event, in: scene) }
    let update = scene.addUpdateObserver(.beforeActions) { [self] _ in reloadIfChanged() }
    subscriptions.removeAll { $0.scene.scene == nil }
    subscriptions.append((WeakScene(scene: scene), events, update))
  }

  func detach(from scene: Scene) {
    for subscription in subscriptions where subscription.scene.scene === scene {
      scene.events.unsubscribe(subscription.events)
      scene.removeUpdateObserver(subscription.update)
    }
    subscriptions.removeAll { $0.scene.scene === scene || $0.scene.scene == nil }
  }

  private struct WeakScene {
    weak var scene: Scene?
  }

  // MARK: - Loading

  private func load(
    _ data: Data
  ) throws(SoundMapError) -> (SoundMapDefinition, [String: Sound], [String: FileSignature]) {
    var parser = SoundMapParser()
    guard let loaded = parser.parse(data) else { throw SoundMapError(errors: parser.errors) }
    var errors: [String] = []
    var decoded: [String: Sound] = [:]
    var signatures: [String: FileSignature] = [:]
    let roots = AssetRoots([folder])
    for (name, path) in loaded.files {
      do throws(SoundError) {
        let file = try roots.locate(name)
        let signature = FileSignature(of: file)
        if let known = sounds[name], let signature, self.signatures[name] == signature {
          decoded[name] = known  // unchanged: not decoded again
          signatures[name] = signature
          continue
        }
        let bytes: Data
        do {
          bytes = try Data(contentsOf: file)
        } catch {
          throw SoundError(.unreadable, asset: name, message: error.localizedDescription)
        }
        decoded[name] = try engine.library.sound(for: bytes, name: name)
        signatures[name] = signature
      } catch {
        switch error.code {
        case .unreadable: errors.append("\(path): file \"\(name)\" not found in \(folder.path)")
        case .invalidName: errors.append("\(path): \"\(name)\" is not a file inside \(folder.path)")
        default: errors.append("\(path): \(error)")
        }
      }
    }
    guard errors.isEmpty else { throw SoundMapError(errors: errors) }
    return (loaded, decoded, signatures)
  }

  private func apply(
    _ loaded: SoundMapDefinition, sounds decoded: [String: Sound], signatures: [String: FileSignature]
  ) {
    definition = loaded
    sounds = decoded
    self.signatures = signatures
    runtime.items.removeAll()  // the containers are new; voices playing go on
    variants.retain(only: Array(decoded.values))
    // Pitch variants are rendered now, in the background, for every step a file may be played at.
    for (name, range) in pitchRanges(loaded) {
      guard let sound = decoded[name] else { continue }
      let low = Int((range.lowerBound * PitchVariants.stepsPerSemitone).rounded())
      let high = Int((range.upperBound * PitchVariants.stepsPerSemitone).rounded())
      if low != 0 || high != 0 { variants.render(sound, steps: Array(low...high)) }
    }
    if watchesFile { updateWatch() }
  }

  private var watchedFiles: [URL] {
    let roots = AssetRoots([folder])
    return (url.map { [$0] } ?? []) + sounds.keys.sorted().compactMap { try? roots.locate($0) }
  }

  private func reloadIfChanged() {
    guard watch.takeChange() else { return }
    try? reload()
  }

  /// The pitches each file may be played at, over every path through the items.
  private func pitchRanges(_ definition: SoundMapDefinition) -> [String: ClosedRange<Double>] {
    var ranges: [String: ClosedRange<Double>] = [:]
    func walk(_ item: SoundItem, _ offset: ClosedRange<Double>) {
      // (Two lines, not one range literal: a formatter that breaks before `...` changes its meaning.)
      let low = offset.lowerBound + item.pitchSemitones.lowerBound
      let high = offset.upperBound + item.pitchSemitones.upperBound
      let here = low...high
      switch item.kind {
      case .file(let name):
        let known = ranges[name] ?? here
        ranges[name] = min(known.lowerBound, here.lowerBound)...max(known.upperBound, here.upperBound)
      case .random(let items, _, _), .sequence(let items, _, _), .layer(let items):
        items.forEach { walk($0, here) }
      case .switchOn(_, let cases, _): cases.values.forEach { walk($0, here) }
      }
    }
    for entry in definition.events.values { if case .play(let item) = entry.effect { walk(item, 0...0) } }
    return ranges
  }

  // MARK: - Playing

  @discardableResult
  private func handle(_ event: GameEvent, in scene: Scene?) -> [PlayedSound] {
    statistics.posted += 1
    guard let entry = definition.events[event.name] else {
      let count = statistics.unknown[event.name, default: 0]
      statistics.unknown[event.name] = count + 1
      if count == 0 {
        engine.core.logger.info("sound map: no event \"\(event.name)\" (counted, logged once)")
      }
      return []
    }
    switch entry.effect {
    case .stop(let target, let fadeOut):
      for voice in runtime.voices[target] ?? [] { voice.stop(fadeOut: fadeOut) }
      runtime.voices[target] = nil
      return []
    case .play(let item):
      if entry.cooldown > 0, let last = runtime.lastTrigger[event.name], event.time - last < entry.cooldown {
        statistics.cooledDown += 1
        return []
      }
      var live = (runtime.voices[event.name] ?? []).filter { !$0.isFinished }
      if let limit = entry.maxInstances, live.count >= limit {
        guard entry.stealsOldest else {
          statistics.limited += 1
          runtime.voices[event.name] = live
          return []
        }
        while live.count >= limit {
          live.removeFirst().stop(fadeOut: 0.02)
          statistics.stolen += 1
        }
      }
      runtime.voices[event.name] = live
      runtime.lastTrigger[event.name] = event.time
      var plans: [Plan] = []
      resolve(item, event: event, offset: Plan.Offset(), into: &plans)
      var played: [PlayedSound] = []
      for plan in plans {
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
        played.append(record)
      }
      return played
    }
  }

  /// One sound to start: a file, its pitch and gain, and when.
  private struct Plan {
    struct Offset {
      var decibels = 0.0
      var semitones = 0.0
      var delay = 0.0
    }

    var file: String
    var decibels: Double
    var semitones: Double
    var delay: Double
  }

  /// Walks `item` for one post, making the random choices and stepping the sequences.
  private func resolve(_ item: SoundItem, event: GameEvent, offset: Plan.Offset, into plans: inout [Plan]) {
    var here = offset
    here.decibels += draw(item.volumeDecibels)
    here.semitones += draw(item.pitchSemitones)
    here.delay += draw(item.delay)
    let key = ObjectIdentifier(item)
    switch item.kind {
    case .file(let name):
      let steps = (here.semitones * PitchVariants.stepsPerSemitone).rounded()
      plans.append(
        Plan(
          file: name, decibels: here.decibels, semitones: steps / PitchVariants.stepsPerSemitone,
          delay: here.delay))
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
    case .layer(let items):
      for child in items { resolve(child, event: event, offset: here, into: &plans) }
    }
  }

  /// How long a plan sounds: its file's length at its pitch.
  private func duration(of plan: Plan) -> Double {
    (sounds[plan.file]?.duration ?? 0) / pow(2, plan.semitones / 12)
  }

  private func start(_ plan: Plan, entry: EventEntry, event: String, node: Node?, record: PlayedSound) {
    guard let base = sounds[plan.file], !engine.isClosed else { return }
    let steps = Int((plan.semitones * PitchVariants.stepsPerSemitone).rounded())
    let pitched = variants.variant(of: base, steps: steps).nearest
    var settings = SoundSettings()
    settings.category = entry.category
    settings.priority = entry.priority
    let sound = Sound(name: base.name, settings: settings, buffer: pitched.buffer)
    var placement: SpatialPlacement?
    var link: SceneAudioLink?
    if let node, let scene = node.scene, let found = SceneAudioLink.of(scene), found.core === engine.core {
      link = found
      if entry.positional { placement = found.placement(for: node) }
    }
    let voice = engine.core.requestPlay(
      .sound(sound), volume: pow(10, plan.decibels / 20), pan: 0, groupVolume: 1, loops: entry.loops ? -1 : 0,
      deferred: link != nil, placement: placement)
    guard !voice.isFinished else { return }
    if let node, placement != nil { link?.follow(voice, of: node) }
    runtime.voices[event, default: []].append(voice)
    statistics.played += 1
    observers.send(record)
  }

  private func draw(_ range: ClosedRange<Double>) -> Double {
    range.lowerBound == range.upperBound ? range.lowerBound : Double.random(in: range, using: &random)
  }

  /// A weighted pick, never one of `recent` when another is possible.
  private func pick(_ items: [SoundItem], avoiding recent: [Int]) -> Int {
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
  private func nextFromBag(_ state: inout ItemState, count: Int) -> Int {
    if state.bag.isEmpty {
      state.bag = Array(0..<count).shuffled(using: &random)
      if count > 1, state.bag.last == state.recent.last { state.bag.swapAt(0, count - 1) }
    }
    return state.bag.removeLast()
  }

  private struct ItemState {
    var recent: [Int] = []
    var bag: [Int] = []
    var position = 0
    var lastTime: Double?
  }

  private struct Runtime {
    var items: [ObjectIdentifier: ItemState] = [:]
    var voices: [String: [Voice]] = [:]
    var lastTrigger: [String: Double] = [:]
  }

  private static var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// Why a sound map could not be loaded: every problem, each with its JSON path.
///
/// ```
/// events["player.footstep"].switch.cases.grass.random[1]: file "step/grass2.ogg" not found in /game/Assets
/// events["ui.click"].volumeDb: 6 is outside -96...0
/// ```
public struct SoundMapError: Error, Sendable, Hashable, CustomStringConvertible {
  public var errors: [String]

  public init(errors: [String]) {
    self.errors = errors
  }

  public var description: String { errors.joined(separator: "\n") }
}

/// The poll behind ``SoundMap/watchesFile``: a timer off the game thread that compares the files'
/// sizes and modification times.
private final class Watch: @unchecked Sendable {
  private let queue = DispatchQueue(label: "foley.soundmap.watch", qos: .utility)
  private let changed = Atomic<Bool>(false)
  // Touched only on `queue`.
  private var timer: (any DispatchSourceTimer)?
  private var signatures: [URL: FileSignature?] = [:]

  func start(files: [URL], onChange: @escaping @Sendable () -> Void) {
    queue.sync {
      timer?.cancel()
      signatures = Dictionary(uniqueKeysWithValues: files.map { ($0, FileSignature(of: $0)) })
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(
        deadline: .now() + .milliseconds(500), repeating: .milliseconds(500), leeway: .milliseconds(100))
      timer.setEventHandler { [unowned self] in
        for (file, signature) in signatures where FileSignature(of: file) != signature {
          signatures[file] = FileSignature(of: file)
          changed.store(true, ordering: .releasing)
          onChange()
        }
      }
      timer.resume()
      self.timer = timer
    }
  }

  func stop() {
    queue.sync {
      timer?.cancel()
      timer = nil
    }
  }

  /// Whether a file changed since the last look.
  func takeChange() -> Bool {
    changed.exchange(false, ordering: .acquiringAndReleasing)
  }

  deinit {
    timer?.cancel()
  }
}
