import ArgumentParser
import Dispatch
import Foley
import Foundation
import Logging
import Synchronization

/// `foley-demo record OUT.wav --seconds N`: records the microphone with a live level meter.
struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record a capture device to a WAV file, with a live level meter. Ctrl-C stops cleanly.")

  @Argument(help: "The WAV file to write (never replaced unless --overwrite).")
  var output: String

  @Option(help: "Seconds to record.")
  var seconds: Double = 5

  @Option(help: "A capture device name (see --list-devices); the default device otherwise.")
  var device: String?

  @Option(help: "Sample rate in Hz.")
  var rate: Int = 48_000

  @Option(help: "Channels (1 mono, 2 stereo).")
  var channels: Int = 1

  @Flag(help: "Record 32-bit float samples instead of 16-bit integers.")
  var float = false

  @Flag(help: "Replace the file if it exists.")
  var overwrite = false

  @Flag(help: "List the capture devices and exit.")
  var listDevices = false

  func run() throws {
    if listDevices {
      let devices = AudioRecorder.captureDevices()
      print(devices.isEmpty ? "no capture devices" : devices.joined(separator: "\n"))
      return
    }
    var logger = Logger(label: "foley.record")
    logger.logLevel = .warning
    let format = RecordingFormat(
      sampleRate: rate, channels: channels, sampleFormat: float ? .float32 : .signed16)
    let recorder: AudioRecorder
    do {
      recorder = try AudioRecorder(
        url: URL(fileURLWithPath: output), format: format, deviceName: device,
        options: overwrite ? [.overwrite] : [], session: nil, logger: logger)
      try recorder.record(forDuration: seconds)
    } catch {
      FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
      throw ExitCode(1)
    }
    // Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) stop the take cleanly: the file is
    // finalised before the process exits. (SDL would turn SIGINT and SIGTERM into a quit event
    // that nobody reads here.)
    let interrupted = InterruptFlag()
    let sources = [SIGINT, SIGTERM, SIGHUP].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { interrupted.set() }
      source.resume()
      return source
    }
    defer { sources.forEach { $0.cancel() } }
    print("recording \(output) (\(recorder.format)) — Ctrl-C to stop")
    let isTerminal = isatty(STDOUT_FILENO) != 0
    var lastLine = Date.distantPast
    while recorder.state != .stopped && !interrupted.isSet {
      usleep(50_000)
      if isTerminal || Date().timeIntervalSince(lastLine) >= 1 {
        lastLine = Date()
        let line = meterLine(recorder)
        FileHandle.standardOutput.write(Data((isTerminal ? "\r\(line)" : "\(line)\n").utf8))
      }
    }
    let summary = recorder.stop()
    if isTerminal { print() }
    let info = try? WAVFile.info(at: summary.url)
    print(
      String(
        format: "wrote %@: %.3f s, %@", output, info?.duration ?? summary.duration, summary.format.description
      ))
    if summary.isDigitalSilence {
      FileHandle.standardError.write(
        Data(
          "foley-demo: the take is pure digital silence: is there a microphone behind the capture device?\n"
            .utf8))
    }
    if let error = summary.error {
      FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
      throw ExitCode(1)
    }
  }

  private func meterLine(_ recorder: AudioRecorder) -> String {
    let level = recorder.averagePower(forChannel: 0)
    let peak = recorder.peakPower(forChannel: 0)
    let width = 30
    let filled = Int((max(-60, level) + 60) / 60 * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
    return String(format: "[%@] %6.1f dBFS avg %6.1f peak  %6.2f s", bar, level, peak, recorder.currentTime)
  }
}

/// A flag set from the signal source's queue and read by the main loop.
final class InterruptFlag: Sendable {
  private let value = Atomic<Bool>(false)
  func set() { value.store(true, ordering: .releasing) }
  var isSet: Bool { value.load(ordering: .acquiring) }
}
