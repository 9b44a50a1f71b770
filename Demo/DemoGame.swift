import Foley
import FoleyAudio
import FoleySpeech
import Foundation
import Logging

/// The demo game: find the five chimes hidden in the field by ear before the time runs out
/// (`DemoGame+Round.swift`), while balls bounce off the walls, each other and the player. Every
/// sound comes from sprite actions and the sound map; the HUD shows the round and what the audio
/// system is doing.
@MainActor
final class DemoGame {
  let scene: Scene
  let engine: AudioEngine
  let session: AudioSession
  let player = SpriteNode(color: Color(red: 0.3, green: 0.9, blue: 0.4), size: Size(width: 36, height: 36))
  var report = DemoReport()
  private(set) var isRunning = true
  var balls: [(node: SpriteNode, velocity: Vector)] = []
  /// The round being played and its chimes still to find (see `DemoGame+Round.swift`).
  var round = DemoRound()
  var chimes: [SpriteNode] = []
  /// The cave (see `DemoGame+Cave.swift`): whether the player was in it at the last frame, and
  /// the balls occluded from it by the wall.
  var playerWasInCave = false
  var occludedBalls: Set<ObjectIdentifier> = []
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
  var policyNote = ""
  var lastStatistics: AudioStatistics?
  let recordingsFolder: URL
  let logger: Logger

  /// The sound map the game's events play through (nil when it did not load: see the report).
  private(set) var soundMap: SoundMap?

  /// Fixes the sound map's random choices (an offline render must give the same bytes each run).
  let soundMapSeed: UInt64?

  init(
    size: Size, engine: AudioEngine, recordingsFolder: URL, soundMap mapURL: URL? = nil,
    soundMapSeed: UInt64? = nil,
    logger: Logger
  ) {
    self.soundMapSeed = soundMapSeed
    self.engine = engine
    self.session = engine.session
    self.recordingsFolder = recordingsFolder
    self.logger = logger
    scene = Scene(size: size, seed: 2026)
    // Sound is heard from where it happens, around the player: the balls' thuds get quieter as
    // they fly away and move across as they pass.
    scene.listener = player
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 120, rolloff: 1)
    spatial.panWidth = 350
    engine.attach(to: scene, positional: true, spatial: spatial)
    report.device = DemoReport.Device(engine.deviceFormat)
    session.addObserver { [weak self] transition in
      guard let self else { return }
      self.report.session.append(
        DemoReport.Transition(
          at: (self.gameTime * 1_000).rounded() / 1_000, active: transition.new.isActive,
          reason: transition.reason.description))
    }
    player.name = "player"
    // Above the help text at the bottom of the window.
    player.position = Point(x: size.width / 2, y: 180)
    scene.addChild(player)
    player.run(
      .repeatForever(.sequence([.scale(to: 1.1, duration: 0.4), .scale(to: 1, duration: 0.4)])),
      withKey: "breathe")
    for index in 0..<6 {
      addBall(at: Point(x: 100 + Double(index) * 110, y: 220 + Double(index % 3) * 110), index: index)
    }
    buildCave()
    loadSounds()
    loadSoundMap(mapURL ?? engine.assetRoot.appendingPathComponent("sounds.json"))
    startAmbience()
    startRound(1)
    scatterEmbers()
    startMusic()
    startSpeech()
    startAccessibility()
  }

  /// Captions on screen and in the report, the sound radar's source, and rumble on any controller.
  private func startAccessibility() {
    let box = CaptionBox(engine: engine)
    box.margin = 108  // above the spoken line (100 px up) and the keys
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
      map.addObserver { [weak self] played in
        self?.report.soundMap.played += 1
        self?.report.soundMap.playedByEvent[played.event, default: 0] += 1
      }
      engine.use(map, for: scene)
      soundMap = map
    } catch {
      report.errors += error.errors.map { "sound map \(url.lastPathComponent): \($0)" }
    }
  }

  private func loadSounds() {
    for name in ["ambience.wav"] {
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
  }

  private func addBall(at position: Point, index: Int) {
    let palette = [
      Color(red: 0.95, green: 0.45, blue: 0.3), Color(red: 0.35, green: 0.6, blue: 1),
      Color(red: 1, green: 0.85, blue: 0.3), Color(red: 0.8, green: 0.4, blue: 0.95),
    ]
    let ball = SpriteNode(color: palette[index % palette.count], size: Size(width: 22, height: 22))
    ball.name = "ball"
    ball.position = position
    ball.run(.repeatForever(.rotate(byAngle: .pi, duration: 1 + Double(index % 6) * 0.2)))
    scene.addChild(ball)
    let angle = Double(index) * 1.3 + 0.4
    balls.append((ball, Vector(dx: cos(angle) * 190, dy: sin(angle) * 190)))
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
      case "return": newRound()
      case "i":
        showsInspector.toggle()
        if !showsInspector { inspectorSnapshot = nil }
      default: break
      }
    case .keyUp(let key): heldKeys.remove(key)
    case .mouseDown(let x, let y): addBall(at: Point(x: x, y: y), index: balls.count)
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
    // Focus loss (or a lost device) pauses the game with its sound: nothing moves, the round's
    // clock waits, and the mailbox is still drained so the session's return is seen.
    guard session.isActive else {
      if recorder?.state == .stopped { stopRecording() }
      scene.update(deltaTime: deltaTime)
      return
    }
    let speed = 280.0 * deltaTime
    if heldKeys.contains(.left) { player.position.x -= speed }
    if heldKeys.contains(.right) { player.position.x += speed }
    if heldKeys.contains(.up) { player.position.y += speed }
    if heldKeys.contains(.down) { player.position.y -= speed }
    // Footsteps while moving: posted every frame, spaced out by the map's cooldown.
    if !heldKeys.isDisjoint(with: [.left, .right, .up, .down]) {
      scene.events.post("player.move", from: player)
    }
    player.position.x = min(max(player.position.x, 18), scene.size.width - 18)
    player.position.y = min(max(player.position.y, 18), fieldTop - 18)
    moveBalls(deltaTime)
    updateRound(deltaTime)
    updateCave()
    updateIntensity()
    if recorder?.state == .stopped { stopRecording() }
    scene.update(deltaTime: deltaTime)  // drains the game-thread mailbox: session, music, speech
    noteChannelPolicy()
  }

  /// The top of the playing field: the HUD's bar covers the rest.
  var fieldTop: Double { scene.size.height - 84 }

  private func moveBalls(_ deltaTime: Double) {
    let radius = 11.0
    for index in balls.indices {
      var (ball, velocity) = balls[index]
      ball.position = ball.position + velocity * deltaTime
      var hit = false
      if ball.position.x < radius || ball.position.x > scene.size.width - radius {
        velocity.dx = -velocity.dx
        hit = true
      }
      if ball.position.y < radius || ball.position.y > fieldTop - radius {
        velocity.dy = -velocity.dy
        hit = true
      }
      ball.position.x = min(max(ball.position.x, radius), scene.size.width - radius)
      ball.position.y = min(max(ball.position.y, radius), fieldTop - radius)
      // The player bats balls away.
      let offset = ball.position - player.position
      if abs(offset.dx) < 29, abs(offset.dy) < 29, offset.dx * velocity.dx + offset.dy * velocity.dy < 0 {
        velocity =
          abs(offset.dx) > abs(offset.dy)
          ? Vector(dx: -velocity.dx, dy: velocity.dy) : Vector(dx: velocity.dx, dy: -velocity.dy)
        hit = true
      }
      balls[index].velocity = velocity
      if hit {
        let surface = abs(offset.dx) < 29 && abs(offset.dy) < 29 ? "player" : "wall"
        collide(
          ball, with: surface, speed: (velocity.dx * velocity.dx + velocity.dy * velocity.dy).squareRoot())
      }
    }
    // Balls that touch bounce apart.
    for first in balls.indices {
      for second in balls.indices where second > first {
        let offset = balls[second].node.position - balls[first].node.position
        let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
        let approaching =
          (balls[second].velocity.dx - balls[first].velocity.dx) * offset.dx
          + (balls[second].velocity.dy - balls[first].velocity.dy) * offset.dy < 0
        guard distance < 2 * radius, distance > 0, approaching else { continue }
        let exchanged = balls[first].velocity
        balls[first].velocity = balls[second].velocity
        balls[second].velocity = exchanged
        let velocity = balls[first].velocity
        collide(
          balls[first].node, with: "ball",
          speed: (velocity.dx * velocity.dx + velocity.dy * velocity.dy).squareRoot())
      }
    }
  }

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
    report.peakVoices = statistics.peakVoices
    report.virtualVoices = engine.voiceCensus().virtual
    report.device = DemoReport.Device(engine.deviceFormat)
    engine.session.mailbox.drain()
    report.music.underruns = engine.music.underrunFrames
    if let soundMap {
      report.soundMap.posted = soundMap.statistics.posted
      report.soundMap.unknown = soundMap.statistics.unknown
      if !soundMap.lastErrors.isEmpty {
        report.errors += soundMap.lastErrors.map { "sound map reload: \($0)" }
      }
    }
    return report
  }

}
