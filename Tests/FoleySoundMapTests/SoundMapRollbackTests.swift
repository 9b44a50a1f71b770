import FoleyAudio
import FoleyAudioTesting
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// Sound map events posted through a rollback timeline: the same key makes the same random choice
/// however often it is re-simulated, a mispredicted post fades, and what the map cannot carry
/// through a timeline is refused by name.
@MainActor
@Suite("Sound map posts through a rollback timeline (embedded mixer)")
struct SoundMapRollbackTests {
  static let json = #"""
    {
      "version": 1,
      "events": {
        "hit": { "random": ["a.wav", "b.wav", "c.wav", "d.wav"], "pitchSemitones": [-2, 2] },
        "hum": { "play": "a.wav", "loop": true },
        "hum.stop": { "stop": "hum" },
        "late": { "play": "a.wav", "delay": 0.05 },
        "swell": { "play": "b.wav", "modulators": [{ "envelope": { "attack": 0.1 } }] }
      }
    }
    """#

  /// A run of `frames` simulation frames at 60 Hz, `step` called at the start of each.
  func run(
    seed: UInt64, frames: Int, _ step: (SoundMap, RollbackTimeline, Int) throws -> Void
  ) throws -> (left: Signal, map: SoundMap) {
    let folder = try makeToneFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let audio = try EmbeddedAudio(limiter: false)
    let map = try SoundMap(json: Data(Self.json.utf8), relativeTo: folder, engine: audio.engine, seed: seed)
    map.waitUntilReady()
    let timeline = try audio.engine.rollbackTimeline(framesPerSecond: 60, origin: AudioFrame(400))
    for frame in 0..<frames {
      try step(map, timeline, frame)
      map.waitUntilReady()
      audio.advance(frames: 800)
    }
    return (audio.left, map)
  }

  @Test(
    "a key makes the same choice in any run and any re-simulation; a mispredicted post leaves the others' choices alone"
  )
  func sameChoiceForTheSameKey() throws {
    var truthFiles: [String] = []
    let truth = try run(seed: 1, frames: 40) { map, timeline, frame in
      if frame == 2 || frame == 8 {
        let played = try map.post(
          "hit", key: RollbackKey(event: "hit", entity: 0, frame: frame), frame: frame, through: timeline)
        truthFiles += played.map(\.file)
      }
    }
    var heardFiles: [String] = []
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(seed: 99, frames: 40) { map, timeline, frame in
      if frame == 2 || frame == 5 {
        // Frame 5's hit is mispredicted: the remote player blocked.
        let played = try map.post(
          "hit", key: RollbackKey(event: "hit", entity: 0, frame: frame), frame: frame, through: timeline)
        if frame == 2 { heardFiles += played.map(\.file) }
      }
      if frame == 10 {
        try timeline.rollback(to: 3)
        for again in 3...10 where again == 8 {
          heardFiles += try map.post(
            "hit", key: RollbackKey(event: "hit", entity: 0, frame: again), frame: again, through: timeline
          ).map(\.file)
        }
        report = timeline.endResimulation()
      }
    }
    #expect(heardFiles == truthFiles, "the map's own seed (1, 99) does not change a key's choice")
    #expect(report.fadedOut == 1 && report.startedLate == 1, "\(report)")
    // Once the fade and the late start's de-click are over, the truth, sample for sample.
    let settled = 800 * 10 + 1_600
    let difference =
      zip(heard.left.samples[settled...], truth.left.samples[settled...]).map { abs($0 - $1) }.max() ?? 1
    #expect(difference < 1e-6)
    #expect(truth.left.peak(in: settled..<truth.left.count) > 0.05)
    // Keys do choose: twenty of them play more than one file.
    var files = Set<String>()
    _ = try run(seed: 1, frames: 1) { map, timeline, _ in
      for entity in 0..<20 {
        files.formUnion(
          try map.post(
            "hit", key: RollbackKey(event: "hit", entity: entity, frame: 0), frame: 0, through: timeline
          ).map(\.file))
      }
    }
    #expect(files.count > 1, "\(files)")
  }

  @Test("a re-posted key is kept, not doubled; a stop entry stops what its event posted through the timeline")
  func keptAndStopped() throws {
    var reports: [RollbackTimeline.Reconciliation] = []
    let heard = try run(seed: 1, frames: 40) { map, timeline, frame in
      if frame == 1 { try map.post("hum", key: "hum", frame: 1, through: timeline) }
      if frame == 6 {
        try timeline.rollback(to: 0)
        for _ in 0...6 { try map.post("hum", key: "hum", frame: 1, through: timeline) }
        reports.append(timeline.endResimulation())
      }
      if frame == 12 { try map.post("hum.stop", key: "stop", frame: 12, through: timeline) }
    }
    #expect(reports.first?.kept == 1 && reports.first?.startedLate == 0, "\(reports)")
    #expect(heard.left.peak(in: 800 * 11..<800 * 12) > 0.1)
    #expect(heard.left.peak(in: 800 * 12 + 400 + 1_600..<heard.left.count) == 0)
  }

  @Test("an event whose delay or modulators a timeline does not carry is refused by name, and nothing plays")
  func refusedByName() throws {
    var errors: [SoundMapRollbackError] = []
    let heard = try run(seed: 1, frames: 10) { map, timeline, frame in
      guard frame == 1 else { return }
      for event in ["late", "swell"] {
        do throws(SoundMapRollbackError) {
          try map.post(event, key: RollbackKey(event), frame: 1, through: timeline)
        } catch { errors.append(error) }
      }
    }
    #expect(
      errors == [
        .notSupported(event: "late", feature: "delay"), .notSupported(event: "swell", feature: "modulators"),
      ])
    #expect("\(errors[0])".contains("post it with post(_:) instead"))
    #expect(heard.left.peak == 0)
  }
}
