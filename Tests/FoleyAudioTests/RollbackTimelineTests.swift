import FoleyAudio
import FoleyTestSupport
import Foundation
import Testing

/// The rollback timeline's reconciliation, rule by rule, on the embedded mixer: each run against
/// the truth (the same requests with no misprediction), to the sample.
@MainActor
@Suite("A rollback timeline reconciles a re-simulation (embedded mixer)")
struct RollbackTimelineTests {
  /// A second of a ramp from 0.1 to 0.9: every sample says where in the sound it is.
  static let ramp = makeFloatWAV(
    samples: (0..<48_000).map { 0.1 + 0.8 * Float($0) / 48_000 }, sampleRate: 48_000, channels: 1)
  /// 50 ms of a constant level.
  static let blip = makeFloatWAV(
    samples: Array(repeating: 0.5, count: 2_400), sampleRate: 48_000, channels: 1)

  /// Simulation frame `f` sounds on 400 + 800 f: half a frame after the step that asks for it.
  static let origin = AudioFrame(400)
  static func onset(_ frame: Int) -> Int { 400 + 800 * frame }

  /// A run of `frames` simulation frames at 60 Hz: `step` is called at the start of each, with the
  /// mix exactly on that frame's first sample.
  func run(
    frames: Int, settings: RollbackTimeline.Settings = .init(),
    _ step: (RollbackTimeline, Sound, Sound, Int) throws -> Void
  ) throws -> (left: Signal, timeline: RollbackTimeline) {
    let audio = try EmbeddedAudio(limiter: false)
    let ramp = try audio.engine.sound(data: Self.ramp, name: "ramp")
    let blip = try audio.engine.sound(data: Self.blip, name: "blip")
    let timeline = try audio.engine.rollbackTimeline(
      framesPerSecond: 60, origin: Self.origin, settings: settings)
    for frame in 0..<frames {
      try step(timeline, ramp, blip, frame)
      audio.advance(frames: 800)
    }
    return (audio.left, timeline)
  }

  /// The largest difference between two outputs from `start` on.
  func difference(_ heard: Signal, _ truth: Signal, from start: Int) -> Float {
    zip(heard.samples[start...], truth.samples[start...]).map { abs($0 - $1) }.max() ?? 0
  }

  @Test("a forward request starts on its frame's first sample")
  func forwardOnItsFrame() throws {
    let (left, _) = try run(frames: 12) { timeline, ramp, _, frame in
      if frame == 3 { timeline.play(ramp, key: "a", frame: 6) }
    }
    let first = try #require(left.audibleRange(threshold: 1e-4)?.lowerBound)
    #expect(first == Self.onset(6))
  }

  @Test("a request the re-simulation asks for again is kept: no restart, no double")
  func keptWhenAskedAgain() throws {
    let truth = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
    }
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
      if frame == 10 {
        try timeline.rollback(to: 5)
        for _ in 5...10 { timeline.play(ramp, key: "a", frame: 6) }
        report = timeline.endResimulation()
      }
      if frame == 12 { timeline.play(ramp, key: "a", frame: 6) }  // a duplicate forward request
    }
    #expect(report.kept == 1 && report.startedLate == 0 && report.fadedOut == 0, "\(report)")
    #expect(heard.left.samples == truth.left.samples)
  }

  @Test("a sound the new timeline does not ask for fades out over the fade, and is gone after it")
  func mispredictedFadesOut() throws {
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
      if frame == 10 {
        try timeline.rollback(to: 6)
        report = timeline.endResimulation()
      }
    }
    #expect(report.fadedOut == 1, "\(report)")
    let rollback = 800 * 10
    // Still sounding at the rollback, falling smoothly over the 30 ms fade, silent after.
    #expect(heard.left.peak(in: rollback - 100..<rollback) > 0.1)
    #expect(heard.left.largestStep(in: rollback - 10..<rollback + 2_000) < 0.01)
    #expect(heard.left.peak(in: rollback + 1_600..<heard.left.count) == 0)
  }

  @Test("a sound marked to ring rings on when the new timeline does not ask for it")
  func mispredictedRings() throws {
    let truth = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6, ifMispredicted: .ring) }
    }
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6, ifMispredicted: .ring) }
      if frame == 10 {
        try timeline.rollback(to: 6)
        report = timeline.endResimulation()
      }
    }
    #expect(report.letRing == 1 && report.fadedOut == 0, "\(report)")
    #expect(heard.left.samples == truth.left.samples)
  }

  @Test("a request from the past joins at the sample it would have reached, after a click-free ramp")
  func lateJoinsAtItsSample() throws {
    let truth = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "b", frame: 6) }
    }
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 10 {
        try timeline.rollback(to: 5)
        timeline.play(ramp, key: "b", frame: 6)
        report = timeline.endResimulation()
      }
    }
    #expect(report.startedLate == 1, "\(report)")
    let join = 800 * 10
    #expect(heard.left.peak(in: 0..<join) == 0)
    // From 2 ms after the join on, the very samples of the truth.
    #expect(difference(heard.left, truth.left, from: join + 96) < 1e-6)
    // The ramp in: no step larger than the truth's own.
    #expect(heard.left.largestStep(in: join - 1..<join + 200) <= truth.left.largestStep + 1e-6)
  }

  @Test("a late request marked not worth starting late, or already over, does not start")
  func lateSkipped() throws {
    var reports: [RollbackTimeline.Reconciliation] = []
    let heard = try run(frames: 30) { timeline, ramp, blip, frame in
      if frame == 10 {
        try timeline.rollback(to: 5)
        timeline.play(ramp, key: "skip", frame: 6, late: .skip)
        timeline.play(blip, key: "over", frame: 6)  // 50 ms long, due 67 ms ago
        reports.append(timeline.endResimulation())
      }
    }
    #expect(reports.first?.skipped == 2, "\(reports)")
    #expect(heard.left.peak == 0)
  }

  @Test("a request on the same key with another sound or frame replaces the mispredicted one")
  func replacedWhenDifferent() throws {
    let truth = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 7 { timeline.play(ramp, key: "hit", frame: 7) }
    }
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(frames: 40) { timeline, ramp, blip, frame in
      if frame == 6 { timeline.play(blip, key: "hit", frame: 6) }
      if frame == 10 {
        try timeline.rollback(to: 6)
        timeline.play(ramp, key: "hit", frame: 7)
        report = timeline.endResimulation()
      }
    }
    #expect(report.fadedOut == 1 && report.startedLate == 1, "\(report)")
    // Once the fade and the de-click are over, the truth.
    #expect(difference(heard.left, truth.left, from: 800 * 10 + 1_600) < 1e-6)
  }

  @Test("a kept request's level follows the new timeline from the next buffer")
  func keptLevelFollows() throws {
    let heard = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6, volume: 1) }
      if frame == 10 {
        try timeline.rollback(to: 6)
        timeline.play(ramp, key: "a", frame: 6, volume: 0.5)
        timeline.endResimulation()
      }
    }
    let truth = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6, volume: 0.5) }
    }
    #expect(heard.left.samples[Self.onset(9)] > truth.left.samples[Self.onset(9)] * 1.5)
    #expect(difference(heard.left, truth.left, from: 800 * 11) < 1e-6)
  }

  @Test("a stop fades its sound from the stop frame's first sample, and the sound is silent after the fade")
  func stopFadesFromItsFrame() throws {
    let truth = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
    }
    let heard = try run(frames: 30) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
      if frame == 9 { timeline.stop(key: "a", frame: 9) }
    }
    let stop = Self.onset(9)
    let firstDifference = heard.left.samples.indices.first {
      heard.left.samples[$0] != truth.left.samples[$0]
    }
    #expect(firstDifference == stop + 1, "from \(firstDifference ?? -1), the stop on \(stop)")
    #expect(heard.left.samples[stop + 720] < truth.left.samples[stop + 720] * 0.75)
    #expect(heard.left.largestStep(in: stop - 10..<stop + 2_000) <= truth.left.largestStep + 1e-6)
    #expect(heard.left.peak(in: stop + 1_440..<heard.left.count) == 0)
  }

  @Test(
    "a stop the re-simulation does not ask for is taken back: the sound returns at the sample it has reached")
  func stopTakenBack() throws {
    let truth = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
    }
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
      if frame == 9 { timeline.stop(key: "a", frame: 9) }
      if frame == 12 {
        try timeline.rollback(to: 8)
        report = timeline.endResimulation()
      }
    }
    #expect(report.unstopped == 1 && report.kept == 0 && report.startedLate == 0, "\(report)")
    let back = 800 * 12
    #expect(heard.left.peak(in: Self.onset(9) + 1_440..<back) == 0)
    // Silent beneath its fade, the voice went virtual; it comes back on the next buffer at the
    // sample it has reached, ramped in, and is the truth from there on.
    #expect(difference(heard.left, truth.left, from: back + 1_600) < 1e-6)
    #expect(heard.left.largestStep(in: back - 1..<back + 2_000) <= truth.left.largestStep + 1e-6)
  }

  @Test("a stop only the re-simulation asks for, or asks for on another frame, is heard as the truth has it")
  func stopFromTheResimulation() throws {
    let truth = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
      if frame == 9 { timeline.stop(key: "a", frame: 9) }
      if frame == 5 { timeline.play(ramp, key: "b", frame: 5, volume: 0.5) }
      if frame == 10 { timeline.stop(key: "b", frame: 10) }
    }
    var report = RollbackTimeline.Reconciliation()
    let heard = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 6 { timeline.play(ramp, key: "a", frame: 6) }
      if frame == 5 { timeline.play(ramp, key: "b", frame: 5, volume: 0.5) }
      if frame == 8 { timeline.stop(key: "b", frame: 8) }
      if frame == 12 {
        try timeline.rollback(to: 7)
        timeline.play(ramp, key: "a", frame: 6)  // before the rollback: left as it is
        timeline.stop(key: "a", frame: 9)
        timeline.stop(key: "b", frame: 10)
        report = timeline.endResimulation()
      }
    }
    #expect(report.stopped == 2 && report.unstopped == 0, "\(report)")
    // Both silent once the fades from the rollback are over, as in the truth.
    #expect(difference(heard.left, truth.left, from: 800 * 12 + 1_440) == 0)
    #expect(truth.left.peak(in: Self.onset(10) + 1_440..<truth.left.count) == 0)
    #expect(heard.left.peak(in: Self.onset(8) - 100..<Self.onset(8)) > 0.1)
  }

  @Test("a confirmed stop lets its voice go, and the timeline forgets it")
  func confirmedStopReleases() throws {
    var voice: Voice?
    var held: [Int] = []
    _ = try run(frames: 60) { timeline, ramp, _, frame in
      if frame == 6 {
        timeline.play(ramp, key: "a", frame: 6, loops: -1)
        voice = timeline.voice(for: "a")
      }
      if frame == 9 { timeline.stop(key: "a", frame: 9) }
      if frame >= 4 { timeline.confirm(through: frame - 4) }
      if frame == 12 || frame == 40 { held.append(timeline.heldRequests) }
    }
    #expect(held == [1, 0], "\(held)")
    #expect(voice?.isFinished == true)
  }

  @Test("a mispredicted sound's caption is withdrawn at once and uncounted; a kept one's stays")
  func mispredictedCaptionWithdrawn() throws {
    let audio = try EmbeddedAudio(limiter: false)
    var settings = SoundSettings()
    settings.caption = Caption("Punch")
    let punch = try Sound(
      data: makeToneWAV(frequency: 220, duration: 0.5), name: "punch.wav", engine: audio.engine,
      settings: settings)
    let timeline = try audio.engine.rollbackTimeline(framesPerSecond: 60, origin: Self.origin)
    var events: [CaptionEvent] = []
    audio.engine.captions.observe { events.append($0) }
    func frame() {
      audio.advance(frames: 800)
      audio.engine.captions.update()
    }
    // Two punches, one caption counted ×2; the re-simulation keeps the first only.
    timeline.play(punch, key: "first", frame: 1)
    timeline.play(punch, key: "second", frame: 2)
    for _ in 0..<4 { frame() }
    #expect(events.last?.phase != .ended && events.last?.count == 2, "\(events)")
    try timeline.rollback(to: 2)
    #expect(timeline.endResimulation().fadedOut == 1)
    frame()
    #expect(events.last?.phase == .changed && events.last?.count == 1, "\(events)")
    // Then the first is mispredicted too: the caption ends now, not a hold time after.
    try timeline.rollback(to: 1)
    timeline.endResimulation()
    frame()
    #expect(events.last?.phase == .ended, "\(events)")
    #expect(audio.engine.captions.holdTime == 1)
  }

  @Test("a second rollback before the first ends goes back to the earlier frame")
  func nestedRollback() throws {
    let truth = try run(frames: 40) { timeline, ramp, _, frame in
      if frame == 7 { timeline.play(ramp, key: "b", frame: 7) }
    }
    let heard = try run(frames: 40) { timeline, ramp, blip, frame in
      if frame == 5 { timeline.play(blip, key: "a", frame: 5) }
      if frame == 10 {
        try timeline.rollback(to: 8)
        timeline.play(blip, key: "c", frame: 9)
        try timeline.rollback(to: 4)  // a later input, further back: the first re-simulation is redone
        timeline.play(ramp, key: "b", frame: 7)
        timeline.endResimulation()
      }
    }
    #expect(difference(heard.left, truth.left, from: 800 * 10 + 1_600) < 1e-6)
  }

  @Test("confirmed frames are final, and the timeline holds only the unconfirmed window")
  func confirmationBoundsMemory() throws {
    var errors: [RollbackError] = []
    var held: [Int] = []
    _ = try run(frames: 600) { timeline, _, blip, frame in
      timeline.play(blip, key: RollbackKey(event: "step", entity: 0, frame: frame), frame: frame)
      if frame >= 8 { timeline.confirm(through: frame - 8) }
      if frame == 100 {
        do { try timeline.rollback(to: 90) } catch let error as RollbackError { errors.append(error) }
      }
      if frame % 100 == 99 { held.append(timeline.heldRequests) }
    }
    #expect(errors == [.confirmed(frame: 90, confirmedThrough: 92)])
    // Eight unconfirmed frames and the few blips still sounding: the same at every sample.
    #expect(held.allSatisfy { $0 <= 12 }, "\(held)")
    #expect(Set(held).count == 1, "\(held)")
  }

  @Test("a timeline that is never confirmed still holds only its window")
  func windowBoundsMemory() throws {
    var held: [Int] = []
    _ = try run(frames: 400, settings: .init(window: 30)) { timeline, _, blip, frame in
      timeline.play(blip, key: RollbackKey(event: "step", entity: 0, frame: frame), frame: frame)
      if frame % 100 == 99 { held.append(timeline.heldRequests) }
    }
    #expect(held.allSatisfy { $0 <= 31 }, "\(held)")
  }

  @Test(
    "with a lead, sounds stay on time and that far ahead as the device's clock drifts 1 % either way from the game's",
    arguments: [808, 792])
  func leadFollowsDrift(framesPerStep: Int) throws {
    // 50 ms rising from 0.1: a sound that starts on time begins at 0.1, one that joins late
    // begins inside its de-click ramp.
    let rise = makeFloatWAV(
      samples: (0..<2_400).map { 0.1 + 0.8 * Float($0) / 2_400 }, sampleRate: 48_000, channels: 1)
    for lead in [nil, 0.02] as [Double?] {
      let audio = try EmbeddedAudio(limiter: false)
      let sound = try audio.engine.sound(data: rise, name: "rise")
      let timeline = try audio.engine.rollbackTimeline(
        framesPerSecond: 60, origin: AudioFrame(960), settings: .init(lead: lead))
      var asked: [Int] = []
      for frame in 0..<600 {
        timeline.advance(to: frame)
        if frame % 30 == 0 {
          asked.append(audio.frames)
          timeline.play(sound, key: RollbackKey(event: "rise", entity: 0, frame: frame), frame: frame)
        }
        audio.advance(frames: framesPerStep)
      }
      let samples = audio.left.samples
      var onsets: [Int] = []
      var index = 0
      while let onset = (index..<samples.count).first(where: { samples[$0] != 0 }) {
        onsets.append(onset)
        index = (onset..<samples.count).first { samples[$0] == 0 } ?? samples.count
      }
      let delays = zip(onsets, asked).map { $0 - $1 }
      let onTime = onsets.filter { abs(samples[$0] - 0.1) < 1e-4 }.count
      if lead == nil {
        // A fixed origin: the device ahead, the later sounds join late; behind, they come later
        // and later.
        if framesPerStep > 800 {
          #expect(onTime < onsets.count - 5, "\(onTime) of \(onsets.count) on time")
        } else {
          #expect((delays.last ?? 0) > 4_000, "\(delays)")
        }
      } else {
        #expect(onsets.count == 20 && onTime == 20, "\(onTime) of \(onsets.count) on time")
        #expect(delays.allSatisfy { (960 - 512...960 + 512).contains($0) }, "\(delays)")
        #expect(timeline.originMoved != 0)
      }
    }
  }

  @Test("a rate outside 1…1000 is refused")
  func badRate() throws {
    let audio = try EmbeddedAudio(limiter: false)
    #expect(throws: RollbackError.invalidRate(0)) { try audio.engine.rollbackTimeline(framesPerSecond: 0) }
    #expect(throws: RollbackError.invalidRate(5_000)) {
      try audio.engine.rollbackTimeline(framesPerSecond: 5_000)
    }
  }
}
