import Dispatch
public import FoleyAudio
public import FoleyCore
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
  public struct PlayedSound: Sendable, Hashable, Codable, CustomStringConvertible {
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
  public nonisolated let url: URL?
  public let engine: AudioEngine
  /// Bytes the rendered pitch variants may take (least recently used go first).
  public let pitchBudget: Int
  // The state a post reads and writes, each access instantaneous (nothing is held across a call
  // out to an observer or a voice), so the runtime's exclusivity checks are left off: they were
  // a large share of every post. `observers` keeps them (an observer may subscribe another while
  // it is being told).
  @exclusivity(unchecked) public internal(set) var statistics = Statistics()
  /// The play options of the post being handled (a scene's own posts have none).
  var postVolume = 1.0
  var postOptions: PlayOptions?
  /// The errors of the last reload that failed (the map kept what it had); empty otherwise.
  public internal(set) var lastErrors: [String] = []
  /// The latest reloads of the map's file (at most ``keptReloads``), oldest first: what each
  /// added, removed and changed, or why it failed.
  public internal(set) var reloads: [SoundMapReload] = []
  var reloadObservers = ObserverList<SoundMapReload>()
  /// The map's JSON text in use: as loaded, then as edited (``replaceEvent(_:with:expecting:)``).
  var document: SoundMapDocument
  /// The file's bytes as last loaded or saved, to tell a change on disk a save would overwrite.
  var savedBytes: Data?
  /// Counts the changes to the map in use (reloads and edits); an edit names the version it edits.
  public internal(set) var version = 1
  /// Whether edits made since the last load or save are not in the file yet.
  public internal(set) var hasUnsavedEdits = false

  @exclusivity(unchecked) var definition: SoundMapDefinition {
    didSet {
      eventLookup.removeAll()
      let facts = definition.auditionFacts
      switchesFound = facts.switchParameters
      auditionFacts.withLock { $0 = facts }
    }
  }
  /// What ``checkAudition(_:parameters:)`` checks against, found when the definition changes and
  /// read from any thread (the inspector's server checks a post before it reaches the game).
  nonisolated let auditionFacts = Locked(AuditionFacts())
  /// ``switchParameters``, found when the definition changes (a pass over every event, beside the
  /// parse that made it), so that the inspector's page costs the game thread no such pass.
  var switchesFound: [String: [String]] = [:]
  /// The entries of recently posted names, found without hashing the name.
  @exclusivity(unchecked) var eventLookup = EventLookup()
  @exclusivity(unchecked) package var sounds: [String: Sound] = [:]
  var signatures: [String: FileSignature] = [:]
  /// The music section's files, found in the map's folder.
  var musicFiles: [String: URL] = [:]
  var mapSignature: FileSignature?
  package let folder: URL
  @exclusivity(unchecked) package var random: SeededRandomGenerator
  package let variants: PitchVariants
  @exclusivity(unchecked) var runtime = Runtime()
  /// What posts through a rollback timeline resolved, by key.
  var rollbackPosts = RollbackPosts()
  package var observers = ObserverList<PlayedSound>()
  /// The latest posts, for ``recentEvents``.
  @exclusivity(unchecked) package var log = EventLog()
  /// The scenes the map plays for (weakly: each scene keeps its map, through its subscription).
  private var subscriptions: [(scene: WeakScene, events: Observation, update: Observation)] = []
  package let watch = SoundMapWatch()
  private let idleWaiter: Int
  /// The largest map file read (16 MiB): checked before a byte is read.
  static let maximumMapFileSize = 16 << 20
  /// How many numbered backups (`NAME.bak.N`) a save keeps beside the map, 1…1,000 (20 by
  /// default); the oldest go first, but never the one holding the map as this object first read it.
  public var backupLimit = 20 {
    didSet { backupLimit = min(max(backupLimit, 1), 1_000) }
  }
  /// The number of the backup that holds the map as first read (set by the first save).
  var firstBackup: Int?
  /// Called by a save once the new map is on disk and just before its last look at the file, for
  /// the tests: a change written there must be caught.
  package var saveWillRename: (() -> Void)?

  /// Loads the map at `url`, decoding every file it names through `engine`.
  /// - Parameters:
  ///   - url: the map's JSON file; the files it names are found beside it.
  ///   - engine: the engine its sounds are decoded for and played through.
  ///   - seed: fixes the random choices (tests, replays); random by default.
  ///   - pitchBudget: the most bytes of pitched variants kept decoded at once.
  /// - Throws: ``SoundMapError`` with every problem found.
  public convenience init(
    contentsOf url: URL, engine: AudioEngine, seed: UInt64? = nil, pitchBudget: Int = 32 << 20
  ) throws(SoundMapError) {
    let data: Data
    do {
      data = try BoundedFile.read(url, limit: SoundMap.maximumMapFileSize, asset: url.lastPathComponent)
    } catch {
      throw SoundMapError(errors: ["cannot read \(url.path): \(error.message)"])
    }
    // A save cut short (the game killed mid-write) leaves its temporary file behind: swept now.
    AtomicFile.sweepTemporaries(of: url.resolvingSymlinksInPath())
    MapBackups(of: url).sweepTemporaries()
    try self.init(
      data: data, url: url, folder: url.deletingLastPathComponent(), engine: engine, seed: seed,
      budget: pitchBudget)
    mapSignature = FileSignature(of: url)
    savedBytes = data
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
    // An offline render (and `waitUntilIdle`) waits for the variants being rendered.
    idleWaiter = engine.addIdleWaiter { [variants] in variants.waitUntilRendered() }
    definition = SoundMapDefinition()
    document = SoundMapDocument(data)
    let (loaded, decoded, signatures) = try load(data)
    apply(loaded, sounds: decoded, signatures: signatures)
  }

  isolated deinit {
    watch.stop()
    engine.removeIdleWaiter(idleWaiter)
  }

  /// The events the map knows.
  public var eventNames: [String] { definition.events.keys.sorted() }

  /// Reads the map's file again. If it (or a file it names) is wrong, the map keeps what it had,
  /// ``lastErrors`` holds the problems and this throws them; voices already playing go on either
  /// way. Files that did not change are not decoded again. Unsaved edits are dropped (the watch
  /// does not reload over them: see ``hasUnsavedEdits``).
  public func reload() throws(SoundMapError) {
    guard let url else { return }
    do throws(SoundMapError) {
      let data: Data
      do {
        data = try BoundedFile.read(url, limit: SoundMap.maximumMapFileSize, asset: url.lastPathComponent)
      } catch {
        throw SoundMapError(errors: ["cannot read \(url.path): \(error.message)"])
      }
      adopt(try load(data), text: SoundMapDocument(data), origin: .file)
      mapSignature = FileSignature(of: url)
      savedBytes = data
    } catch {
      lastErrors = error.errors
      // An error, as a sound that cannot be found is: the edit is lost until it is fixed, though
      // the previous map plays on.
      record(change(.failed, errors: error.errors))
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

  func updateWatch() {
    if watchesFile, url != nil {
      let mailbox = engine.session.mailbox
      watch.start(files: watchedFiles) { [weak self] in
        // A changed file is reloaded on the game thread, at the next drain of the mailbox.
        mailbox.post { self?.reloadIfChanged() }
      }
    } else {
      watch.stop()
    }
  }

  /// Calls `body` with every sound the map starts (for tools, logs and the demo's report).
  @discardableResult
  public func observe(_ body: @escaping @MainActor (PlayedSound) -> Void) -> Observation {
    let token = observers.add(body)
    return Observation { [weak self] in self?.observers.remove(token) }
  }

  /// Waits until the pitch variants asked for so far are rendered (tools and tests; a game just
  /// plays, and a variant not ready yet is heard at the nearest pitch that is).
  public func waitUntilReady() {
    variants.waitUntilRendered()
  }

  /// Plays what `name` maps to, as if posted in `scene` from `node` (the map's own entry point;
  /// `AudioEngine/use(_:for:)` routes a scene's posts here). Returns what it started now.
  ///
  /// The play options are those every way to start a sound takes
  /// (`AudioEngine.play(_:volume:pan:loops:rate:start:fadeIn:)`), on top of the event's own: the
  /// volume and rate multiply the map's, the pan adds to it; how often it loops is the map's.
  ///
  /// ```swift
  /// map.post("door.open", from: door)
  /// map.post("engine.start", volume: 0.8, rate: 1.2, fadeIn: Tween(duration: 0.5, easing: .easeOut))
  /// ```
  @discardableResult
  public func post(
    _ name: String, parameters: [String: EventValue] = [:], from node: Node? = nil, in scene: Scene? = nil,
    volume: Double = 1, pan: Double = 0, rate: Double = 1, start: Tween.Start = .now,
    fadeIn: Tween = .immediate
  ) -> [PlayedSound] {
    let scene = scene ?? node?.scene
    postVolume = volume.clamped(to: 0...1, or: 1)
    postOptions = .given(pan: pan, rate: rate, start: start, fadeIn: fadeIn)
    defer {
      postVolume = 1
      postOptions = nil
    }
    handle(
      GameEvent(name: name, parameters: parameters, node: node, time: scene?.currentTime ?? Self.now),
      in: scene)
    return log.latest.all
  }

  // MARK: - Scenes

  package func attach(to scene: Scene) {
    detach(from: scene)
    // The scene keeps the map while it uses it.
    let events = scene.events.observe("*") { [self, unowned scene] event in handle(event, in: scene) }
    let update = scene.observeUpdates(.beforeActions) { [self] _ in reloadIfChanged() }
    subscriptions.removeAll { $0.scene.scene == nil }
    subscriptions.append((WeakScene(scene: scene), events, update))
  }

  /// The scenes the map plays for, still alive, in the order it was used for them.
  var scenes: [Scene] { subscriptions.compactMap(\.scene.scene) }

  package func detach(from scene: Scene) {
    scene.childNode(withName: Self.auditionNodeName)?.removeFromParent()
    for subscription in subscriptions where subscription.scene.scene === scene {
      subscription.events.cancel()
      subscription.update.cancel()
    }
    subscriptions.removeAll { $0.scene.scene === scene || $0.scene.scene == nil }
  }

  private struct WeakScene {
    package weak var scene: Scene?
  }

  /// Whether the map's file and every file it names are as the map last loaded or saved them (a
  /// save of its own changes the file the watch sees, and is no reason to read it again).
  package var matchesDisk: Bool {
    guard let url, FileSignature(of: url) == mapSignature else { return url == nil }
    let roots = AssetRoots([folder])
    return signatures.allSatisfy { name, signature in
      (try? roots.locate(name)).flatMap { FileSignature(of: $0) } == signature
    }
  }

  private func reloadIfChanged() {
    guard watch.takeChange(), !matchesDisk else { return }
    guard !hasUnsavedEdits else {
      // Reading the file now would drop the edits: the designer chooses (reload, or save over it).
      record(
        change(
          .failed,
          errors: [
            "the file changed on disk while edits made to the running map are unsaved: not read. "
              + "Reloading takes the file and drops the edits; saving over it keeps the edits"
          ]))
      return
    }
    try? reload()
  }
}
