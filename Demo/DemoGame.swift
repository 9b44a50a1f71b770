import Foley
import FoleyAudio
import FoleySpeech
import Foundation
import Logging

/// The demo game: find the chimes hidden in the dark field by ear before the time runs out, level
/// after level (`DemoGame+Round.swift`, `DemoLevels.swift`), while humming balls bounce off the
/// walls, each other and the player. Every sound comes from sprite actions and the sound map; the
/// walls, doors and rooms are heard through the engine's acoustic geometry; the HUD shows the
/// round and what the audio system is doing, beside the field, never over it.
@MainActor
final class DemoGame {
  let scene: Scene
  let engine: AudioEngine
  let session: AudioSession
  let player = SpriteNode(color: Color(red: 0.3, green: 0.9, blue: 0.4), size: Size(width: 36, height: 36))
  var report = DemoReport()
  private(set) var isRunning = true
  var balls: [(node: SpriteNode, velocity: Vector)] = []
  /// The level and round being played, its chimes (those found by index), and the walls, doors
  /// and rooms built for it (see `DemoGame+Round.swift`).
  var level = DemoLevel.openField
  /// The level's wall segments, worked out once as it starts (the player and every ball are held
  /// back by them each frame).
  var levelSegments: [(Point, Point)] = []
  var round = DemoRound()
  var chimes: [SpriteNode] = []
  var foundChimes: Set<Int> = []
  var levelNodes: [Node] = []
  /// The title screen shows until Return; then `startingLevel` begins.
  var showsTitle: Bool
  let startingLevel: Int
  /// `--dark`: nothing of the field is drawn but the player and the chimes found.
  let isDark: Bool
  /// The radar and the captions' arrows: off in `--dark` unless asked for.
  let showsPointers: Bool
  /// The seed the chimes are placed by (nil: as designed), in the report and the results.
  let chimeSeed: UInt64?
  /// The best score of each level (nil: not kept, as in scripted runs without `--scores`).
  let bestScores: DemoBestScores?
  /// Whether the player was in the cave at the last frame.
  var playerWasInCave = false
  /// The balls' hums, one looping voice each (see `addBall`).
  var humSounds: [Sound] = []
  /// The danger last given to the mix (`DemoGame+Mix.swift`).
  var lastDanger = 0.0
  /// The player paused the round (Tab): nothing moves, and the `pause` snapshot holds the mix.
  var isPaused = false
  var heldKeys: Set<Key> = []
  var sounds: [String: Data] = [:]
  /// The wind, heard from the top-left corner: louder as the player goes there.
  var ambience: AudioNode?
  var ambienceOn = true
  var ambienceSound: Sound?
  /// The two pieces of background music, in time (see `DemoGame+Music.swift`); N moves from one
  /// to the other on the next bar.
  let musicPieces = DemoGame.makeMusicPieces()
  var musicIndex = 0
  /// The stinger a ball sounds when it hits the player, on the music's next beat.
  var stinger: Sound?
  var stingerVoice: Voice?
  /// The intensity last posted to the map's music.
  var postedIntensity = -1.0
  /// T reads the audio state aloud; the word being said shows as a subtitle.
  var speech: SpeechSynthesizer?
  var subtitle: (line: String, word: Range<String.Index>?)?
  var recorder: AudioRecorder?
  /// When the recording running started, on the wall clock (what its length should match).
  var recordingStartedAt: ContinuousClock.Instant?
  var lastRecording: URL?
  var showsHelp = true
  /// The inspector panel (I) and the snapshot it last drew.
  var showsInspector = false
  var inspectorSnapshot: AudioSnapshot?
  /// What is heard, in words, over the bottom of the field (above the keys' help).
  var captionBox: CaptionBox?
  /// A line under the HUD and the frame it goes away at.
  var notice: (text: String, until: Int)?
  var gameTime = 0.0
  /// When a ball last hit the player (game time).
  var lastHit = -Double.infinity
  var policyNote = ""
  var lastStatistics: AudioStatistics?
  let recordingsFolder: URL
  let logger: Logger

  /// The sound map the game's events play through (nil when it did not load: see the report).
  private(set) var soundMap: SoundMap?

  /// Fixes the sound map's random choices (an offline render must give the same bytes each run).
  let soundMapSeed: UInt64?

  /// How a game starts: at the title or straight into a level, in the dark or not, with best
  /// scores kept in a file or not.
  struct Options {
    var showsTitle = false
    var level = 1
    var isDark = false
    /// Whether the sound radar and the captions' arrows are shown (not in `--dark` unless
    /// `--radar`).
    var showsPointers = true
    var scores: URL?
    /// The seed the chimes are placed by (nil: as each level was designed).
    var chimeSeed: UInt64?
  }

  /// The balls' hums' bus.
  static let humCategory: SoundCategory = "hums"

  /// The width of the playing field; the side panel is to its right.
  static let fieldWidth = 800.0
  var fieldWidth: Double { Self.fieldWidth }

  init(
    size: Size, engine: AudioEngine, recordingsFolder: URL, soundMap mapURL: URL? = nil,
    soundMapSeed: UInt64? = nil, options: Options = Options(),
    logger: Logger
  ) {
    self.soundMapSeed = soundMapSeed
    showsTitle = options.showsTitle
    startingLevel = max(1, min(DemoLevel.all.count, options.level))
    isDark = options.isDark
    showsPointers = options.showsPointers
    chimeSeed = options.chimeSeed
    bestScores = options.scores.map { DemoBestScores(url: $0) }
    self.engine = engine
    self.session = engine.session
    self.recordingsFolder = recordingsFolder
    self.logger = logger
    scene = Scene(size: size, seed: 2026)
    // Sound is heard from where it happens, around the player: a chime gets louder all the way to
    // where it lies (the reference distance is inside the reach of a hand, and the fall is gentle
    // enough that the far side of the field is still heard), the balls' hums rise
    // and fall in pitch as they pass (doppler), and everything moves across as the player turns.
    scene.listener = player
    if isDark { scene.backgroundColor = Color(red: 0, green: 0, blue: 0) }
    var spatial = SpatialAudio()
    spatial.distanceModel = .exponential(reference: 25, rolloff: 0.7)
    spatial.panWidth = 350
    spatial.speedOfSound = 2_400
    engine.attach(to: scene, positional: true, spatial: spatial)
    report.device = DemoReport.Device(engine.deviceFormat)
    session.observe { [weak self] transition in
      guard let self else { return }
      self.report.session.append(
        DemoReport.Transition(
          at: (self.gameTime * 1_000).rounded() / 1_000, active: transition.new.isActive,
          reason: transition.reason.description))
    }
    player.name = "player"
    player.position = level.playerStart
    player.zPosition = 1
    scene.addChild(player)
    player.run(
      .repeatForever(.sequence([.scale(to: 1.1, duration: 0.4), .scale(to: 1, duration: 0.4)])),
      withKey: "breathe")
    if let problem = bestScores?.problem { report.errors.append(problem) }
    loadSounds()
    loadSoundMap(mapURL ?? engine.assetRoot.appendingPathComponent("sounds.json"))
    // The game fades in from silence as it opens (the master at 0 before its first sound, eased
    // up over half a second): its first sample cannot click, whatever sound starts first.
    engine.setMasterVolume(0)
    startAmbience()
    scatterEmbers()
    startLevel(showsTitle ? 1 : startingLevel)
    startMusic()
    startSpeech()
    startAccessibility()
    engine.setMasterVolume(1, tween: Tween(duration: 0.5, easing: .easeIn))
    // The title is said as well as shown: a player in the dark hears where to begin.
    if showsTitle {
      applyTitleMix()
      announce(
        "Chimes in the dark. Find the chimes by ear, and dodge the humming balls. Press Return to start, or a level's number."
      )
    }
  }

  /// Captions on screen and in the report, the sound radar's source, and rumble on any controller.
  private func startAccessibility() {
    let box = CaptionBox(engine: engine)
    box.placement = .area(x: Int32(Self.fieldWidth) + 8, width: DemoGame.panelWidth)  // the side panel's foot
    box.showsDirections = showsPointers
    captionBox = box
    engine.captions.observe { [weak self] event in
      if event.phase == .began { self?.report.captions[event.text, default: 0] += 1 }
    }
    do {
      try engine.haptics.useAllControllers()
    } catch {
      logger.info("no rumble: \(error)")
    }
  }

  /// The game's events → sounds, from JSON. Edit the file while the game runs: the change is heard
  /// at the next event (a bad edit is reported and the previous map plays on).
  private func loadSoundMap(_ url: URL) {
    do {
      let map = try SoundMap(contentsOf: url, engine: engine, seed: soundMapSeed)
      map.watchesFile = true
      map.observe { [weak self] played in
        self?.report.soundMap.played += 1
        self?.report.soundMap.playedByEvent[played.event, default: 0] += 1
      }
      // A reload that fails is counted as it happens (a later good one does not hide it) and
      // shown on screen: the previous map plays on meanwhile.
      map.observeReloads { [weak self] reload in
        guard let self, reload.outcome == .failed else { return }
        self.report.errors += reload.errors.map { "sound map reload: \($0)" }
        self.showNotice("sound map not reloaded: " + (reload.errors.first ?? "see the log"))
      }
      engine.use(map, for: scene)
      soundMap = map
    } catch {
      report.errors += error.errors.map { "sound map \(url.lastPathComponent): \($0)" }
    }
  }

  private func loadSounds() {
    for name in ["ambience.wav"] + (1...5).map({ "hum\($0).wav" }) {
      do {
        sounds[name] = try Data(contentsOf: engine.assetRoot.appendingPathComponent(name))
      } catch {
        report.errors.append("cannot read asset \(name): \(error.localizedDescription)")
      }
    }
    var settings = SoundSettings()
    settings.category = .ambience
    settings.volume = 0.35
    if let data = sounds["ambience.wav"] {
      do {
        ambienceSound = try Sound(data: data, name: "ambience.wav", engine: engine, settings: settings)
      } catch {
        report.errors.append("\(error)")
      }
    }
    // The balls' hums: each its own pitch, captioned, quiet enough to sit under the chimes.
    var hum = SoundSettings()
    hum.category = Self.humCategory
    hum.volume = 0.5
    hum.caption = Caption("Ball hums")
    for index in 1...5 {
      guard let data = sounds["hum\(index).wav"] else { continue }
      do {
        humSounds.append(try Sound(data: data, name: "hum\(index).wav", engine: engine, settings: hum))
      } catch {
        report.errors.append("\(error)")
      }
    }
  }

  // MARK: - Input

  func handle(_ event: PlatformEvent) {
    switch event {
    case .quit, .keyDown(.escape, _): isRunning = false
    case .keyDown(let key, let isRepeat):
      heldKeys.insert(key)
      guard !isRepeat else { return }
      switch key.name {
      case "space": playRhythm()
      case "r": toggleRecording(to: nil)
      case "p": playLastRecording()
      case "m":
        scene.events.post("ui.toggle")
        toggleAmbience()
      case "n":
        scene.events.post("ui.toggle")
        changeMusic()
      case "t": speakStatus()
      case "o": switchOutput()
      case "h": showsHelp.toggle()
      case "tab": togglePause()
      case "return": pressReturn()
      case "1", "2", "3", "4", "5", "6", "7", "8", "9":
        // At the title, a level's number starts it.
        if showsTitle, let number = Int(key.name), DemoLevel.all.indices.contains(number - 1) {
          chooseLevel(number)
        }
      case "i":
        showsInspector.toggle()
        if !showsInspector { inspectorSnapshot = nil }
      default: break
      }
    case .keyUp(let key): heldKeys.remove(key)
    case .mouseDown(let x, let y) where x < fieldWidth && y < fieldTop:
      addBall(at: Point(x: x, y: y), index: balls.count)
    default: break
    }
  }

  func toggleAmbience() {
    ambienceOn.toggle()
    ambience?.run(ambienceOn ? .play() : .stop())
  }

  private func startAmbience() {
    guard let ambienceSound else { return }
    let node = AudioNode(sound: ambienceSound)  // loops and is positional, as SKAudioNode
    node.position = Point(x: 60, y: scene.size.height - 130)
    // Its source, seen: a vent whose fan turns.
    let vent = SpriteNode(
      color: Color(red: 0.45, green: 0.6, blue: 0.75, alpha: 0.8), size: Size(width: 34, height: 34))
    vent.name = "wind"
    let fan = SpriteNode(color: Color(red: 0.8, green: 0.9, blue: 1), size: Size(width: 30, height: 6))
    fan.run(.repeatForever(.rotate(byAngle: .pi, duration: 0.6)))
    vent.addChild(fan)
    node.addChild(vent)
    scene.addChild(node)
    ambience = node
  }

  /// Plays a file through a sprite's `playSound(data:)` action (scripts' `playSound`).
  func playFile(_ path: String) {
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      player.run(.playSound(data: data, name: (path as NSString).lastPathComponent))
    } catch {
      report.errors.append("playSound: cannot read \(path): \(error.localizedDescription)")
    }
  }

  // MARK: - Simulation

  func step(_ deltaTime: Double) {
    gameTime += deltaTime
    report.frames += 1
    // Focus loss (or a lost device) pauses the game with its sound, the player's pause with the
    // `pause` mix: nothing moves, the round's clock waits, and the mailbox is still drained so
    // the session's return is seen.
    guard session.isActive, !isPaused else {
      if recorder?.state == .stopped { stopRecording() }
      scene.update(deltaTime: deltaTime)
      return
    }
    let speed = 280.0 * deltaTime
    var move = Vector(dx: 0, dy: 0)
    if heldKeys.contains(.left) { move.dx -= speed }
    if heldKeys.contains(.right) { move.dx += speed }
    if heldKeys.contains(.up) { move.dy += speed }
    if heldKeys.contains(.down) { move.dy -= speed }
    // Footsteps while moving: posted every frame, spaced out by the map's cooldown.
    if !heldKeys.isDisjoint(with: [.left, .right, .up, .down]) {
      scene.events.post("player.move", from: player)
    }
    // Swept: a long frame moves the player in short sub-steps, so no wall is stepped over.
    _ = WallContact.sweep(
      &player.position, by: move, radius: 18, segments: levelSegments, bounds: 18...(fieldWidth - 18),
      18...(fieldTop - 18))
    moveBalls(deltaTime)
    updateRound(deltaTime)
    updateCave()
    updateIntensity()
    updateDanger()
    if recorder?.state == .stopped { stopRecording() }
    scene.update(deltaTime: deltaTime)  // drains the game-thread mailbox: session, music, speech
    noteChannelPolicy()
  }

  /// The top of the playing field: the HUD's bar covers the rest.
  var fieldTop: Double { scene.size.height - 84 }

  private func noteChannelPolicy() {
    let statistics = engine.statistics
    if let last = lastStatistics {
      if statistics.stolen > last.stolen {
        policyNote = "STOLE \(statistics.stolen - last.stolen) VOICE(S)"
      } else if statistics.rejected > last.rejected {
        policyNote = "REJECTED \(statistics.rejected - last.rejected)"
      }
    }
    lastStatistics = statistics
  }

  /// The report's sound figures, brought up to date.
  func finishReport() -> DemoReport {
    if recorder != nil { stopRecording() }
    engine.waitUntilIdle()
    let statistics = engine.statistics
    report.sounds = DemoReport.Sounds(statistics)
    report.round = round
    report.playerAt = [player.position.x, player.position.y]
    report.modes = modeWords
    report.seed = chimeSeed
    report.chimes = chimes.map { [$0.position.x, $0.position.y] }
    report.peakVoices = statistics.peakVoices
    report.virtualVoices = engine.voiceCensus().virtual
    report.device = DemoReport.Device(engine.deviceFormat)
    engine.session.mailbox.drain()
    report.music.underruns = engine.music.underrunFrames
    report.mix.active = engine.activeSnapshots
    if let soundMap {
      report.soundMap.posted = soundMap.statistics.posted
      report.soundMap.unknown = soundMap.statistics.unknown
    }
    return report
  }

}
