import ArgumentParser
import Foley
import Foundation

/// `foley-demo play FILE... [--gap SECONDS] [--at X,Y [--listener X,Y]... [--model M]] [--rate R
/// [--rate-to R --over S]] [--lowpass HZ] [--highpass HZ] [--reverb PRESET] [--send LEVEL]`: plays
/// files through the engine, overlapping unless a gap is given, and exits when every one has
/// finished (and the reverb's tail has rung out). With `--at`, each plays as a positional voice
/// at that point through the engine's space, heard from the nearest of up to four listeners
/// (through a scene when walls or doors are given); the rest shape each voice while it plays.
struct PlayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play", abstract: "Play sound files through Foley's engine, optionally placed in space.")

  @Argument(help: "Sound files (WAV, AIFF, OGG Vorbis, Opus, FLAC, MP3).")
  var files: [String]

  @Option(help: "Seconds between the starts of consecutive files (0: all at once).")
  var gap: Double = 0

  // `.unconditional`: the value is taken as given, so negative coordinates (`--at -300,0`, the
  // common case) are not read as options.
  @Option(
    parsing: .unconditional,
    help: "Play each file as a positional voice at this point (scene points, e.g. -300,0).")
  var at: PointArgument?

  @Option(
    parsing: .unconditionalSingleValue,
    help: "Where a listener is (with --at; up to four, each sound heard from the nearest; 0,0 if none).")
  var listener: [PointArgument] = []

  /// The listeners' places: the origin when none was given.
  var listenerPoints: [Point] { listener.isEmpty ? [Point(x: 0, y: 0)] : listener.map(\.point) }

  @Option(help: "The distance model (with --at): none, inverse, linear or exponential.")
  var model: ModelArgument = .inverse

  @Option(help: "The reference distance: full level up to it (with --at).")
  var reference: Double = 100

  @Option(help: "The rolloff (inverse, exponential) or the distance of silence (linear) (with --at).")
  var rolloff: Double?

  @Option(help: "The horizontal distance at which a sound is fully left or right (with --at).")
  var panWidth: Double = 400

  @Option(help: "The playback rate each file starts at (0.25…4: pitch and tempo together).")
  var rate: Double = 1

  @Option(help: "Glide the playback rate to this (0.25…4) over --over seconds.")
  var rateTo: Double?

  @Option(help: "The glide's length in seconds (with --rate-to).")
  var over: Double = 1

  @Option(help: "A low-pass on each voice at this frequency (20…20000 Hz).")
  var lowpass: Double?

  @Option(help: "A high-pass on the effects bus at this frequency (20…20000 Hz).")
  var highpass: Double?

  @Option(help: "The engine's reverb preset: room, hall, cave or underwater (sends 0.4 unless --send).")
  var reverb: ReverbArgument?

  @Option(help: "Each voice's send to the reverb (0…1).")
  var send: Double?

  @Option(
    parsing: .unconditional,
    help: "Play each file at this loudness in LUFS (-70…0; true peak held at -1 dBTP).")
  var normalize: Double?

  @Flag(help: "Mono output: every voice centred at equal power, both channels the same samples.")
  var mono = false

  @Option(parsing: .unconditional, help: "The output's left/right balance, -1 (left only) … 1 (right only).")
  var balance: Double = 0

  @Option(
    parsing: .unconditionalSingleValue,
    help: "A wall between two points, X1,Y1,X2,Y2 (with --at; repeat for more): -12 dB and a 1 kHz low-pass.")
  var wall: [SegmentArgument] = []

  @Option(
    parsing: .unconditionalSingleValue,
    help: "A door across a gap, X1,Y1,X2,Y2[,OPENNESS] (with --at; repeat for more): wood when shut.")
  var door: [SegmentArgument] = []

  /// `X1,Y1,X2,Y2` and, for a door, an openness 0…1 (1 when left out).
  struct SegmentArgument: ExpressibleByArgument {
    var from: Point
    var to: Point
    var openness: Double

    init?(argument: String) {
      let parts = argument.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
      guard parts.count == 4 || parts.count == 5, parts.allSatisfy({ $0?.isFinite == true }) else {
        return nil
      }
      let values = parts.map { $0! }
      from = Point(x: values[0], y: values[1])
      to = Point(x: values[2], y: values[3])
      openness = values.count == 5 ? values[4] : 1
      guard (0...1).contains(openness) else { return nil }
    }
  }

  @Option(help: "How much of the loudness range is heard: full, headphones or night.")
  var range: RangeArgument = .full

  enum RangeArgument: String, ExpressibleByArgument {
    case full, headphones, night
    var mode: DynamicRange { DynamicRange(rawValue: rawValue)! }
  }

  enum ModelArgument: String, ExpressibleByArgument {
    case none, inverse, linear, exponential
  }

  enum ReverbArgument: String, ExpressibleByArgument {
    case room, hall, cave, underwater

    var preset: ReverbEffect.Preset {
      switch self {
      case .room: .room
      case .hall: .hall
      case .cave: .cave
      case .underwater: .underwater
      }
    }
  }

  struct PointArgument: ExpressibleByArgument {
    var point: Point

    init(point: Point) {
      self.point = point
    }

    init?(argument: String) {
      let parts = argument.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
      guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else { return nil }
      point = Point(x: x, y: y)
    }
  }

  func validate() throws {
    guard gap.isFinite, gap >= 0 else { throw ValidationError("--gap must be 0 or more seconds") }
    if (!wall.isEmpty || !door.isEmpty) && at == nil {
      throw ValidationError("--wall and --door shape a positional sound: give --at too")
    }
    guard listener.count <= AudioSpace.maximumListeners else {
      throw ValidationError("--listener may be given up to \(AudioSpace.maximumListeners) times")
    }
    if (!wall.isEmpty || !door.isEmpty) && listener.count > 1 {
      throw ValidationError("--wall and --door are heard from one --listener")
    }
    if let normalize, !AudioEngine.loudnessTargets.contains(normalize) {
      throw ValidationError("--normalize must be between -70 and 0 LUFS")
    }
    guard reference.isFinite, reference > 0 else { throw ValidationError("--reference must be positive") }
    guard panWidth.isFinite, panWidth > 0 else { throw ValidationError("--pan-width must be positive") }
    for (name, value) in [("--rate", rate), ("--rate-to", rateTo)] {
      guard let value else { continue }
      guard value.isFinite, (0.25...4).contains(value) else {
        throw ValidationError("\(name) must be in 0.25…4")
      }
    }
    guard over.isFinite, (0...3_600).contains(over) else {
      throw ValidationError("--over must be 0…3600 seconds")
    }
    for (name, value) in [("--lowpass", lowpass), ("--highpass", highpass)] {
      guard let value else { continue }
      guard value.isFinite, (20...20_000).contains(value) else {
        throw ValidationError("\(name) must be in 20…20000 Hz")
      }
    }
    if let send, !(send.isFinite && (0...1).contains(send)) { throw ValidationError("--send must be in 0…1") }
    guard balance.isFinite, (-1...1).contains(balance) else {
      throw ValidationError("--balance must be in -1…1")
    }
  }

  /// What the shaping options do to each voice, as a line for the output (nil: none).
  var shapingLine: String? {
    var parts: [String] = []
    if rate != 1 { parts.append(String(format: "rate %.2f", rate)) }
    if let rateTo { parts.append(String(format: "gliding to %.2f over %.2f s", rateTo, over)) }
    if let lowpass { parts.append(String(format: "low-pass %.0f Hz", lowpass)) }
    if let highpass { parts.append(String(format: "bus high-pass %.0f Hz", highpass)) }
    if let reverb { parts.append("reverb \(reverb.rawValue)") }
    if let level = sendLevel { parts.append(String(format: "send %.2f", level)) }
    if mono { parts.append("mono") }
    if balance != 0 { parts.append(String(format: "balance %+.2f", balance)) }
    if range != .full { parts.append("range \(range.rawValue)") }
    return parts.isEmpty ? nil : "shaping: " + parts.joined(separator: ", ")
  }

  var sendLevel: Double? { send ?? (reverb == nil ? nil : 0.4) }

  @MainActor
  func shape(_ voice: Voice) {
    if let rateTo { voice.setPlaybackRate(rateTo, tween: Tween(duration: over)) }
    if let lowpass { voice.setLowPassCutoff(lowpass) }
    if let level = sendLevel { voice.setReverbSend(level) }
  }

  var spatial: SpatialAudio {
    var spatial = SpatialAudio()
    switch model {
    case .none: spatial.distanceModel = .none
    case .inverse: spatial.distanceModel = .inverse(reference: reference, rolloff: rolloff ?? 1)
    case .linear: spatial.distanceModel = .linear(reference: reference, maximum: rolloff ?? reference * 10)
    case .exponential: spatial.distanceModel = .exponential(reference: reference, rolloff: rolloff ?? 1)
    }
    spatial.panWidth = panWidth
    return spatial
  }

  @MainActor
  func run() async throws {
    let engine = try AudioEngine.forTool("foley.play")
    defer { engine.close() }
    print(engine.deviceLine)
    engine.isMono = mono
    engine.balance = balance
    engine.dynamicRange = range.mode
    if let highpass { try engine.bus(.effects).setEffects([FilterEffect(.highPass, frequency: highpass)]) }
    if let reverb { engine.reverb.apply(reverb.preset) }
    if let shapingLine { print(shapingLine) }
    // Positional plays with walls or doors happen in a scene around the listener; plain ones
    // straight on the engine.
    let scene = Scene()
    let listenerNode = Node()
    listenerNode.position = listenerPoints[0]
    scene.addChild(listenerNode)
    scene.listener = listenerNode
    engine.attach(to: scene, positional: true, spatial: spatial)
    var geometry = AcousticGeometry()
    for segment in wall {
      scene.addChild(Wall(points: [segment.from, segment.to]))
      geometry.addWall([segment.from, segment.to], material: .wall)
    }
    for segment in door {
      scene.addChild(Portal(from: segment.from, to: segment.to, openness: segment.openness))
      geometry.addPortal(from: segment.from, to: segment.to, openness: segment.openness, closed: .wood)
    }
    geometry.index()
    // Without walls, positional plays go through the engine's space, heard from the nearest
    // listener; walls and doors are a scene's.
    let space = engine.space
    let placesInSpace = wall.isEmpty && door.isEmpty
    if placesInSpace {
      space.spatial = spatial
      try space.setListeners(listenerPoints)
    }
    var voices: [(String, Voice)] = []
    var failures = 0
    let stepper = RealTimeStepper(scene)
    for (index, file) in files.enumerated() {
      if index > 0 && gap > 0 {
        let until = ContinuousClock.now + .seconds(gap)
        while ContinuousClock.now < until {
          try await Task.sleep(for: .milliseconds(10))
          stepper.step()
          space.update(deltaTime: 0.01)
        }
      }
      do {
        var settings = SoundSettings()
        if let normalize {
          try engine.bus(settings.category).setLoudnessTarget(normalize)
          settings.normalizesLoudness = true
        }
        let sound = try Sound(contentsOf: URL(fileURLWithPath: file), engine: engine, settings: settings)
        if let normalize {
          print(
            String(
              format: "%@: %@; normalised to %.1f LUFS: %+.1f dB", file, "\(sound.loudness)", normalize,
              sound.loudness.gain(toReach: normalize)))
        }
        let channels = sound.source.channels == 1 ? "mono" : "\(sound.source.channels) channels"
        if let at, placesInSpace {
          let voice = space.play(sound, at: at.point, rate: rate)
          let heardBy = space.listener(hearing: voice) ?? 0
          let offset = at.point - listenerPoints[heardBy]
          let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
          let gain = spatial.gain(atDistance: distance)
          let from =
            listenerPoints.count > 1 ? ", from listener \(heardBy + 1) at \(listenerPoints[heardBy])" : ""
          print(
            "playing \(file) (\(String(format: "%.2f", sound.duration)) s, \(channels)) at \(at.point)\(from): "
              + String(
                format: "distance %.1f, gain %.3f (%.1f dB), pan %.2f", distance, gain,
                20 * log10(max(gain, 1e-9)), spatial.pan(forHorizontalOffset: offset.dx)))
          shape(voice)
          voices.append((file, voice))
        } else if let at {
          let node = Node()
          node.position = at.point
          scene.addChild(node)
          node.run(.sequence([.changePlaybackRate(to: rate, duration: 0), .playSound(sound)]))
          let offset = at.point - listenerPoints[0]
          let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
          let gain = spatial.gain(atDistance: distance)
          print(
            "playing \(file) (\(String(format: "%.2f", sound.duration)) s, \(channels)) at \(at.point): "
              + String(
                format: "distance %.1f, gain %.3f (%.1f dB), pan %.2f", distance, gain,
                20 * log10(max(gain, 1e-9)),
                spatial.pan(forHorizontalOffset: offset.dx)))
          if !wall.isEmpty || !door.isEmpty {
            let path = geometry.path(from: listenerPoints[0], to: at.point, spatial: spatial)
            print(
              String(
                format:
                  "through the geometry: %d wall(s) crossed (%.1f dB), heard %@, gain %.3f (%.1f dB), pan %.2f, low-pass %.0f Hz",
                path.wallsCrossed, path.occlusionDecibels,
                path.portal.map { "through door \($0 + 1)" } ?? "straight", path.gain,
                20 * log10(max(path.gain, 1e-9)),
                path.pan, path.cutoff))
          }
          stepper.step()
          if let voice = engine.newestVoice(of: node) {
            shape(voice)
            voices.append((file, voice))
          }
        } else {
          print("playing \(file) (\(String(format: "%.2f", sound.duration)) s, \(channels))")
          // A quarter of a second ahead, so its shaping is set before its first sample is mixed
          // (a 10 ms click played at once can be over before the next line runs).
          let voice = engine.play(
            sound, rate: rate, start: .frame(engine.audioFrame + engine.frames(forSeconds: 0.25)))
          shape(voice)
          voices.append((file, voice))
        }
      } catch {
        failures += 1
        FileHandle.standardError.write(Data("foley-demo: \(file): \(error)\n".utf8))
      }
    }
    while voices.contains(where: { !$0.1.isFinished }) {
      try await Task.sleep(for: .milliseconds(20))
      stepper.step()
      space.update(deltaTime: 0.02)
    }
    // The reverb's tail rings on after the voices: the output ends once it has decayed to silence.
    await engine.waitUntilSilent()
    let stats = engine.statistics
    print("done: \(stats.started) played, \(failures) failed")
    if failures > 0 { throw ExitCode(1) }
  }
}
