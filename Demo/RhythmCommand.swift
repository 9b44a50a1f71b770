import ArgumentParser
import Foley
import Foundation

/// `foley-demo rhythm [--headless] [--bpm N] [--beats N] [--settings FILE] [--bot ear]
/// [--pause-at SECONDS] [--report FILE]`: tap the space bar on the beat of a tempo-mapped click
/// track; each beat is judged in milliseconds from the instant SDL stamped the tap and the frame
/// the beat is heard on, with the player's calibration applied.
struct RhythmCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rhythm",
    abstract: "Tap on the beat: each beat judged perfect (±25 ms), good (±100 ms) or missed.",
    discussion: """
      The track is a click on every beat (the bar's first louder) with its tempo map. Taps are \
      judged from SDL's stamp against the frame each beat is heard on, less the latency offsets \
      in --settings (see `foley-demo calibrate`). A focus loss pauses the track and the judging; \
      both go on in sync after it. --bot ear plays by ear: headless it listens to the disk \
      driver's output file as it is written (the mix, as the device plays it) and taps on each \
      click it hears.
      """)

  @Flag(help: "No window (the offscreen canvas).")
  var headless = false

  @Option(help: "The track's tempo, beats per minute (40…240).")
  var bpm: Double = 120

  @Option(help: "Beats in the track (8…512).")
  var beats: Int = 32

  @Option(help: "The settings file whose latency offsets apply (see calibrate).")
  var settings: String?

  @Option(help: "Who taps: ear (a bot listening to the output).")
  var bot: BotKind?

  enum BotKind: String, ExpressibleByArgument { case ear }

  @Option(help: "Lose the window's focus this many seconds in, for a second (an SDL event).")
  var pauseAt: Double?

  @Option(help: "Write a JSON report of the judgements here.")
  var report: String?

  func validate() throws {
    guard bpm.isFinite, (40...240).contains(bpm) else {
      throw ValidationError("--bpm must be 40…240, not \(bpm)")
    }
    guard (8...512).contains(beats) else { throw ValidationError("--beats must be 8…512, not \(beats)") }
    if let pauseAt, !(pauseAt.isFinite && pauseAt >= 0) {
      throw ValidationError("--pause-at must be a number of seconds, not \(pauseAt)")
    }
  }

  @MainActor
  func run() async throws {
    var offsets = LatencyOffsets()
    if let settings {
      do {
        offsets = try JSONDecoder().decode(
          AudioSettings.self, from: Data(contentsOf: URL(fileURLWithPath: settings))
        )
        .latencyOffsets
      } catch {
        FileHandle.standardError.write(Data("foley-demo rhythm: \(settings): \(error)\n".utf8))
        throw ExitCode(2)
      }
    }
    let windowed = !headless && DemoEnvironment.hasDisplay
    guard windowed || bot != nil else {
      FileHandle.standardError.write(
        Data("foley-demo rhythm: headless, nobody can tap; give --bot ear\n".utf8))
      throw ExitCode(2)
    }
    // Headless, the ear bot hears the disk driver's file: the device's output as it is written.
    var listening: URL?
    if bot == .ear, !windowed {
      if getenv("SDL_AUDIODRIVER").map({ String(cString: $0) }) != "disk" {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
          "foley-rhythm-\(getpid()).raw")
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", file.path, 1)
      }
      listening = URL(
        fileURLWithPath: getenv("SDL_DISKAUDIOFILE").map { String(cString: $0) } ?? "sdlaudio.raw")
    }
    defer {
      if let listening, listening.lastPathComponent.hasPrefix("foley-rhythm-") {
        try? FileManager.default.removeItem(at: listening)
      }
    }
    let context = try SDLContext(
      subsystems: [.video, .events, .audio], mode: windowed ? .windowed : .headless)
    defer { context.shutdown() }
    let canvas = try Canvas(
      title: "Foley rhythm", width: 400, height: 300, presentation: windowed ? .window : .offscreen)
    defer { canvas.close() }
    let engine = try AudioEngine.forTool("foley.rhythm")
    defer { engine.close() }
    say(engine.deviceLine)
    var applied = engine.settings
    applied.latencyOffsets = offsets
    engine.apply(applied)
    let rate = engine.deviceFormat.sampleRate
    var track = Track(data: Self.clickTrack(bpm: bpm, beats: beats, rate: rate), name: "clicks.wav")
    track.tempo = try TempoMap(bpm: bpm)
    let pump = EventPump(sceneHeight: 300, session: engine.session)
    let judge = RhythmJudge(rate: Double(rate))
    let music = engine.music
    music.observe { event in
      if case .beat(let beat) = event { judge.beat(heardOn: engine.heardFrame(of: beat.frame)) }
    }
    let ear = try listening.map { try EarTapper(file: $0, format: engine.deviceFormat) }
    if windowed { say("tap the space bar on each click") }
    music.play(track)
    let started = HostTime.now
    let length = Double(beats) * 60 / bpm
    var pausedFor = 0.0
    var paused: HostTime?
    var pauseDone = pauseAt == nil
    let scene = Scene(size: Size(width: 400, height: 300))
    while HostTime.now - started < length + pausedFor + 1.5 {
      let now = HostTime.now
      engine.session.mailbox.drain()
      if !pauseDone, let pauseAt, paused == nil, now - started >= pauseAt {
        try EventPump.push(.windowFocusLost)
        paused = now
        say("paused at \(String(format: "%.2f", now - started)) s")
      }
      if let since = paused, now - since >= 1 {
        try EventPump.push(.windowFocusGained)
        pausedFor += now - since
        paused = nil
        pauseDone = true
        say("resumed")
      }
      if ear?.listen(now: now) == true {
        try EventPump.push(.keyDown(.space, isRepeat: false))
      }
      for polled in pump.poll() {
        switch polled.event {
        case .keyDown(.space, isRepeat: false):
          if let heard = engine.heardFrame(at: polled.time) { judge.tap(heard: heard) }
        case .quit, .keyDown(.escape, _): throw ExitCode(130)
        default: break
        }
      }
      if let heardNow = engine.heardFrame(at: now) {
        for line in judge.settle(before: heardNow) { say(line) }
      }
      let mood = judge.lastMood
      scene.backgroundColor =
        switch mood {
        case .perfect: Color(red: 0.1, green: 0.5, blue: 0.2)
        case .good: Color(red: 0.5, green: 0.45, blue: 0.1)
        case .miss: Color(red: 0.5, green: 0.1, blue: 0.1)
        case nil: Color(red: 0.08, green: 0.08, blue: 0.12)
        }
      canvas.draw(scene)
      usleep(500)
    }
    music.stop()
    for line in judge.settle(before: AudioFrame(Int.max / 2)) { say(line) }
    let summary = judge.summary
    say(
      "perfect \(summary.perfect), good \(summary.good), missed \(summary.miss) of \(summary.total); stray taps \(summary.stray)"
    )
    if let report {
      let object: [String: Any] = [
        "perfect": summary.perfect, "good": summary.good, "miss": summary.miss, "total": summary.total,
        "stray": summary.stray, "offsetsMs": summary.offsetsMs, "paused": pauseAt != nil,
      ]
      try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        .write(to: URL(fileURLWithPath: report), options: .atomic)
    }
  }

  /// A click on every beat (a 1 kHz ping, 20 ms; the bar's first beat louder), mono float WAV.
  static func clickTrack(bpm: Double, beats: Int, rate: Int) -> Data {
    let beatFrames = Double(rate) * 60 / bpm
    // The last beat's click and a little less than a beat of quiet: no beat after it.
    var samples = [Float](repeating: 0, count: Int(beatFrames * (Double(beats) - 0.5)))
    for beat in 0..<beats {
      let start = Int((Double(beat) * beatFrames).rounded())
      let level = beat % 4 == 0 ? 0.6 : 0.4
      for index in 0..<(rate / 50) where start + index < samples.count {
        let phase = Double(index) * 2 * .pi * 1_000 / Double(rate)
        samples[start + index] = Float(level * sin(phase) * exp(-Double(index) / Double(rate / 200)))
      }
    }
    return samples.withUnsafeBytes {
      WAVFile.data(
        format: RecordingFormat(sampleRate: rate, channels: 1, sampleFormat: .float32), samples: $0)
    }
  }
}
