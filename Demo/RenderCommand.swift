import ArgumentParser
import Foley
import FoleyDemoScript
import FoleyOffline
import Foundation
import Logging

/// `foley-demo render SCRIPT.json OUT.wav [--seconds S] [--rate HZ]` and `foley-demo render --tour
/// OUT.wav`: the demo game run from a script on an offline renderer — no device, as fast as the
/// machine goes, and the same bytes on every run (the SHA-256 says so).
struct RenderCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract:
      "Render a scripted run of the demo to a WAV file, faster than real time, the same bytes every run.",
    discussion: """
      Script events are applied at their time: keys, clicks, focus and window changes, posts and \
      playSound. The microphone (record) and device events are not part of an offline render: \
      they are skipped and named.
      """)

  @Argument(help: "The script (JSON, as for `foley-demo game --script`), then the WAV file to write.")
  var files: [String]

  @Flag(help: "Render the built-in tour instead of a script (give only the output file).")
  var tour = false

  @Option(
    help: ArgumentHelp(
      "Replay a capture (`foley-demo --capture`) instead of a script (give only the output file).",
      valueName: "capture"))
  var replay: String?

  @Flag(help: "With --replay: replay even when a captured sound is missing or changed, naming each.")
  var allowChangedSounds = false

  @Option(
    help: ArgumentHelp(
      "Render a two-player match through a simulated rollback netcode (inputs 1–8 frames late), heard as its player hears it; a JSON line per rollback (give only the output file).",
      valueName: "seed"))
  var rollbackTest: UInt64?

  @Option(
    help: ArgumentHelp(
      "With --rollback-test: also render the match as the confirmed timeline alone sounds (every input on time).",
      valueName: "truth.wav"))
  var truth: String?

  /// Who plays a render without a script.
  enum BotArgument: String, ExpressibleByArgument, CaseIterable {
    /// Steers by the mixed stereo output alone.
    case ear
    /// Steers by the captions alone.
    case captions
  }

  @Option(
    help: ArgumentHelp(
      "Let a bot play instead of a script (give only the output file): ear (hears only the mixed output) or captions (reads only the captions).",
      valueName: "bot"))
  var bot: BotArgument?

  @Option(help: "Place the chimes by this seed (the designed places without one).")
  var seed: UInt64?

  @Option(help: "The level to play (1…\(DemoLevel.all.count)).")
  var level = 1

  @Flag(help: "No sound reaches the output (the captions still come): the game played muted.")
  var muted = false

  @Option(
    help: ArgumentHelp(
      "Render only this bus (a sound category: music, effects, hums, cues, ...); repeat for more.",
      valueName: "category"))
  var solo: [String] = []

  @Flag(help: "Nothing of the field is drawn (a render draws nothing anyway; the report says so).")
  var dark = false

  /// Whether only the output file is given.
  private var takesOneFile: Bool { tour || bot != nil || replay != nil || rollbackTest != nil }

  @Option(help: "Seconds to render (the script's duration by default).")
  var seconds: Double?

  @Option(help: "The sample rate (8000…192000).")
  var rate = 48_000

  @Option(help: "The folder with the demo's sounds (found beside the executable or in ./Assets otherwise).")
  var assets: String?

  @Option(help: "Write the run's report (JSON, as for a scripted run) here.")
  var report: String?

  func validate() throws {
    guard [tour, bot != nil, replay != nil, rollbackTest != nil].filter({ $0 }).count <= 1 else {
      throw ValidationError("give one of --tour, --bot, --replay and --rollback-test")
    }
    guard files.count == (takesOneFile ? 1 : 2) else {
      throw ValidationError(
        takesOneFile
          ? "give the output file only with --tour, --bot, --replay or --rollback-test"
          : "give a script and an output file")
    }
    if let truth {
      guard rollbackTest != nil else { throw ValidationError("--truth goes with --rollback-test") }
      guard truth.lowercased().hasSuffix(".wav") else { throw ValidationError("--truth must be a .wav file") }
    }
    guard (1...DemoLevel.all.count).contains(level) else {
      throw ValidationError("--level must be 1…\(DemoLevel.all.count)")
    }
    guard files.last!.lowercased().hasSuffix(".wav") else {
      throw ValidationError("the output must be a .wav file")
    }
    if let seconds, !(seconds.isFinite && (0.001...86_400).contains(seconds)) {
      throw ValidationError("--seconds must be in 0.001…86400")
    }
    guard (8_000...192_000).contains(rate) else { throw ValidationError("--rate must be in 8000…192000") }
  }

  @MainActor
  func run() async throws {
    if let replay { return try runReplay(replay) }
    if let rollbackTest { return try runRollbackTest(seed: rollbackTest) }
    let plan: DemoScript
    let assetFolder: URL
    let output = URL(fileURLWithPath: files.last!)
    do {
      plan =
        tour
        ? DemoScript.tour
        : bot != nil
          ? DemoScript(duration: DemoLevel.numbered(level).seconds + 1, events: [])
          : try DemoScript(contentsOf: files[0])
      assetFolder = try DemoAssets.locate(assets)
      try DemoEnvironment.checkWritable(output.path, what: "the output")
      try DemoEnvironment.checkWritable(report, what: "--report")
    } catch {
      FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
      throw ExitCode(2)
    }
    var logger = Logger(label: "foley.render")
    logger.logLevel = .warning
    let renderer = try OfflineRenderer(sampleRate: rate, assetRoots: [assetFolder], logger: logger)
    defer { renderer.close() }
    renderer.engine.isMuted = muted
    for category in solo { renderer.engine.bus(SoundCategory(category)).isSoloed = true }
    renderer.engine.captions.ignoresMasterVolume = muted
    let game = DemoGame(
      size: Size(width: 800, height: 600), engine: renderer.engine,
      recordingsFolder: FileManager.default.temporaryDirectory, soundMapSeed: 2026,
      options: DemoGame.Options(level: level, isDark: dark, chimeSeed: seed), logger: logger)
    let player: (any DemoBot)? =
      switch bot {
      case .ear: EarBot()
      case .captions: CaptionBot(captions: renderer.engine.captions)
      case nil: nil
      }
    let sampleRate = rate
    var pending = plan.events[...]
    var now = 0.0
    var skipped: [String] = []
    let result = try renderer.render(
      seconds: seconds ?? plan.duration, step: plan.step, to: output,
      update: { step in
        while let next = pending.first, next.at <= now + 1e-9 {
          pending = pending.dropFirst()
          if let refused = Self.apply(next.event, to: game) { skipped.append(refused) }
        }
        player?.act(on: game, step: step)
        game.step(step)
        now += step
      },
      consume: { samples in player?.hear(samples, sampleRate: sampleRate) })
    for name in skipped { print("foley-demo: skipped \(name): not part of an offline render") }
    print(
      "foley-demo: rendered \(String(format: "%.2f", result.seconds)) s of audio to \(output.path) "
        + String(format: "at %.1f× real time", result.speed))
    print("foley-demo: sha256 \(result.sha256)")
    let finished = game.finishReport()
    if let report {
      try finished.write(to: report)
      print("foley-demo: wrote the report to \(report)")
    }
    print("foley-demo: \(finished.summary)")
  }

  /// Replays a capture to the output file: the same samples the captured run made.
  @MainActor
  private func runReplay(_ path: String) throws {
    let output = URL(fileURLWithPath: files.last!)
    let capture: CaptureFile
    let assetFolder: URL
    do {
      capture = try CaptureFile(contentsOf: URL(fileURLWithPath: path))
      assetFolder = try DemoAssets.locate(assets)
      try DemoEnvironment.checkWritable(output.path, what: "the output")
    } catch {
      FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
      throw ExitCode(2)
    }
    var logger = Logger(label: "foley.render")
    logger.logLevel = .warning
    let result: OfflineRenderer.ReplayResult
    do {
      // The embers' crackles are made by the game, not read from its assets: made again here.
      let embers = Dictionary(
        uniqueKeysWithValues: (0..<4).map {
          ("ember-\($0).wav", DemoGame.crackle(seed: UInt64($0 + 1), rate: capture.header.sampleRate))
        })
      result = try OfflineRenderer.replay(
        capture, to: output, assetRoots: [assetFolder], sounds: embers,
        allowingChangedSounds: allowChangedSounds,
        logger: logger)
    } catch {
      FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
      throw ExitCode(1)
    }
    if !capture.isComplete {
      print("foley-demo: the capture was cut short: replayed up to its last line")
    }
    for warning in result.warnings { print("foley-demo: warning: \(warning)") }
    print(
      "foley-demo: replayed \(result.commands) commands, \(String(format: "%.2f", result.render.seconds)) s of audio, "
        + "to \(output.path) " + String(format: "at %.1f× real time", result.render.speed))
    print("foley-demo: sha256 \(result.render.sha256)")
  }

  /// Applies a script event to the game directly (no SDL event queue offline); returns the name
  /// of an event an offline render does not take.
  @MainActor
  static func apply(_ event: DemoScript.Event, to game: DemoGame) -> String? {
    switch event {
    case .key(let name, let up):
      game.handle(up ? .keyUp(Key(name: name)) : .keyDown(Key(name: name), isRepeat: false))
    case .click(let x, let y): game.handle(.mouseDown(x: x, y: y))
    case .focusLost: game.session.deactivate(reason: .focusLost)
    case .focusGained: game.session.activate(reason: .focusLost)
    case .minimized: game.session.deactivate(reason: .minimized)
    case .restored: game.session.activate(reason: .minimized)
    case .willEnterBackground: game.session.deactivate(reason: .background)
    case .didEnterForeground: game.session.activate(reason: .background)
    case .playSound(let file): game.playFile(file)
    case .post(let name, let parameters):
      game.scene.events.post(name, parameters: parameters, from: game.player)
    case .record: return "record"
    case .stopRecording: return "stopRecording"
    case .deviceRemoved: return "deviceRemoved"
    case .deviceAdded: return "deviceAdded"
    case .quit: return "quit"
    }
    return nil
  }
}
