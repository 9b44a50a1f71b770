import ArgumentParser
import Foley
import Foundation

/// `foley-demo play FILE... [--gap SECONDS] [--at X,Y [--listener X,Y] [--model M]]`: plays files
/// through the engine, overlapping unless a gap is given, and exits when every one has finished.
/// With `--at`, each plays as a positional voice at that point, heard from the listener.
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

  @Option(parsing: .unconditional, help: "Where the listener is (with --at).")
  var listener = PointArgument(point: Point(x: 0, y: 0))

  @Option(help: "The distance model (with --at): none, inverse, linear or exponential.")
  var model: ModelArgument = .inverse

  @Option(help: "The reference distance: full level up to it (with --at).")
  var reference: Double = 100

  @Option(help: "The rolloff (inverse, exponential) or the distance of silence (linear) (with --at).")
  var rolloff: Double?

  @Option(help: "The horizontal distance at which a sound is fully left or right (with --at).")
  var panWidth: Double = 400

  enum ModelArgument: String, ExpressibleByArgument {
    case none, inverse, linear, exponential
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
    guard reference.isFinite, reference > 0 else { throw ValidationError("--reference must be positive") }
    guard panWidth.isFinite, panWidth > 0 else { throw ValidationError("--pan-width must be positive") }
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
    // Positional plays happen in a scene around the listener; plain ones straight on the engine.
    let scene = Scene()
    let listenerNode = Node()
    listenerNode.position = listener.point
    scene.addChild(listenerNode)
    scene.listener = listenerNode
    engine.attach(to: scene, positional: true, spatial: spatial)
    var voices: [(String, Voice)] = []
    var failures = 0
    let stepper = RealTimeStepper(scene)
    for (index, file) in files.enumerated() {
      if index > 0 && gap > 0 {
        let until = ContinuousClock.now + .seconds(gap)
        while ContinuousClock.now < until {
          try await Task.sleep(for: .milliseconds(10))
          stepper.step()
        }
      }
      do {
        let sound = try Sound(contentsOf: URL(fileURLWithPath: file), engine: engine)
        let channels = sound.source.channels == 1 ? "mono" : "\(sound.source.channels) channels"
        if let at {
          let node = Node()
          node.position = at.point
          scene.addChild(node)
          node.run(.play(sound))
          let offset = at.point - listener.point
          let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
          let gain = spatial.gain(atDistance: distance)
          print(
            "playing \(file) (\(String(format: "%.2f", sound.duration)) s, \(channels)) at \(at.point): "
              + String(
                format: "distance %.1f, gain %.3f (%.1f dB), pan %.2f", distance, gain,
                20 * log10(max(gain, 1e-9)),
                spatial.pan(forHorizontalOffset: offset.dx)))
          stepper.step()
          if let voice = engine.newestVoice(of: node) { voices.append((file, voice)) }
        } else {
          print("playing \(file) (\(String(format: "%.2f", sound.duration)) s, \(channels))")
          voices.append((file, engine.play(sound)))
        }
      } catch {
        failures += 1
        FileHandle.standardError.write(Data("foley-demo: \(file): \(error)\n".utf8))
      }
    }
    while voices.contains(where: { !$0.1.isFinished }) {
      try await Task.sleep(for: .milliseconds(20))
      stepper.step()
    }
    let stats = engine.statistics
    print("done: \(stats.started) played, \(failures) failed")
    if failures > 0 { throw ExitCode(1) }
  }
}
