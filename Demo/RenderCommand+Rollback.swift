import ArgumentParser
import Foley
import FoleyOffline
import Foundation
import Logging

extension RenderCommand {
  /// Renders the rollback match: what its player hears (and with `--truth`, the confirmed
  /// timeline alone), printing a JSON line per rollback.
  @MainActor
  func runRollbackTest(seed: UInt64) throws {
    let output = URL(fileURLWithPath: files.last!)
    do {
      try DemoEnvironment.checkWritable(output.path, what: "the output")
      try DemoEnvironment.checkWritable(truth, what: "--truth")
    } catch {
      FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
      throw ExitCode(2)
    }
    let match = RollbackMatch(seed: seed, frames: Int(((seconds ?? 30) * 60).rounded()))
    let heard = try render(match, truth: false, to: output)
    print(
      "foley-demo: rendered the match as heard to \(output.path): \(heard.rollbacks) rollbacks, "
        + "\(heard.wrong) of \(heard.predicted) predicted frames guessed wrong")
    print("foley-demo: sha256 \(heard.sha256)")
    if let truth {
      let confirmed = try render(match, truth: true, to: URL(fileURLWithPath: truth))
      print("foley-demo: rendered the confirmed timeline to \(truth)")
      print("foley-demo: sha256 \(confirmed.sha256)")
    }
  }

  /// One render of `match`; the heard one prints its rollbacks as they happen.
  @MainActor
  private func render(
    _ match: RollbackMatch, truth: Bool, to url: URL
  ) throws -> (rollbacks: Int, predicted: Int, wrong: Int, sha256: String) {
    var logger = Logger(label: "foley.render")
    logger.logLevel = .warning
    // No limiter: the match keeps its own headroom, and what is compared is the mix itself.
    var configuration = AudioConfiguration()
    configuration.limiter = nil
    let renderer = try OfflineRenderer(sampleRate: rate, configuration: configuration, logger: logger)
    defer { renderer.close() }
    let engine = renderer.engine
    var sounds: [String: Sound] = [:]
    for (name, data) in RollbackMatch.sounds(rate: rate) {
      sounds[name] = try engine.sound(data: data, name: name)
    }
    let timeline = try engine.rollbackTimeline(framesPerSecond: 60)
    var netcode = RollbackMatch.Netcode(frames: match.frames)
    var frame = 0
    var rollbacks = 0
    var failure: (any Error)?
    let result = try renderer.render(seconds: Double(match.frames) / 60, step: 1.0 / 60, to: url) { _ in
      guard frame < match.frames, failure == nil else { return }
      do {
        try match.simulate(
          frame: frame, truth: truth, netcode: &netcode,
          play: { cue in
            guard let sound = sounds[cue.sound] else { return }
            timeline.play(sound, key: cue.key, frame: cue.frame, volume: cue.volume, pan: cue.pan)
          },
          rollback: { from in try timeline.rollback(to: from) },
          resimulated: { from in
            let report = timeline.endResimulation()
            rollbacks += 1
            print(
              #"{"rollback": \#(rollbacks), "atFrame": \#(frame), "toFrame": \#(from), "kept": \#(report.kept), "#
                + #""fadedOut": \#(report.fadedOut), "startedLate": \#(report.startedLate), "#
                + #""skipped": \#(report.skipped)}"#)
          })
      } catch {
        failure = error
      }
      timeline.confirm(through: netcode.confirmed)
      frame += 1
    }
    if let failure { throw failure }
    return (rollbacks, netcode.predicted, netcode.wrong, result.sha256)
  }
}
