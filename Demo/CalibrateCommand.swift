import ArgumentParser
import Foley
import Foundation

/// `foley-demo calibrate [--headless] [--taps N] [--settings FILE] [--bot-input-ms MS
/// --bot-audio-ms MS]`: measures a player's latency by tapping the space bar to clicks, then to
/// flashes with no sound, prints the offsets as a JSON line and keeps them in a settings file.
struct CalibrateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "calibrate",
    abstract: "Measure the player's sound and input delays by tapping to clicks, then to flashes.",
    discussion: """
      Tap the space bar on each click, then on each flash (silent). The sound's delay is how \
      much later the clicks were tapped than the flashes; the input's is the flashes'. The \
      offsets are printed as a JSON line and, with --settings, written into that settings file \
      (its other settings kept; a file that does not decode is refused and left as it was). \
      Headless (or with no display) a bot taps for the player, pushing SDL events.
      """)

  @Flag(help: "No window: the offscreen canvas and, unless a bot is given, nobody to tap.")
  var headless = false

  @Option(help: "Cues in each pass (8…64), half a second apart.")
  var taps: Int = 16

  @Option(help: "The settings file (AudioSettings JSON) to keep the offsets in.")
  var settings: String?

  @Option(help: "A bot taps this many milliseconds after each flash (its input's delay).")
  var botInputMs: Double?

  @Option(
    help: "The bot hears each click this many milliseconds late (a delay past SDL), with --bot-input-ms.")
  var botAudioMs: Double = 0

  func validate() throws {
    guard (8...64).contains(taps) else { throw ValidationError("--taps must be 8…64, not \(taps)") }
    for (name, value) in [("--bot-input-ms", botInputMs ?? 0), ("--bot-audio-ms", botAudioMs)]
    where !(value.isFinite && (0...200).contains(value)) {
      throw ValidationError("\(name) must be 0…200, not \(value)")
    }
  }

  @MainActor
  func run() async throws {
    // The settings are read first: a file that does not decode stops the run before anything.
    let url = settings.map { URL(fileURLWithPath: $0) }
    var saved = AudioSettings()
    if let url, FileManager.default.fileExists(atPath: url.path) {
      do {
        saved = try JSONDecoder().decode(AudioSettings.self, from: Data(contentsOf: url))
      } catch {
        FileHandle.standardError.write(
          Data("foley-demo calibrate: \(url.path): \(error); left as it was\n".utf8))
        throw ExitCode(2)
      }
    }
    let windowed = !headless && DemoEnvironment.hasDisplay
    let context = try SDLContext(
      subsystems: [.video, .events, .audio], mode: windowed ? .windowed : .headless)
    defer { context.shutdown() }
    let canvas = try Canvas(
      title: "Foley calibrate", width: 400, height: 300, presentation: windowed ? .window : .offscreen)
    defer { canvas.close() }
    let engine = try AudioEngine.forTool("foley.calibrate")
    defer { engine.close() }
    guard windowed || botInputMs != nil else {
      FileHandle.standardError.write(
        Data("foley-demo calibrate: headless, nobody can tap; give --bot-input-ms\n".utf8))
      throw ExitCode(2)
    }
    say(engine.deviceLine)
    let rate = engine.deviceFormat.sampleRate
    var samples = [Float](repeating: 0, count: rate / 50)
    for index in samples.indices {
      samples[index] = Float(
        0.5 * sin(Double(index) * 2 * .pi * 1_000 / Double(rate)) * exp(-Double(index) / 200))
    }
    let click = try engine.sound(
      data: samples.withUnsafeBytes {
        WAVFile.data(
          format: RecordingFormat(sampleRate: rate, channels: 1, sampleFormat: .float32), samples: $0)
      }, name: "click.wav")
    let pump = EventPump(sceneHeight: 300, session: engine.session)
    if windowed { say("tap the space bar on each click") }
    let clicks = try pass(engine: engine, canvas: canvas, pump: pump, click: click)
    if windowed { say("now on each flash") }
    let flashes = try pass(engine: engine, canvas: canvas, pump: pump, click: nil)
    let offsets: LatencyOffsets
    do {
      offsets = try LatencyOffsets(tappingToClicks: clicks, tappingToFlashes: flashes)
    } catch {
      FileHandle.standardError.write(Data("foley-demo calibrate: \(error)\n".utf8))
      throw ExitCode(1)
    }
    let spread = max((try? clicks.offset().spread) ?? 0, (try? flashes.offset().spread) ?? 0)
    say(
      String(
        format: #"{"audioMs": %.1f, "inputMs": %.1f, "spreadMs": %.1f, "taps": %d}"#, offsets.audio * 1_000,
        offsets.input * 1_000, spread * 1_000, clicks.taps.count + flashes.taps.count))
    if let url {
      saved.latencyOffsets = offsets
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(saved).write(to: url, options: .atomic)
      say("kept in \(url.path)")
    }
  }

  /// One pass: a cue every half second (a click heard, or a flash drawn), the taps polled, and a
  /// bot's taps pushed when there is one.
  @MainActor
  private func pass(
    engine: AudioEngine, canvas: Canvas, pump: EventPump, click: Sound?
  ) throws -> LatencyCalibration {
    var calibration = LatencyCalibration()
    let frames = engine.frames(forSeconds: 0.5)
    var next = engine.audioFrame + frames
    var botTaps: [HostTime] = []
    var lastCue: HostTime?
    var cues = 0
    let scene = Scene(size: Size(width: 400, height: 300))
    // Until the last cue has had 0.4 s for its tap, and the bot has tapped.
    while cues < taps || !botTaps.isEmpty || (lastCue.map { HostTime.now - $0 < 0.4 } ?? true) {
      let now = HostTime.now
      // Each cue is scheduled a quarter second ahead, on its frame, and taken at its heard instant.
      if cues < taps, engine.audioFrame + frames / 2 >= next {
        guard let heard = engine.hostTime(whenHeard: engine.heardFrame(of: next)) else { break }
        if let click { engine.play(click, start: .frame(next)) }
        calibration.cue(at: heard)
        lastCue = heard
        if let input = botInputMs {
          botTaps.append(heard + (input + (click == nil ? 0 : botAudioMs)) / 1_000)
        }
        next = next + frames
        cues += 1
      }
      if let due = botTaps.first, now >= due {
        botTaps.removeFirst()
        try EventPump.push(.keyDown(.space, isRepeat: false))
      }
      for polled in pump.poll() {
        switch polled.event {
        case .keyDown(.space, isRepeat: false): calibration.tap(at: polled.time)
        case .quit, .keyDown(.escape, _): throw ExitCode(130)
        default: break
        }
      }
      // The flash: white for 80 ms from its cue's instant.
      let flashing = click == nil && lastCue.map { now >= $0 && now - $0 < 0.08 } == true
      scene.backgroundColor = flashing ? Color(red: 1, green: 1, blue: 1) : Color(red: 0, green: 0, blue: 0)
      canvas.draw(scene)
      Thread.sleep(forTimeInterval: 0.001)
    }
    return calibration
  }
}
