import Foley
import Foundation

/// R records the microphone to a numbered take that never overwrites, P plays the last take (and
/// a won round plays it back as the taunt); a recording that cannot start says so on screen.
extension DemoGame {
  /// Starts a recording (to `file`, or a new numbered file that never overwrites) or stops the
  /// one running.
  func toggleRecording(to file: String?) {
    if recorder != nil {
      stopRecording()
      return
    }
    var url: URL
    if let file {
      url = URL(fileURLWithPath: file)
    } else {
      try? FileManager.default.createDirectory(at: recordingsFolder, withIntermediateDirectories: true)
      var number = 1
      repeat {
        url = recordingsFolder.appendingPathComponent(String(format: "take-%03d.wav", number))
        number += 1
      } while FileManager.default.fileExists(atPath: url.path) && number < 10_000
    }
    do {
      let recorder = try AudioRecorder(url: url, session: session, logger: logger)
      try recorder.record()
      recordingStartedAt = ContinuousClock.now
      self.recorder = recorder
    } catch {
      report.errors.append("recording: \(error)")
      // Said where the player looks, in a player's words, not only in the report at exit.
      showNotice(Self.recordingProblem(error))
    }
  }

  /// Why R did not record, as a player would say it.
  static func recordingProblem(_ error: any Error) -> String {
    switch error as? RecordingError {
    case .noCaptureDevice, .deviceNotFound: "No microphone found: recording is off"
    case .cannotCreate, .writeFailed: "The recordings folder cannot be written: recording is off"
    case .unsupportedFormat: "The microphone does not offer a format Foley records: recording is off"
    default: "Recording could not start: see the report"
    }
  }

  /// A line under the HUD for four seconds (a recording that cannot start, say).
  func showNotice(_ text: String) {
    notice = (text.uppercased(), report.frames + 240)
  }

  func stopRecording() {
    guard let recorder else { return }
    let summary = recorder.stop()
    self.recorder = nil
    lastRecording = summary.url
    let wall = recordingStartedAt.map { ContinuousClock.now - $0 } ?? .zero
    report.recordings.append(
      DemoReport.Recording(
        file: summary.url.path, duration: summary.duration,
        wallDuration: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18))
    if let error = summary.error { report.errors.append("recording: \(error)") }
    if summary.isDigitalSilence {
      report.errors.append(
        "recording: \(summary.url.lastPathComponent) is pure digital silence (no microphone?)")
    }
  }

  func playLastRecording() {
    guard let lastRecording else { return }
    do {
      engine.play(try Sound(contentsOf: lastRecording, engine: engine))
    } catch {
      report.errors.append("\(error)")
    }
  }
}
