import ArgumentParser
import Foley
import FoleyDemoScript
import FoleyInspector
import Foundation
import Logging

/// The default subcommand: the demo game in a window, or headless — scripted from a JSON file, or
/// a built-in tour where there is no display.
struct RunScene: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "game",
    abstract: "Play the demo game (the default), or run it headless from a script.",
    discussion: """
      Keys: arrows move, Space plays a rhythm, R records, P plays the last take, M toggles the \
      wind, N changes the music on the next bar, T talks, I shows the inspector, H help, Esc quits. The game's sounds come from the \
      sound map (Assets/sounds.json): edit it while the game runs. A script is JSON: {"duration": s, "step": s, "events": \
      [{"at": s, "event": "key", "key": "space"}, ...]}.
      """)

  @Flag(help: "Run without a window, on SDL's dummy drivers unless SDL_*DRIVER says otherwise.")
  var headless = false

  @Option(help: "A JSON script to run headless (see the discussion).")
  var script: String?

  @Option(help: "Write the run's report (JSON) here.")
  var report: String?

  @Option(
    help: ArgumentHelp(
      "Capture every command the game gives its sound to this file (replaced), for `render --replay`.",
      valueName: "file"))
  var capture: String?

  @Option(help: "Write the last frame to this BMP file.")
  var screenshot: String?

  @Flag(help: "Do not pace the steps to the wall clock.")
  var fast = false

  @Option(help: "Where R puts new recordings.")
  var recordings = "recordings"

  @Option(help: "The folder with the demo's sounds (found beside the executable or in ./Assets otherwise).")
  var assets: String?

  @Option(help: "The sound map (JSON) the game's events play through; sounds.json in the assets by default.")
  var soundMap: String?

  @Flag(help: "No sound at all: the game is played by its captions and its sound radar.")
  var muted = false

  @Flag(help: "Nothing of the field is drawn but the player and the chimes found: play by ear alone.")
  var dark = false

  @Flag(help: "With --dark, still show the sound radar and the captions' arrows.")
  var radar = false

  @Option(
    help: ArgumentHelp(
      "Place the chimes by this seed (a windowed game picks a new one each run; a script keeps the designed places).",
      valueName: "n"))
  var seed: UInt64?

  @Option(help: "The level to start at (1…\(DemoLevel.all.count)).")
  var level = 1

  @Flag(help: "Start at the title screen (a windowed game always does; a script starts playing).")
  var title = false

  @Option(
    help: ArgumentHelp(
      "Keep the best scores in this JSON file (a windowed game keeps them in $XDG_DATA_HOME/foley-demo by default).",
      valueName: "file"))
  var scores: String?

  @Flag(help: "Mono output: every sound in both ears, at equal power.")
  var mono = false

  @Option(parsing: .unconditional, help: "The output's left/right balance, -1 (left only) … 1 (right only).")
  var balance: Double = 0

  @Option(help: "How much of the loudness range is heard: full, headphones or night.")
  var range: PlayCommand.RangeArgument = .full

  @Option(
    help: ArgumentHelp(
      "Serve the browser inspector on 127.0.0.1 at this port (0, or no value: any free port); prints its address.",
      valueName: "port"))
  var inspector: UInt16?

  @MainActor
  func run() async throws {
    // Bad arguments stop here, before anything is opened or run: exit status 2.
    let plan: DemoScript?
    let assetFolder: URL
    do {
      plan = try script.map { try DemoScript(contentsOf: $0) }
      try DemoEnvironment.checkWritable(report, what: "--report")
      try DemoEnvironment.checkWritable(screenshot, what: "--screenshot")
      try DemoEnvironment.checkWritable(capture, what: "--capture")
      if let screenshot, !screenshot.lowercased().hasSuffix(".bmp") {
        throw DemoScript.ScriptError(
          description: "--screenshot writes a BMP image: give a name ending in .bmp")
      }
      assetFolder = try DemoAssets.locate(assets)
      guard balance.isFinite, (-1...1).contains(balance) else {
        throw DemoScript.ScriptError(description: "--balance must be in -1…1, not \(balance)")
      }
      guard (1...DemoLevel.all.count).contains(level) else {
        throw DemoScript.ScriptError(description: "--level must be 1…\(DemoLevel.all.count), not \(level)")
      }
      if let soundMap, !FileManager.default.fileExists(atPath: soundMap) {
        throw DemoScript.ScriptError(description: "--sound-map \(soundMap): no such file")
      }
    } catch {
      FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
      throw ExitCode(2)
    }
    var windowed = !headless && plan == nil && DemoEnvironment.hasDisplay
    var logger = Logger(label: "foley.demo")
    logger.logLevel = .warning
    let context: SDLContext
    let attempt = windowed ? try? SDLContext(subsystems: [.video, .events, .audio], mode: .windowed) : nil
    if let attempt, DemoEnvironment.isWindowing(attempt.videoDriver) {
      context = attempt
    } else {
      if windowed {
        // A DISPLAY that names no reachable server: SDL fails, or picks a driver with no visible
        // window (a demo nobody could see or quit). Run headless instead, and say so.
        print(
          "foley-demo: the display is not usable (video driver \(attempt?.videoDriver ?? "none")); running headless"
        )
        attempt?.shutdown()
        windowed = false
      }
      context = try SDLContext(subsystems: [.video, .events, .audio], mode: .headless)
    }
    defer { context.shutdown() }
    let canvas = try Canvas(
      title: "Foley demo", width: 1_140, height: 600, presentation: windowed ? .window : .offscreen)
    defer { canvas.close() }
    let engine = try AudioEngine(session: AudioSession(), assetRoots: [assetFolder], logger: logger)
    defer { engine.close() }
    // The player's settings: mono, the range mode, and muted play by captions alone.
    engine.isMono = mono
    engine.balance = balance
    engine.dynamicRange = range.mode
    engine.isMuted = muted
    engine.captions.ignoresMasterVolume = muted
    if let capture {
      do {
        try engine.startCapture(to: URL(fileURLWithPath: capture), replacing: true)
      } catch {
        FileHandle.standardError.write(Data("foley-demo: --capture: \(error)\n".utf8))
        throw ExitCode(1)
      }
    }
    // A player at a window starts at the title and keeps best scores; a script starts playing.
    let options = DemoGame.Options(
      showsTitle: windowed || title, level: level, isDark: dark, showsPointers: !dark || radar,
      scores: scores.map { URL(fileURLWithPath: $0) } ?? (windowed ? DemoBestScores.defaultURL : nil),
      chimeSeed: seed ?? (windowed ? UInt64.random(in: 1...999_999) : nil))
    let game = DemoGame(
      size: Size(width: 800, height: 600), engine: engine,
      recordingsFolder: URL(fileURLWithPath: recordings, isDirectory: true),
      soundMap: soundMap.map { URL(fileURLWithPath: $0) }, options: options, logger: logger)
    if dark {
      print(
        "foley-demo: dark: nothing of the field is drawn; play by ear"
          + (radar ? " (the radar and the captions' arrows still shown)" : " alone"))
    }
    if muted { print("foley-demo: muted: play by the captions and the sound radar") }
    if let chimeSeed = options.chimeSeed {
      print("foley-demo: chimes placed by seed \(chimeSeed) (--seed \(chimeSeed) repeats them)")
    }
    // The demo is the game that enables the page's controls and saving: its whole point is to be
    // played with, and a designer tuning its sounds keeps what they hear (Assets/sounds.json).
    let server = inspector.map {
      InspectorServer(
        engine: engine, soundMap: game.soundMap,
        options: .init(port: $0, allowsControl: true, allowsSaving: true))
    }
    defer { server?.stop() }
    if let server {
      do {
        // Written straight to the descriptor: a tool reading the address from a pipe gets it now,
        // not when stdout's buffer fills.
        FileHandle.standardOutput.write(Data("inspector: \(try server.start())\n".utf8))
      } catch {
        FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
        throw ExitCode(1)
      }
    }
    if windowed {
      print(
        "foley-demo: windowed (video \(context.videoDriver ?? "?"), audio \(engine.deviceFormat)); H shows the keys"
      )
      runWindowed(game, canvas: canvas)
    } else {
      let chosen = plan ?? DemoScript.tour
      print(
        "foley-demo: headless (video \(context.videoDriver ?? "?"), audio \(engine.deviceFormat.driver)): "
          + (plan == nil
            ? "no display or --headless, running the built-in \(chosen.duration) s tour"
            : "running \(script!)"))
      try runScript(chosen, game: game, canvas: canvas, engine: engine)
    }
    if let screenshot {
      try canvas.saveScreenshot(to: screenshot)
      print("foley-demo: wrote \(screenshot)")
    }
    if let summary = engine.stopCapture() {
      print(
        "foley-demo: captured \(summary.records) commands over \(String(format: "%.1f", summary.seconds)) s "
          + "(\(summary.bytes) bytes) to \(summary.url.path)")
    }
    let result = game.finishReport()
    if let report {
      try result.write(to: report)
      print("foley-demo: wrote the report to \(report)")
    }
    print("foley-demo: \(result.summary)")
    for error in result.errors { print("foley-demo: error: \(error)") }
  }

  @MainActor
  private func runWindowed(_ game: DemoGame, canvas: Canvas) {
    let pump = EventPump(sceneHeight: game.scene.size.height, session: game.session)
    var last = Date()
    while game.isRunning {
      for polled in pump.poll() { game.handle(polled.event) }
      let now = Date()
      game.step(min(now.timeIntervalSince(last), 0.1))
      last = now
      canvas.draw(game.scene) { game.drawHUD(on: $0) }
    }
  }

  /// Steps the game at the script's fixed step, pushing its events as real SDL events at their
  /// time, paced to the wall clock unless `--fast`.
  @MainActor
  private func runScript(_ plan: DemoScript, game: DemoGame, canvas: Canvas, engine: AudioEngine) throws {
    let pump = EventPump(sceneHeight: game.scene.size.height, session: game.session)
    let frames = Int((plan.duration / plan.step).rounded(.up))
    let start = Date()
    var pending = plan.events[...]
    for frame in 0..<frames where game.isRunning {
      let now = Double(frame) * plan.step
      while let next = pending.first, next.at <= now + 1e-9 {
        pending = pending.dropFirst()
        try perform(next.event, game: game, engine: engine)
      }
      for polled in pump.poll() { game.handle(polled.event) }
      game.step(plan.step)
      if !fast {
        let ahead = start.addingTimeInterval(Double(frame + 1) * plan.step).timeIntervalSinceNow
        if ahead > 0 { usleep(UInt32(ahead * 1_000_000)) }
      }
      // Drawing every frame is what a game does; headless it costs little, and the HUD is tested.
      canvas.draw(game.scene) { game.drawHUD(on: $0) }
    }
  }

  @MainActor
  private func perform(_ event: DemoScript.Event, game: DemoGame, engine: AudioEngine) throws {
    if let pushed = event.platformEvent(outputDevice: engine.deviceID ?? 0) {
      try EventPump.push(pushed)
      return
    }
    switch event {
    case .playSound(let file): game.playFile(file)
    case .record(let file): game.toggleRecording(to: file)
    case .stopRecording: game.stopRecording()
    case .post(let name, let parameters):
      game.scene.events.post(name, parameters: parameters, from: game.player)
    default: break
    }
  }

}

enum DemoEnvironment {
  /// The video drivers that put a window on a screen someone is looking at.
  static func isWindowing(_ driver: String?) -> Bool {
    ["x11", "wayland", "cocoa", "windows", "android", "uikit"].contains(driver ?? "")
  }

  /// Fails early (before a whole run) when `path`'s folder does not exist or cannot be written.
  static func checkWritable(_ path: String?, what: String) throws {
    guard let path else { return }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
      FileManager.default.isWritableFile(atPath: folder)
    else {
      throw DemoScript.ScriptError(
        description: "\(what) \(path): the folder \(folder) does not exist or is not writable")
    }
  }

  /// Whether a windowed run can work here: a display server is named and no dummy video driver is
  /// forced.
  static var hasDisplay: Bool {
    let environment = ProcessInfo.processInfo.environment
    if let driver = environment["SDL_VIDEODRIVER"], ["dummy", "offscreen"].contains(driver) {
      return false
    }
    return environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
  }
}
