import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// Captions of what the player hears, and cues no mix can bury: sound-map events posted in a
/// scene on the disk driver, the captions checked against the scene and the mixed output.
@MainActor
@Suite("Captions and critical cues (disk driver)", .serialized)
struct CaptionTests {
  /// A scene of 800×600 (listener at its centre, 400,300) with `json`'s map, on `engine`.
  static func scene(
    _ json: String, engine: AudioEngine, folder: URL, spatial: SpatialAudio = SpatialAudio()
  )
    throws -> Scene
  {
    let scene = Scene(size: Size(width: 800, height: 600))
    engine.attach(to: scene, spatial: spatial)
    engine.use(try SoundMap(json: Data(json.utf8), relativeTo: folder, engine: engine, seed: 1), for: scene)
    return scene
  }

  static func node(at point: Point, in scene: Scene) -> Node {
    let node = Node()
    node.position = point
    scene.addChild(node)
    return node
  }

  @Test("a bad caption or critical flag in a map is reported with its path, and nothing loads")
  func badCaptions() throws {
    let audio = try EmbeddedAudio()
    let folder = try makeToneFolder(["a.wav": 440])
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = """
      { "version": 1, "events": {
          "blank": { "play": "a.wav", "caption": "  " },
          "number": { "play": "a.wav", "caption": 3 },
          "kind": { "play": "a.wav", "caption": { "text": "Bell", "category": "loud" } },
          "wordless": { "play": "a.wav", "caption": { "category": "music" } },
          "extra": { "play": "a.wav", "caption": { "text": "Bell", "colour": "red" } },
          "flag": { "play": "a.wav", "critical": "yes" } } }
      """
    let error = try #require(throws: SoundMapError.self) {
      try SoundMap(json: Data(json.utf8), relativeTo: folder, engine: audio.engine)
    }
    let expected = [
      #"events["blank"].caption: must be the caption's words (1 to 200 characters)"#,
      #"events["number"].caption: must be the caption's words, or an object with "text" and "category""#,
      #"events["kind"].caption.category: must be one of effect, speech, music, critical"#,
      #"events["wordless"].caption.text: missing"#,
      #"events["extra"].caption.colour: unknown key"#,
    ]
    for message in expected { #expect(error.errors.contains(message), "missing: \(message)\n\(error)") }
    #expect(error.errors.contains { $0.hasPrefix(#"events["flag"].critical"#) }, "\(error)")
    // A good one parses.
    _ = try SoundMap(
      json: Data(
        #"{ "version": 1, "events": { "a": { "play": "a.wav", "critical": true, "caption": { "text": "Bell", "category": "critical" } } } }"#
          .utf8), relativeTo: folder, engine: audio.engine)
  }

  @Test("a sound behind a wall heard through its door is captioned from the door, over the way through it")
  func captionLeadsThroughTheDoor() throws {
    let folder = try makeToneFolder(["chime.wav": 660])
    defer { try? FileManager.default.removeItem(at: folder) }
    var seen: [CaptionedSource] = []
    var captions: [CaptionEvent] = []
    _ = try captureDiskOutput { engine, _ in
      var spatial = SpatialAudio()
      spatial.distanceModel = .none
      let scene = try Self.scene(
        #"{ "version": 1, "events": { "chime": { "play": "chime.wav", "positional": true, "loop": true, "caption": "Chime rings" } } }"#,
        engine: engine, folder: folder, spatial: spatial)
      let listener = Self.node(at: Point(x: 400, y: 300), in: scene)
      scene.listener = listener
      // A wall along y = 400 with a door from x = 300 to 400; the chime beyond it up and right,
      // where the straight line crosses the wall.
      scene.addChild(Wall(points: [Point(x: 0, y: 400), Point(x: 300, y: 400)]))
      scene.addChild(Wall(points: [Point(x: 400, y: 400), Point(x: 800, y: 400)]))
      scene.addChild(Portal(from: Point(x: 300, y: 400), to: Point(x: 400, y: 400)))
      engine.captions.observe { captions.append($0) }
      scene.events.post("chime", from: Self.node(at: Point(x: 550, y: 500), in: scene))
      #expect(
        waitUntil(stepping: scene) {
          seen = engine.captions.radar(limit: 6)
          return seen.first?.direction.map { $0.degrees > 90 } == true
        }, "the radar points along the straight line: \(seen)")
    }
    // From the door's middle (350, 400): up and a little left, 116.6°, not the straight line's
    // 53.1°; over 111.8 points to the door and 223.6 beyond it.
    let source = try #require(seen.first)
    let degrees = try #require(source.direction?.degrees)
    #expect(abs(degrees - 116.57) < 0.5, "\(degrees)°")
    #expect(abs((source.distance ?? 0) - 335.41) < 0.5, "\(source.distance ?? 0)")
    #expect(captions.contains { $0.direction.map { abs($0.degrees - 116.57) < 0.5 } == true }, "\(captions)")
  }

  @Test("a caption says where the sound is and how loud; one nobody can hear gets none")
  func directionDistanceAndInaudible() throws {
    let folder = try makeToneFolder(["chime.wav": 660, "far.wav": 440])
    defer { try? FileManager.default.removeItem(at: folder) }
    var events: [CaptionEvent] = []
    var voicesStarted = 0
    let capture = try captureDiskOutput { engine, _ in
      var spatial = SpatialAudio()
      spatial.distanceModel = .inverse(reference: 100, rolloff: 1)
      spatial.maximumDistance = 1_000
      let scene = try Self.scene(
        """
        { "version": 1, "events": {
          "chime": { "play": "chime.wav", "positional": true, "caption": "Chime rings" },
          "far": { "play": "far.wav", "positional": true, "caption": "Far bell" } } }
        """, engine: engine, folder: folder, spatial: spatial)
      engine.captions.observe { events.append($0) }
      // Beyond the maximum distance first: virtual from its start, never heard.
      scene.events.post("far", from: Self.node(at: Point(x: 400, y: 300 + 1_500), in: scene))
      #expect(waitUntil(stepping: scene) { engine.statistics.started >= 1 })
      scene.events.post("chime", from: Self.node(at: Point(x: 100, y: 300), in: scene))
      #expect(waitUntil(stepping: scene) { events.contains { $0.phase == .began } })
      voicesStarted = engine.statistics.started
      // The chime plays out; its caption ends a hold time after.
      #expect(waitUntil(stepping: scene) { events.contains { $0.phase == .ended } })
    }
    #expect(voicesStarted == 2)
    #expect(!events.contains { $0.text == "Far bell" }, "\(events)")
    let began = try #require(events.first { $0.phase == .began })
    #expect(began.text == "Chime rings" && began.category == .effect && began.count == 1)
    let direction = try #require(began.direction)
    #expect(direction.words == "left" && direction.arrow == "←")
    #expect(abs(direction.degrees.magnitude - 180) < 0.01 && abs(began.side + 1) < 1e-9)
    #expect(abs((began.distance ?? 0) - 300) < 0.01)
    // 100 / (100 + 200) at 300 points: -9.5 dB, as heard.
    #expect(abs(began.loudness - 20 * log10(1.0 / 3)) < 0.1, "\(began.loudness)")
    #expect(abs((began.duration ?? 0) - 0.1) < 0.001)
    // And the output agrees: the chime came from the left.
    let left = capture.left.power(atFrequency: 660, in: 0..<capture.left.samples.count)
    let right = capture.right.power(atFrequency: 660, in: 0..<capture.right.samples.count)
    // At 300 points left of a 400-point pan width: a pan of -0.75, cos/sin of 0.0625π on the
    // constant-power law, 25 times the power on the left.
    #expect(left > 10 * right && left > 1e-5, "left \(left), right \(right)")
  }

  @Test("a looping source's caption and radar dot follow its node from the listener's left to its right")
  func captionFollowsItsNode() throws {
    let folder = try makeToneFolder(["engine.wav": 220])
    defer { try? FileManager.default.removeItem(at: folder) }
    var events: [CaptionEvent] = []
    var radar: [[CaptionedSource]] = []
    _ = try captureDiskOutput { engine, _ in
      let scene = try Self.scene(
        #"{ "version": 1, "events": { "engine": { "play": "engine.wav", "positional": true, "loop": true, "caption": "Engine hums" } } }"#,
        engine: engine, folder: folder)
      engine.captions.observe { events.append($0) }
      let car = Self.node(at: Point(x: 100, y: 300), in: scene)
      scene.events.post("engine", from: car)
      #expect(waitUntil(stepping: scene) { events.contains { $0.phase == .began } })
      radar.append(engine.captions.radar())
      // Many updates later (the play long taken), the node drives past the listener.
      for step in 1...20 {
        car.position = Point(x: 100 + Double(step) * 30, y: 300)
        scene.update(deltaTime: 1.0 / 60)
      }
      #expect(waitUntil(stepping: scene) { events.last?.direction?.words == "right" })
      radar.append(engine.captions.radar())
    }
    let began = try #require(events.first)
    #expect(began.direction?.words == "left" && abs((began.distance ?? 0) - 300) < 0.01, "\(began)")
    let last = try #require(events.last)
    #expect(
      last.id == began.id && last.phase == .changed && abs((last.distance ?? 0) - 300) < 0.01, "\(last)")
    #expect(radar.map { $0.first?.direction?.words } == ["left", "right"], "\(radar)")
    #expect(radar.allSatisfy { $0.count == 1 && $0[0].caption.text == "Engine hums" })
  }

  @Test("ten posts in half a second show one caption, counted ×10, that ends after the last")
  func repeatsMerge() throws {
    let folder = try makeToneFolder(["whistle.wav": 880])
    defer { try? FileManager.default.removeItem(at: folder) }
    try makeToneWAV(frequency: 880, duration: 0.08, amplitude: 0.3, channels: 1).write(
      to: folder.appendingPathComponent("whistle.wav"))
    var events: [CaptionEvent] = []
    _ = try captureDiskOutput { engine, _ in
      let scene = try Self.scene(
        #"{ "version": 1, "events": { "whistle": { "play": "whistle.wav", "positional": true, "caption": "Ball whistles" } } }"#,
        engine: engine, folder: folder)
      engine.captions.observe { events.append($0) }
      let ball = Self.node(at: Point(x: 600, y: 300), in: scene)
      var last = DispatchTime.now().uptimeNanoseconds
      var elapsed = 0.0
      var posted = 0
      #expect(
        waitUntil(timeout: 60) {
          let now = DispatchTime.now().uptimeNanoseconds
          elapsed += Double(now - last) / 1e9
          last = now
          if posted < 10, elapsed >= Double(posted) * 0.05 {
            scene.events.post("whistle", from: ball)
            posted += 1
          }
          scene.update(deltaTime: 1.0 / 60)
          return events.contains { $0.phase == .ended }
        })
    }
    #expect(Set(events.map(\.id)).count == 1, "\(events.map(\.label))")
    #expect(events.filter { $0.phase == .began }.count == 1)
    let ended = try #require(events.last)
    #expect(ended.phase == .ended && ended.count == 10 && ended.label == "Ball whistles ×10", "\(ended)")
    #expect(ended.direction?.words == "right")
  }

  @Test("a critical cue is captioned while the player has muted its bus; an ordinary one is not")
  func criticalCaptionsWhileMuted() throws {
    let folder = try makeToneFolder(["alarm.wav": 500, "step.wav": 300])
    defer { try? FileManager.default.removeItem(at: folder) }
    var events: [CaptionEvent] = []
    let capture = try captureDiskOutput { engine, _ in
      let scene = try Self.scene(
        """
        { "version": 1, "events": {
          "step": { "play": "step.wav", "caption": "Footsteps" },
          "alarm": { "play": "alarm.wav", "positional": true, "caption": { "text": "Alarm", "category": "critical" } } } }
        """, engine: engine, folder: folder)
      engine.bus(.effects).isMuted = true
      engine.captions.observe { events.append($0) }
      scene.events.post("step")
      #expect(waitUntil(stepping: scene) { engine.statistics.started >= 1 })
      scene.events.post("alarm", from: Self.node(at: Point(x: 400, y: 500), in: scene))
      #expect(waitUntil(stepping: scene) { events.contains { $0.phase == .began } })
    }
    #expect(!events.contains { $0.text == "Footsteps" }, "\(events)")
    let alarm = try #require(events.first)
    #expect(alarm.text == "Alarm" && alarm.category == .critical)
    #expect(alarm.direction?.words == "above" && alarm.loudness == -.infinity)
    // Muted it was: nothing reached the output.
    #expect(capture.left.peak < 1e-4)
  }

  @Test("a critical voice among 64 louder ones under a budget of 8 stays heard; an ordinary one goes virtual")
  func criticalVoiceSurvivesTheBudget() throws {
    var configuration = AudioConfiguration()
    configuration.maximumAudibleVoices = 8
    var critical: Voice?
    var ordinary: Voice?
    var marks: (Int, Int) = (0, 0)
    let capture = try captureDiskOutput(configuration: configuration) { engine, output in
      let loud = try Sound(
        data: makeToneWAV(frequency: 1_000, duration: 0.5, amplitude: 0.02, channels: 1), name: "crowd.wav",
        engine: engine)
      var criticalSettings = SoundSettings()
      criticalSettings.isCritical = true
      let alarm = try Sound(
        data: makeToneWAV(frequency: 3_000, duration: 0.5, amplitude: 0.01, channels: 1), name: "alarm.wav",
        engine: engine, settings: criticalSettings)
      let chirp = try Sound(
        data: makeToneWAV(frequency: 5_000, duration: 0.5, amplitude: 0.01, channels: 1), name: "chirp.wav",
        engine: engine)
      for _ in 0..<64 { engine.play(loud, loops: -1) }
      #expect(waitUntil { engine.voiceCensus().virtual >= 56 })
      critical = engine.play(alarm, loops: -1)
      ordinary = engine.play(chirp, loops: -1)
      #expect(waitUntil { critical?.state == .playing && ordinary?.isVirtual == true })
      output.waitForMore(seconds: 0.2)
      marks.0 = output.framesWritten
      output.waitForMore(seconds: 0.5)
      marks.1 = output.framesWritten
      #expect(critical?.isVirtual == false && ordinary?.isVirtual == true)
    }
    let window = marks.0..<min(marks.1, capture.left.samples.count)
    try #require(window.count > 9_600)
    // A sine of amplitude a measures a²/2: the alarm's 0.01 is 5e-5, at its constant-power pan.
    let alarmPower = capture.left.power(atFrequency: 3_000, in: window)
    let chirpPower = capture.left.power(atFrequency: 5_000, in: window)
    #expect(alarmPower > 1e-5, "alarm \(alarmPower)")
    #expect(chirpPower < alarmPower / 1_000, "chirp \(chirpPower)")
  }
}

/// A bus marked critical: a duck takes at most 6 dB from it, heard on the disk driver.
@MainActor
@Suite("Critical buses (disk driver)", .serialized)
struct CriticalBusTests {
  @Test("a duck of -20 dB over an ordinary bus and a critical one: -20 dB on the first, -6 dB on the second")
  func duckStopsAtTheFloor() throws {
    let levels = try levels(of: [1_000, 300]) { engine in
      let alert = try tone(1_000, on: "alerts", engine: engine)
      let music = try tone(300, on: .music, engine: engine)
      engine.bus("alerts").isCritical = true
      #expect(engine.bus("alerts").isCritical && AudioEngine.criticalDuckFloorDecibels == 20 * log10(0.5))
      engine.duck(["alerts", .music], by: -20, named: "dialogue", duration: 0)
      engine.play(alert, loops: -1)
      engine.play(music, loops: -1)
    }
    // A mono tone at the centre is in each channel at its own level: 0.2, so a²/2 = 0.02 unducked.
    #expect(abs(levels[0] - -6.02) < 0.3, "alerts: \(levels[0]) dB")
    #expect(abs(levels[1] - -20) < 0.3, "music: \(levels[1]) dB")
  }

  /// Two looping tones at 0.2 (mono, centred), started by `start`; the level of each of
  /// `frequencies` in the output from 0.3 s to 0.7 s after, in dB against its level unducked.
  func levels(
    of frequencies: [Double], start: (AudioEngine) throws -> Void
  ) throws -> [Double] {
    var marks: (Int, Int) = (0, 0)
    let capture = try captureDiskOutput { engine, output in
      try start(engine)
      output.waitForMore(seconds: 0.3)
      marks.0 = output.framesWritten
      output.waitForMore(seconds: 0.4)
      marks.1 = output.framesWritten
    }
    let window = marks.0..<min(marks.1, capture.left.samples.count)
    try #require(window.count > 9_600)
    return frequencies.map { 10 * log10(capture.left.power(atFrequency: $0, in: window) / 0.02) }
  }

  func tone(
    _ frequency: Double, on category: SoundCategory, critical: Bool = false, amplitude: Double = 0.2,
    engine: AudioEngine
  ) throws -> Sound {
    var settings = SoundSettings()
    settings.category = category
    settings.isCritical = critical
    return try Sound(
      data: makeToneWAV(frequency: frequency, duration: 0.5, amplitude: amplitude, channels: 1),
      name: "\(Int(frequency)).wav", engine: engine, settings: settings)
  }

  @Test("a critical sound on an ordinary bus ducked by 20 dB loses 6 dB; an ordinary sound beside it, 20")
  func criticalSoundOnADuckedBus() throws {
    let levels = try levels(of: [1_000, 300]) { engine in
      let alarm = try tone(1_000, on: "sfx", critical: true, engine: engine)
      let chirp = try tone(300, on: "sfx", engine: engine)
      engine.duck(["sfx"], by: -20, named: "dialogue", duration: 0)
      engine.play(alarm, loops: -1)
      engine.play(chirp, loops: -1)
    }
    #expect(abs(levels[0] - -6.02) < 0.3, "the critical sound: \(levels[0]) dB")
    #expect(abs(levels[1] - -20) < 0.3, "the ordinary one: \(levels[1]) dB")
  }

  @Test(
    "a sidechain compressor takes at most 6 dB from a critical bus; from an ordinary one, its 30 dB range")
  func compressorStopsAtTheFloor() throws {
    let levels = try levels(of: [1_000, 300]) { engine in
      engine.bus("alerts").isCritical = true
      for bus in ["alerts", "music"] as [SoundCategory] {
        try engine.bus(bus).setEffects([
          CompressorEffect(
            threshold: -60, ratio: 100, attack: 0.005, release: 0.2, range: 30, sidechain: "voice")
        ])
      }
      let alert = try tone(1_000, on: "alerts", engine: engine)
      let music = try tone(300, on: "music", engine: engine)
      let voice = try tone(2_000, on: "voice", amplitude: 0.5, engine: engine)
      for sound in [alert, music, voice] { engine.play(sound, loops: -1) }
    }
    #expect(abs(levels[0] - -6.02) < 0.3, "the critical bus: \(levels[0]) dB")
    #expect(abs(levels[1] - -30) < 0.5, "the ordinary bus: \(levels[1]) dB")
  }
}
