import ArgumentParser
import Foley
import Foundation
import Logging

/// `foley-demo play FILE... [--gap SECONDS]`: plays files through the engine, overlapping unless
/// a gap is given, and exits when every one has finished.
struct PlayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play", abstract: "Play sound files through Foley's engine.")

  @Argument(help: "Sound files (any format SDL_mixer decodes: WAV, OGG, MP3, FLAC, …).")
  var files: [String]

  @Option(help: "Seconds between the starts of consecutive files (0: all at once).")
  var gap: Double = 0

  @MainActor
  func run() async throws {
    var logger = Logger(label: "foley.play")
    logger.logLevel = .warning
    let engine = try AudioEngine(session: AudioSession(), logger: logger)
    defer { engine.close() }
    print("device: \(engine.deviceFormat)\(engine.isSilent ? " (silent: no audio device)" : "")")
    var voices: [(String, Voice)] = []
    var failures = 0
    for (index, file) in files.enumerated() {
      if index > 0 && gap > 0 { try await Task.sleep(for: .seconds(gap)) }
      do {
        let sound = try Sound(contentsOf: URL(fileURLWithPath: file), engine: engine)
        print("playing \(file) (\(String(format: "%.2f", sound.duration)) s)")
        voices.append((file, engine.play(sound)))
      } catch {
        failures += 1
        FileHandle.standardError.write(Data("foley-demo: \(file): \(error)\n".utf8))
      }
    }
    while voices.contains(where: { !$0.1.isFinished }) {
      try await Task.sleep(for: .milliseconds(20))
    }
    let stats = engine.statistics
    print("done: \(stats.started) played, \(failures) failed")
    if failures > 0 { throw ExitCode(1) }
  }
}
