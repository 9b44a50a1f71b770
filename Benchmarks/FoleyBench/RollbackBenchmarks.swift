import Foley
import Foundation
import Logging

/// A rollback timeline through a simulated match on an embedded engine (mixed as it goes, so
/// voices end as they would): the game thread's cost per request against `engine.play` of the
/// same sounds in the same run, its cost per rollback (the re-simulation's requests and the
/// reconciliation), and whether what it holds stays flat from the first minute to the last.
enum RollbackBenchmarks {
  /// What one pass of the match measured.
  struct Pass {
    var requestNanoseconds: UInt64 = 0
    var requests = 0
    var rollbackNanoseconds: UInt64 = 0
    var rollbacks = 0
    var heldFirstMinute = 0
    var heldLastMinute = 0
    var residentFirstMinuteKiB = 0.0
    var residentEndKiB = 0.0
  }

  static func figures(_ short: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let minutes = quick ? 2 : 10
    let timeline = try pass(short, minutes: minutes, timeline: true, logger: logger)
    let plain = try pass(short, minutes: minutes, timeline: false, logger: logger)
    return [
      "rollback_request_cpu_us": Double(timeline.requestNanoseconds) / Double(max(1, timeline.requests))
        / 1_000,
      "rollback_plain_play_cpu_us": Double(plain.requestNanoseconds) / Double(max(1, plain.requests)) / 1_000,
      "rollback_cpu_us": Double(timeline.rollbackNanoseconds) / Double(max(1, timeline.rollbacks)) / 1_000,
      "rollback_count": timeline.rollbacks,
      "rollback_held_first_minute": timeline.heldFirstMinute,
      "rollback_held_last_minute": timeline.heldLastMinute,
      "rollback_resident_growth_kib": timeline.residentEndKiB - timeline.residentFirstMinuteKiB,
      "rollback_plain_resident_growth_kib": plain.residentEndKiB - plain.residentFirstMinuteKiB,
      "rollback_minutes": minutes,
    ]
  }

  /// Whether frame `frame` of player `player` asks for a sound (an eighth of the frames), and
  /// whether a re-simulation changes its mind (a fifth of those in the rolled-back frames).
  static func asks(_ frame: Int, _ player: Int, salt: UInt64 = 0) -> Bool {
    var hash = UInt64(frame) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(player) &* 0xBF58_476D_1CE4_E5B9 ^ salt
    hash ^= hash >> 31
    hash = hash &* 0x94D0_49BB_1331_11EB
    return hash >> 61 == 0
  }

  /// One pass: 60 frames a second for `minutes`, a rollback of 6 frames every 15; with `timeline`
  /// through a rollback timeline, else straight to `engine.play` (the same forward requests).
  static func pass(_ short: Data, minutes: Int, timeline useTimeline: Bool, logger: Logger) throws -> Pass {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession(), logger: logger)
    defer { engine.close() }
    let sound = try engine.sound(data: short, name: "short")
    let timeline = try engine.rollbackTimeline(framesPerSecond: 60)
    var result = Pass()
    let frames = minutes * 3_600
    for frame in 0..<frames {
      if useTimeline, frame % 15 == 14 {
        let from = frame - 6
        let start = Clocks.threadCPUNanoseconds
        try timeline.rollback(to: from)
        for again in from..<frame {
          for player in 0..<2 where asks(again, player, salt: again % 5 == 0 ? 1 : 0) {
            timeline.play(
              sound, key: RollbackKey(event: "hit", entity: player, frame: again), frame: again, volume: 0.2)
          }
        }
        timeline.endResimulation()
        result.rollbackNanoseconds += Clocks.threadCPUNanoseconds - start
        result.rollbacks += 1
      }
      // Only frames that ask are timed: the clock's own reads are not spread over the requests.
      let players = (0..<2).filter { asks(frame, $0) }
      if !players.isEmpty {
        let start = Clocks.threadCPUNanoseconds
        for player in players {
          if useTimeline {
            timeline.play(
              sound, key: RollbackKey(event: "hit", entity: player, frame: frame), frame: frame, volume: 0.2)
          } else {
            engine.play(sound, volume: 0.2, start: .frame(timeline.engineFrame(of: frame)))
          }
        }
        result.requestNanoseconds += Clocks.threadCPUNanoseconds - start
        result.requests += players.count
      }
      if useTimeline { timeline.confirm(through: frame - 8) }
      engine.waitUntilIdle()
      mixer.advance(frames: 800)
      _ = mixer.takeOutput()
      if frame < 3_600 { result.heldFirstMinute = max(result.heldFirstMinute, timeline.heldRequests) }
      if frame >= frames - 3_600 { result.heldLastMinute = max(result.heldLastMinute, timeline.heldRequests) }
      if frame == 3_599 { result.residentFirstMinuteKiB = Clocks.residentKiB }
    }
    result.residentEndKiB = Clocks.residentKiB
    return result
  }
}
