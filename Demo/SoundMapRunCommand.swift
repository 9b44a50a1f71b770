import ArgumentParser
import Foley
import Foundation

/// A timed script of steps against a sound map: posts, game parameters, snapshots.
///
/// ```json
/// [{"at": 0, "post": "music"},
///  {"at": 2, "snapshot": "muffled", "tween": 0.5},
///  {"at": 3, "parameter": "speed", "value": 1, "tween": 4, "easing": "easeInEaseOut"},
///  {"at": 3.5, "release": "muffled", "tween": 0.5}]
/// ```
struct SoundMapScript {
  enum Action {
    case post(String, position: Point?)
    case parameter(String, value: Double)
    case snapshot(String, intensity: Double)
    case release(String)
  }

  struct Step {
    var at: Double
    var action: Action
    var tween: Tween
  }

  var steps: [Step] = []

  static let actionKeys = ["post", "parameter", "snapshot", "release"]
  static let keys: Set<String> = [
    "at", "post", "position", "parameter", "value", "snapshot", "intensity", "release", "tween", "easing",
  ]

  /// The script in `data`, checked against what the map and the engine define; every problem
  /// with its JSON path (`script[2].snapshot: …`).
  static func parse(
    _ data: Data, events: [String], parameters: [String: Double], snapshots: [String]
  ) -> (script: SoundMapScript?, errors: [String]) {
    var errors: [String] = []
    guard let json = try? JSONSerialization.jsonObject(with: data), let list = json as? [Any] else {
      return (nil, ["script: must be a JSON list of steps {\"at\": seconds, …}"])
    }
    var script = SoundMapScript()
    func hint(_ name: String, _ among: [String]) -> String {
      Suggestions.nearest(to: name, among: among).map { " (did you mean \($0)?)" } ?? ""
    }
    func number(_ value: Any?) -> Double? {
      guard let value, let number = SoundMapParser.number(value), number.isFinite else { return nil }
      return number
    }
    for (index, item) in list.enumerated() {
      let path = "script[\(index)]"
      guard let step = item as? [String: Any] else {
        errors.append("\(path): must be an object {\"at\": seconds, …}")
        continue
      }
      for key in step.keys.sorted() where !keys.contains(key) {
        errors.append("\(path).\(key): unknown key\(hint(key, keys.sorted()))")
      }
      guard let at = number(step["at"]), at >= 0, at <= 86_400 else {
        errors.append("\(path).at: must be a number of seconds, 0 to 86400")
        continue
      }
      let named = actionKeys.filter { step[$0] != nil }
      guard named.count == 1, let kind = named.first else {
        errors.append("\(path): needs exactly one of \(actionKeys.joined(separator: ", "))")
        continue
      }
      var tween = Tween.immediate
      if let seconds = step["tween"] {
        guard let duration = number(seconds), duration >= 0, duration <= 3_600 else {
          errors.append("\(path).tween: must be a number of seconds, 0 to 3600")
          continue
        }
        tween.duration = duration
      }
      if let written = step["easing"] {
        guard let name = written as? String, let easing = Easing(named: name) else {
          let text = (written as? String) ?? "\(written)"
          errors.append(
            "\(path).easing: must be one of \(Easing.names.joined(separator: ", "))\(hint(text, Easing.names))"
          )
          continue
        }
        tween.easing = easing
      }
      guard let name = step[kind] as? String, !name.isEmpty else {
        errors.append("\(path).\(kind): must be a name")
        continue
      }
      let action: Action
      switch kind {
      case "post":
        guard events.contains(name) else {
          errors.append("\(path).post: no event \"\(name)\" in the map\(hint(name, events))")
          continue
        }
        var position: Point?
        if let written = step["position"] {
          guard let pair = written as? [Any], pair.count == 2, let x = number(pair[0]),
            let y = number(pair[1])
          else {
            errors.append("\(path).position: must be [x, y]")
            continue
          }
          position = Point(x: x, y: y)
        }
        action = .post(name, position: position)
      case "parameter":
        guard parameters[name] != nil else {
          errors.append(
            "\(path).parameter: no parameter \"\(name)\" in the map\(hint(name, parameters.keys.sorted()))")
          continue
        }
        guard let value = number(step["value"]) else {
          errors.append("\(path).value: must be a number")
          continue
        }
        action = .parameter(name, value: value)
      case "snapshot":
        guard snapshots.contains(name) else {
          errors.append("\(path).snapshot: no snapshot \"\(name)\" in the map\(hint(name, snapshots))")
          continue
        }
        var intensity = 1.0
        if let written = step["intensity"] {
          guard let value = number(written), (0...1).contains(value) else {
            errors.append("\(path).intensity: must be a number from 0 to 1")
            continue
          }
          intensity = value
        }
        action = .snapshot(name, intensity: intensity)
      default:
        guard snapshots.contains(name) else {
          errors.append("\(path).release: no snapshot \"\(name)\" in the map\(hint(name, snapshots))")
          continue
        }
        action = .release(name)
      }
      let extra = Set(step.keys).subtracting(["at", kind, "tween", "easing"])
        .subtracting(
          kind == "post"
            ? ["position"] : kind == "parameter" ? ["value"] : kind == "snapshot" ? ["intensity"] : [])
      for key in extra.sorted() where keys.contains(key) {
        errors.append("\(path).\(key): not part of a \"\(kind)\" step")
      }
      script.steps.append(Step(at: at, action: action, tween: tween))
    }
    if list.isEmpty { errors.append("script: empty (a script needs steps)") }
    script.steps.sort { $0.at < $1.at }
    return (errors.isEmpty ? script : nil, errors)
  }
}

extension SoundMapCommand {
  /// `run MAP SCRIPT`: plays a timed script against a map on the output device, and exits when
  /// the script and its sound have ended.
  struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Play a timed JSON script of posts, parameters and snapshots against a sound map.",
      discussion: """
        A script is a list of steps {"at": SECONDS, ...} with one of "post": EVENT (optional \
        "position": [x, y]), "parameter": NAME with "value": V, "snapshot": NAME (optional \
        "intensity"), "release": NAME; each with an optional "tween": SECONDS and "easing".
        """)

    @Argument(help: "The sound map (JSON).")
    var map: String

    @Argument(help: "The script (JSON).")
    var script: String

    @Option(
      help: "Seconds to let the sounds play after the last step, at most (what still plays is faded out).")
    var seconds: Double = 30

    func validate() throws {
      guard seconds.isFinite, seconds > 0, seconds <= 3_600 else {
        throw ValidationError("--seconds must be more than 0 and at most 3600")
      }
    }

    @MainActor
    func run() async throws {
      let engine = try AudioEngine.forTool("foley.soundmap")
      defer { engine.close() }
      let loaded = try SoundMapCommand.load(map, engine: engine)
      loaded.waitUntilReady()
      let bytes: Data
      do {
        bytes = try Data(contentsOf: URL(fileURLWithPath: script))
      } catch {
        FileHandle.standardError.write(
          Data("\(script): cannot be read: \(error.localizedDescription)\n".utf8))
        throw ExitCode(2)
      }
      let (parsed, errors) = SoundMapScript.parse(
        bytes, events: loaded.eventNames, parameters: engine.parameters,
        snapshots: engine.snapshots.keys.sorted())
      guard let parsed else {
        for line in errors { FileHandle.standardError.write(Data("\(script): \(line)\n".utf8)) }
        throw ExitCode(2)
      }
      let scene = Scene(size: Size(width: 800, height: 600))
      let listener = Node()
      scene.addChild(listener)
      scene.listener = listener
      engine.attach(to: scene)
      engine.use(loaded, for: scene)
      let stepper = RealTimeStepper(scene)
      // Every step on the engine's clock: a tween starts on its frame exactly, a post as the mix
      // reaches it.
      let rate = Double(engine.deviceFormat.sampleRate)
      let start = engine.audioFrame.index + engine.frames(forSeconds: 0.2)
      say("\(engine.deviceLine)")
      say("script starts on frame \(start) at \(Int(rate)) Hz: \(parsed.steps.count) steps")
      let lead = engine.frames(forSeconds: 0.05)
      for step in parsed.steps {
        let frame = start + Int((step.at * rate).rounded())
        let issueAt: Int
        if case .post = step.action { issueAt = frame } else { issueAt = frame - lead }
        while engine.audioFrame.index < issueAt {
          try await Task.sleep(for: .milliseconds(2))
          stepper.step()
        }
        var tween = step.tween
        tween.start = .frame(AudioFrame(frame))
        let timing = tween.duration > 0 ? " over \(tween.duration) s (\(tween.easing))" : ""
        switch step.action {
        case .post(let event, let position):
          var source: Node?
          if let position {
            let node = Node()
            node.position = position
            scene.addChild(node)
            source = node
          }
          scene.events.post(event, from: source)
          stepper.step()
          say(String(format: "%8.3f s: post %@", step.at, event))
        case .parameter(let name, let value):
          try engine.setParameter(name, to: value, tween: tween)
          say(String(format: "%8.3f s: parameter %@ → %g", step.at, name, value) + timing)
        case .snapshot(let name, let intensity):
          try engine.applySnapshot(name, intensity: intensity, tween: tween)
          say(String(format: "%8.3f s: snapshot %@ at %g", step.at, name, intensity) + timing)
        case .release(let name):
          try engine.releaseSnapshot(name, tween: tween)
          say(String(format: "%8.3f s: release %@", step.at, name) + timing)
        }
      }
      // The last step's tween, then every sound to its end (or --seconds, then a fade).
      let last = parsed.steps.map { $0.at + $0.tween.duration }.max() ?? 0
      let ended = start + Int((last * rate).rounded())
      let deadline = ContinuousClock.now + .seconds(seconds)
      while engine.audioFrame.index < ended || scene.hasActions() || engine.voiceCensus() != VoiceCensus() {
        if ContinuousClock.now >= deadline {
          say("still playing \(seconds) s after the last step: fading out")
          scene.removeAllActions()
          engine.stopAllVoices(tween: 0.2)
          engine.waitUntilIdle()
          break
        }
        try await Task.sleep(for: .milliseconds(10))
        stepper.step()
      }
      await engine.waitUntilSilent()
      say("done: \(parsed.steps.count) steps, \(loaded.statistics.played) sounds played")
    }
  }
}
