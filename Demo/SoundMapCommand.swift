import ArgumentParser
import Foley
import Foundation

/// `foley-demo soundmap check FILE` and `foley-demo soundmap post FILE EVENT...`: a sound map
/// checked, or tried out event by event, from the command line.
struct SoundMapCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "soundmap", abstract: "Check a sound map, or post events through it.",
    subcommands: [Check.self, Post.self, Run.self])

  /// `check FILE`: loads the map as a game would (every file decoded); exit 0, or 2 with the errors.
  struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check a sound map: exit 0 if it loads, or 2 with every error and its JSON path.")

    @Argument(help: "The sound map (JSON); its file names are relative to its folder.")
    var file: String

    @MainActor
    func run() async throws {
      // Decoding needs no device: SDL's dummy driver will do where there is none.
      let engine = try AudioEngine.forTool("foley.soundmap", logLevel: .error)
      defer { engine.close() }
      let map = try SoundMapCommand.load(file, engine: engine)
      print(
        "\(file): \(map.eventNames.count) events, all files decoded: \(map.eventNames.joined(separator: ", "))"
      )
    }
  }

  /// The map in `file`, not watched; its every error on standard error and exit 2 if it does not
  /// load.
  @MainActor
  static func load(_ file: String, engine: AudioEngine, seed: UInt64? = nil) throws -> SoundMap {
    do {
      let map = try SoundMap(contentsOf: URL(fileURLWithPath: file), engine: engine, seed: seed)
      map.watchesFile = false
      return map
    } catch {
      for line in error.errors { FileHandle.standardError.write(Data("\(file): \(line)\n".utf8)) }
      throw ExitCode(2)
    }
  }

  /// `post FILE EVENT[:name=value,...]... [--gap S]`: posts the events in order, prints what each
  /// played, and exits when everything has finished.
  struct Post: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Post events through a sound map and print what each one played.",
      discussion: "Events are NAME or NAME:parameter=value,parameter=value (numbers are numbers).")

    @Argument(help: "The sound map (JSON).")
    var file: String

    @Argument(help: "The events to post, in order.")
    var events: [String]

    @Option(help: "Seconds between posts.")
    var gap: Double = 0.25

    @Option(help: "A seed for the map's random choices (the same seed plays the same).")
    var seed: UInt64?

    @Option(
      help: "Seconds to let the sounds play after the last post, at most (a looping event is faded out then)."
    )
    var seconds: Double = 10

    // `.unconditional`: negative coordinates (`--at -300,0`) are values, not options.
    @Option(
      parsing: .unconditional,
      help: "Post from a node at this point, the listener at 0,0 (positional events are heard from there).")
    var at: PlayCommand.PointArgument?

    @Flag(
      help:
        "Print each caption the posts make as a JSON line (text, direction, distance, loudness, category).")
    var captions = false

    func validate() throws {
      guard gap.isFinite, gap >= 0, gap <= 3_600 else {
        throw ValidationError("--gap must be between 0 and 3600 seconds")
      }
      guard seconds.isFinite, seconds > 0, seconds <= 3_600 else {
        throw ValidationError("--seconds must be more than 0 and at most 3600")
      }
      for event in events where Self.parse(event) == nil {
        throw ValidationError("\(event): not NAME or NAME:parameter=value,...")
      }
    }

    static func parse(_ text: String) -> (name: String, parameters: [String: EventValue])? {
      let parts = text.split(separator: ":", maxSplits: 1)
      guard let name = parts.first.map(String.init), !name.isEmpty else { return nil }
      var parameters: [String: EventValue] = [:]
      if parts.count == 2 {
        for pair in parts[1].split(separator: ",") {
          let keyValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
          guard keyValue.count == 2, !keyValue[0].isEmpty else { return nil }
          parameters[keyValue[0]] = Double(keyValue[1]).map { .number($0) } ?? .string(keyValue[1])
        }
      }
      return (name, parameters)
    }

    @MainActor
    func run() async throws {
      let engine = try AudioEngine.forTool("foley.soundmap")
      defer { engine.close() }
      let map = try SoundMapCommand.load(file, engine: engine, seed: seed)
      map.waitUntilReady()
      // The events happen in a scene (delays and positions need one), stepped in real time.
      let scene = Scene(size: Size(width: 800, height: 600))
      let listener = Node()
      scene.addChild(listener)
      scene.listener = listener
      engine.attach(to: scene)
      engine.use(map, for: scene)
      map.observe { played in say("  \(played)") }
      if captions { engine.captions.observe { say(Self.json($0)) } }
      var source: Node?
      if let at {
        let node = Node()
        node.position = at.point
        scene.addChild(node)
        source = node
      }
      let stepper = RealTimeStepper(scene)
      for (index, text) in events.enumerated() {
        if index > 0 {
          let until = ContinuousClock.now + .seconds(gap)
          while ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(5))
            stepper.step()
          }
        }
        let (name, parameters) = Self.parse(text)!
        say("\(text):")
        scene.events.post(name, parameters: parameters, from: source)
        stepper.step()
        if map.statistics.unknown[name] != nil { say("  no such event in the map") }
      }
      // Until every sound has finished, the delayed ones included (they wait as the scene's
      // actions), or --seconds have passed: then what still plays (a looping event) fades out.
      let settle = ContinuousClock.now + .seconds(0.1)
      let deadline = ContinuousClock.now + .seconds(seconds)
      while ContinuousClock.now < settle || scene.hasActions() || engine.voiceCensus() != VoiceCensus() {
        if ContinuousClock.now >= deadline {
          say("  still playing after \(seconds) s: fading out")
          scene.removeAllActions()
          engine.stopAllVoices(tween: 0.2)
          engine.waitUntilIdle()
          let fade = ContinuousClock.now + .seconds(0.3)
          while ContinuousClock.now < fade { try await Task.sleep(for: .milliseconds(10)) }
          break
        }
        try await Task.sleep(for: .milliseconds(10))
        stepper.step()
      }
      await engine.waitUntilSilent()
      if captions {
        // The captions end a hold time after their sounds did.
        let ended = ContinuousClock.now + .seconds(engine.captions.holdTime + 0.2)
        while ContinuousClock.now < ended, !engine.captions.shown.isEmpty {
          try await Task.sleep(for: .milliseconds(10))
          stepper.step()
        }
      }
      let statistics = map.statistics
      say(
        "done: \(statistics.posted) posted, \(statistics.played) played, \(statistics.cooledDown) cooled down, "
          + "\(statistics.limited + statistics.stolen) limited, \(statistics.unknown.values.reduce(0, +)) unknown"
      )
    }
  }
}

extension SoundMapCommand.Post {
  /// A caption event as one line of JSON: numbers rounded for reading, nulls where it has none.
  static func json(_ event: CaptionEvent) -> String {
    func rounded(_ value: Double?, _ places: Double = 100) -> Any {
      guard let value, value.isFinite else { return NSNull() }
      return (value * places).rounded() / places
    }
    let object: [String: Any] = [
      "phase": event.phase.rawValue, "id": event.id, "text": event.text, "category": event.category.rawValue,
      "count": event.count, "label": event.label,
      "direction": event.direction.map { ["degrees": rounded($0.degrees, 10), "words": $0.words] }
        ?? NSNull(),
      "side": rounded(event.side), "distance": rounded(event.distance, 10),
      "loudness": rounded(event.loudness, 10), "duration": rounded(event.duration, 1_000),
      "time": rounded(event.time, 1_000),
    ]
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}
