import FoleyAudio
import FoleyOffline
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Capture and replay: what a live engine on SDL's disk driver was told, captured with the frames
/// it took effect on, replays offline to the samples the device wrote.
@MainActor
@Suite("Capture and replay", .serialized)
struct CaptureReplayTests {
  /// A folder of tones of 0.4 s: different pitches, so that a play on the wrong sound shows.
  static func soundFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-capture-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, frequency) in [("low.wav", 220.0), ("mid.wav", 330.0), ("high.wav", 660.0)] {
      try makeToneWAV(frequency: frequency, duration: 0.4, amplitude: 0.3).write(
        to: folder.appendingPathComponent(name))
    }
    return folder
  }

  /// A live run on the disk driver, captured: plays (looped, panned, faded in, scheduled), volume
  /// and pan tweens, a pause and resume, a bus and the master moved, the window's focus lost and found,
  /// stops with fades. Returns the device's output and the capture's summary.
  static func liveRun(folder: URL, capture url: URL) throws -> (output: [Float], summary: CaptureSummary) {
    var summary: CaptureSummary?
    let session = AudioSession()
    let output = try captureDiskOutput(session: session) { engine, output in
      let low = try Sound(contentsOf: folder.appendingPathComponent("low.wav"), engine: engine)
      var quiet = SoundSettings()
      quiet.volume = 0.6
      quiet.category = .ambience
      let mid = try Sound(
        contentsOf: folder.appendingPathComponent("mid.wav"), engine: engine, settings: quiet)
      let high = try Sound(contentsOf: folder.appendingPathComponent("high.wav"), engine: engine)
      output.waitForMore(seconds: 0.05)
      try engine.startCapture(to: url, replacing: true)
      let drone = engine.play(low, volume: 0.5, loops: -1)
      output.waitForMore(seconds: 0.1)
      let pad = engine.play(mid, pan: -0.5, loops: -1, fadeIn: Tween(duration: 0.3, easing: .easeOut))
      output.waitForMore(seconds: 0.1)
      drone.setVolume(0.2, tween: Tween(duration: 0.25, easing: .easeInEaseOut))
      drone.setPan(-0.8, tween: Tween(duration: 0.6, easing: .smoothstep))
      let soon = engine.audioFrame + engine.frames(forSeconds: 0.15)
      engine.play(high, volume: 0.4, pan: 0.7, start: .frame(soon))
      output.waitForMore(seconds: 0.2)
      engine.bus(.ambience).setVolume(0.5, tween: Tween(duration: 0.2))
      pad.pause()
      output.waitForMore(seconds: 0.1)
      pad.resume()
      pad.pan = 0.3
      engine.setMasterVolume(0.8, tween: 0.1)
      output.waitForMore(seconds: 0.15)
      session.deactivate(reason: .focusLost)
      output.waitForMore(seconds: 0.1)
      session.activate(reason: .focusLost)
      output.waitForMore(seconds: 0.1)
      for _ in 0..<3 {
        engine.play(high, volume: 0.3)
        output.waitForMore(seconds: 0.03)
      }
      drone.stop(tween: Tween(duration: 0.2, easing: .easeIn))
      output.waitForMore(seconds: 0.1)
      pad.stop(tween: 0.1)
      output.waitForMore(seconds: 0.3)
      summary = engine.stopCapture()
      output.waitForMore(seconds: 0.05)
    }
    return (interleaved(output), try #require(summary))
  }

  /// The device's output as the renderer writes it: left and right in turn.
  static func interleaved(_ output: DiskCapture) -> [Float] {
    var samples: [Float] = []
    samples.reserveCapacity(output.left.samples.count * 2)
    for (left, right) in zip(output.left.samples, output.right.samples) {
      samples.append(left)
      samples.append(right)
    }
    return samples
  }

  @Test("a capture of a live run on the disk driver replays offline to the same samples, in three runs")
  func replayEqualsLive() throws {
    let folder = try Self.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for run in 1...3 {
      let url = folder.appendingPathComponent("run\(run).foleycapture")
      let (live, summary) = try Self.liveRun(folder: folder, capture: url)
      #expect(summary.endedBy == "stopped")
      #expect(summary.records > 15)
      let capture = try CaptureFile(contentsOf: url)
      #expect(capture.isComplete)
      #expect(capture.sounds.values.map(\.name).sorted() == ["high.wav", "low.wav", "mid.wav"])
      let sessions = capture.records.compactMap { record -> [String]? in
        if case .session(let reasons, _) = record.command { return reasons }
        return nil
      }
      #expect(sessions == [["focusLost"], []])
      try Self.expectSameSamples(live: live, capture: url, folder: folder, run: run)
    }
  }

  /// Compares a live run's output with its capture's replay: the same samples after the device's
  /// latency, and not silence.
  static func expectSameSamples(live: [Float], capture url: URL, folder: URL, run: Int) throws {
    let capture = try CaptureFile(contentsOf: url)
    let wav = folder.appendingPathComponent("replay\(run).wav")
    let replay = try OfflineRenderer.replay(capture, to: wav, assetRoots: [folder])
    #expect(replay.warnings == [])
    let replayed = try floatSamples(ofWAV: wav)
    #expect(replayed.count == Int(capture.frames) * 2)
    // The device's fixed latency: where the replay's first sound is in the live output.
    let firstReplayed = try #require(replayed.firstIndex { $0 != 0 })
    let firstLive = try #require(live.firstIndex { $0 != 0 })
    let offset = firstLive - firstReplayed
    #expect(offset >= 0 && offset % 2 == 0)
    let compared = min(replayed.count, live.count - offset)
    #expect(compared > 48_000 * 2)
    var differing = 0
    var largest: Float = 0
    var first: Int?
    for index in 0..<compared where live[offset + index] != replayed[index] {
      differing += 1
      first = first ?? index
      largest = max(largest, abs(live[offset + index] - replayed[index]))
    }
    #expect(
      differing == 0,
      "run \(run): \(differing) of \(compared) samples differ, by up to \(largest), from sample \(first ?? -1) (offset \(offset))"
    )
    #expect((replayed.map(abs).max() ?? 0) > 0.05)
  }

  @Test("a scene's moving, pitched, filtered positional voices replay to the same samples, in three runs")
  func positionalSceneReplays() throws {
    let folder = try Self.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for run in 1...3 {
      let url = folder.appendingPathComponent("scene\(run).foleycapture")
      var summary: CaptureSummary?
      let output = try captureDiskOutput { engine, output in
        let scene = Scene(size: Size(width: 800, height: 600))
        var spatial = SpatialAudio()
        spatial.speedOfSound = 3_430
        engine.attach(to: scene, positional: true, spatial: spatial)
        SceneView().presentScene(scene)
        let listener = Node()
        listener.position = Point(x: 400, y: 300)
        scene.addChild(listener)
        scene.listener = listener
        let hum = AudioNode(
          sound: try Sound(contentsOf: folder.appendingPathComponent("low.wav"), engine: engine))
        hum.position = Point(x: 0, y: 300)
        let high = try Data(contentsOf: folder.appendingPathComponent("high.wav"))
        let ticker = Node()
        ticker.position = Point(x: 700, y: 100)
        output.waitForMore(seconds: 0.05)
        try engine.startCapture(to: url, replacing: true)
        scene.addChild(hum)
        scene.addChild(ticker)
        hum.run(
          .group([
            .move(to: Point(x: 800, y: 300), duration: 1.2), .changePlaybackRate(to: 1.5, duration: 1),
            .changeReverb(to: 0.4, duration: 0.5),
          ]))
        ticker.run(
          .repeatForever(.sequence([.playSound(data: high, name: "high.wav"), .wait(forDuration: 0.3)])))
        let direct = engine.play(
          try Sound(contentsOf: folder.appendingPathComponent("mid.wav"), engine: engine), loops: -1)
        for step in 0..<90 {
          if step == 30 { direct.setLowPassCutoff(600, tween: 0.2) }
          if step == 45 { direct.setPlaybackRate(0.8, tween: 0.3) }
          if step == 60 { direct.stop(tween: 0.2) }
          scene.update(deltaTime: 1.0 / 60)
          output.waitForMore(seconds: 1.0 / 60)
        }
        summary = engine.stopCapture()
        output.waitForMore(seconds: 0.05)
      }
      #expect(summary?.endedBy == "stopped")
      let capture = try CaptureFile(contentsOf: url)
      let kinds = Set(
        capture.records.map { record -> String in
          switch record.command {
          case .place: "place"
          case .shape(_, let kind, _, _, _, _): kind
          default: ""
          }
        })
      #expect(kinds.isSuperset(of: ["place", "rate", "doppler", "cutoff", "send"]))
      try Self.expectSameSamples(live: Self.interleaved(output), capture: url, folder: folder, run: run)
    }
  }

  @Test(
    "a rollback timeline's fade of a mispredicted sound and its late join replay to the same samples, in three runs"
  )
  func rollbackReplays() throws {
    let folder = try Self.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for run in 1...3 {
      let url = folder.appendingPathComponent("rollback\(run).foleycapture")
      var outcome = RollbackTimeline.Reconciliation()
      let output = try captureDiskOutput { engine, output in
        let low = try Sound(contentsOf: folder.appendingPathComponent("low.wav"), engine: engine)
        let mid = try Sound(contentsOf: folder.appendingPathComponent("mid.wav"), engine: engine)
        let high = try Sound(contentsOf: folder.appendingPathComponent("high.wav"), engine: engine)
        output.waitForMore(seconds: 0.05)
        try engine.startCapture(to: url, replacing: true)
        let timeline = try engine.rollbackTimeline(framesPerSecond: 60)
        timeline.play(low, key: RollbackKey(event: "low", entity: 0, frame: 0), frame: 0, volume: 0.5)
        timeline.play(mid, key: RollbackKey(event: "mid", entity: 1, frame: 3), frame: 3, volume: 0.5)
        // Frames 3 and 4 are mixed by now: the remote input that arrives says frame 4 played the
        // high tone, not frame 3 the middle one.
        output.waitForMore(seconds: 0.25)
        try timeline.rollback(to: 2)
        timeline.play(high, key: RollbackKey(event: "high", entity: 1, frame: 4), frame: 4, volume: 0.4)
        outcome = timeline.endResimulation()
        output.waitForMore(seconds: 1.0)
        #expect(engine.stopCapture()?.endedBy == "stopped")
        output.waitForMore(seconds: 0.05)
      }
      #expect(outcome.fadedOut == 1 && outcome.startedLate == 1, "\(outcome)")
      let capture = try CaptureFile(contentsOf: url)
      // Every play of the timeline may join late; one did (its start was already mixed).
      let plays = capture.records.compactMap { record -> (frame: UInt64, play: CapturedPlay)? in
        if case .play(let play) = record.command { return (record.frame, play) }
        return nil
      }
      #expect(plays.count == 3 && plays.allSatisfy { $0.play.joinsLate == true })
      #expect(plays.filter { ($0.play.start ?? .max) < $0.frame }.count == 1)
      try Self.expectSameSamples(live: Self.interleaved(output), capture: url, folder: folder, run: run)
    }
  }
}
