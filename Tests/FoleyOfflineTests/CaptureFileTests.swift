import FoleyAudio
import FoleyOffline
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// Capture files: what a replay refuses (a changed or missing sound, a file that is not a
/// capture), what it names (commands it cannot replay), and a capture cut short.
@MainActor
@Suite("Capture files", .serialized)
struct CaptureFileTests {
  /// Captures a short run on an embedded engine: two sounds, a volume tween, a stop; `during`
  /// runs in the middle.
  static func capture(
    folder: URL, to url: URL, limit: Int = 1 << 20, during: (AudioEngine, Voice) -> Void = { _, _ in }
  ) throws -> CaptureSummary {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, assetRoots: [folder])
    defer { engine.close() }
    let low = try engine.sound(named: "low.wav")
    let high = try engine.sound(named: "high.wav")
    try engine.startCapture(to: url, replacing: true, limit: limit)
    let drone = engine.play(low, loops: -1)
    mixer.advance(seconds: 0.1)
    engine.play(high, volume: 0.5)
    during(engine, drone)
    mixer.advance(seconds: 0.1)
    drone.setVolume(0.3, tween: 0.2)
    mixer.advance(seconds: 1.2)
    drone.stop(tween: 0.1)
    mixer.advance(seconds: 0.2)
    return try #require(engine.stopCapture())
  }

  @Test("a sound whose file changed is refused by name, or replayed with a warning that names it")
  func changedSound() throws {
    let folder = try CaptureReplayTests.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("run.foleycapture")
    _ = try Self.capture(folder: folder, to: url)
    let capture = try CaptureFile(contentsOf: url)
    let wav = folder.appendingPathComponent("out.wav")
    // As captured: no warning.
    #expect(try OfflineRenderer.replay(capture, to: wav, assetRoots: [folder]).warnings == [])
    try makeToneWAV(frequency: 700, duration: 0.4, amplitude: 0.3).write(
      to: folder.appendingPathComponent("high.wav"))
    #expect(throws: CaptureError.changedSound("high.wav")) {
      try OfflineRenderer.replay(capture, to: wav, assetRoots: [folder])
    }
    let allowed = try OfflineRenderer.replay(
      capture, to: wav, assetRoots: [folder], allowingChangedSounds: true)
    #expect(allowed.warnings.contains { $0.contains("\"high.wav\" has changed") })
    try FileManager.default.removeItem(at: folder.appendingPathComponent("low.wav"))
    #expect(throws: CaptureError.missingSound("low.wav")) {
      try OfflineRenderer.replay(capture, to: wav, assetRoots: [folder])
    }
    let without = try OfflineRenderer.replay(
      capture, to: wav, assetRoots: [folder], allowingChangedSounds: true)
    #expect(without.warnings.contains { $0.contains("\"low.wav\" is not in the asset roots") })
    let leftOut = "1 plays of sounds the replay does not have were left out, and 2 commands for them"
    #expect(without.warnings.contains { $0.contains(leftOut) })
  }

  @Test(
    "a sound the game made in code replays from the bytes given for its name, to the samples the engine made")
  func soundMadeInCode() throws {
    let folder = try CaptureReplayTests.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("run.foleycapture")
    let made = makeToneWAV(frequency: 1_234, duration: 0.3, amplitude: 0.4)
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, assetRoots: [folder])
    try engine.startCapture(to: url)
    let low = try engine.sound(named: "low.wav")
    engine.play(low, volume: 0.5, loops: -1)
    mixer.advance(seconds: 0.05)
    engine.play(data: made, name: "made.wav", pan: 0.4)
    mixer.advance(seconds: 0.5)
    let summary = try #require(engine.stopCapture())
    let live = mixer.takeOutput()
    engine.close()
    let capture = try CaptureFile(contentsOf: url)
    #expect(capture.frames == summary.frames)
    #expect(throws: CaptureError.missingSound("made.wav")) {
      try OfflineRenderer.replay(capture, to: folder.appendingPathComponent("out.wav"), assetRoots: [folder])
    }
    let replayed = try Self.expectReplayIsLive(
      capture, live: live, folder: folder, sounds: ["made.wav": made])
    #expect((replayed.map(abs).max() ?? 0) > 0.2)
  }

  /// Replays `capture` and expects an embedded engine's own output, `live`: its capture starts on
  /// its first frame, so there is no latency between the two. Returns the replayed samples.
  @discardableResult
  static func expectReplayIsLive(
    _ capture: CaptureFile, live: [Float], folder: URL, sounds: [String: Data] = [:]
  ) throws -> [Float] {
    let wav = folder.appendingPathComponent("out.wav")
    let replay = try OfflineRenderer.replay(capture, to: wav, assetRoots: [folder], sounds: sounds)
    #expect(replay.warnings == [])
    let replayed = try floatSamples(ofWAV: wav)
    #expect(replayed.count == Int(capture.frames) * 2)
    #expect(Array(live.prefix(replayed.count)) == replayed)
    return replayed
  }

  @Test("a sound map's pitched copies are named by their source and pitch, and made again by the replay")
  func pitchedCopies() throws {
    let folder = try CaptureReplayTests.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("run.foleycapture")
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, assetRoots: [folder])
    let map = try SoundMap(
      json: Data(#"{"version": 1, "events": {"hit": {"play": "high.wav", "pitchSemitones": [-3, 3]}}}"#.utf8),
      relativeTo: folder, engine: engine, seed: 5)
    try engine.startCapture(to: url)
    for _ in 0..<8 {
      map.post("hit")
      engine.waitUntilIdle()
      mixer.advance(seconds: 0.1)
    }
    mixer.advance(seconds: 0.4)
    _ = try #require(engine.stopCapture())
    let live = mixer.takeOutput()
    engine.close()
    let capture = try CaptureFile(contentsOf: url)
    #expect(capture.sounds.values.filter { $0.semitones != nil }.count >= 3)
    try Self.expectReplayIsLive(capture, live: live, folder: folder)
  }

  @Test("a capture cut short mid-line replays up to its last whole line, the same samples as the whole")
  func cutShort() throws {
    let folder = try CaptureReplayTests.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("run.foleycapture")
    _ = try Self.capture(folder: folder, to: url)
    let whole = try CaptureFile(contentsOf: url)
    let bytes = try Data(contentsOf: url)
    // Cut inside the line of the voice's stop: what a kill -9 leaves.
    let stopLine = try #require(bytes.range(of: Data(#""stop":"#.utf8)))
    let cut = bytes.prefix(stopLine.lowerBound + 3)
    let partial = try CaptureFile(data: cut, name: "cut")
    #expect(!partial.isComplete && whole.isComplete)
    #expect(partial.records.count < whole.records.count)
    #expect(partial.frames == partial.records.last?.frame && partial.frames >= 9_600)
    let wholeWAV = folder.appendingPathComponent("whole.wav")
    let partialWAV = folder.appendingPathComponent("partial.wav")
    _ = try OfflineRenderer.replay(whole, to: wholeWAV, assetRoots: [folder])
    _ = try OfflineRenderer.replay(partial, to: partialWAV, assetRoots: [folder])
    let wholeSamples = try floatSamples(ofWAV: wholeWAV)
    let partialSamples = try floatSamples(ofWAV: partialWAV)
    #expect(partialSamples.count == Int(partial.frames) * 2)
    #expect(Array(wholeSamples.prefix(partialSamples.count)) == partialSamples)
  }

  @Test("commands the format does not record are named in the capture and in the replay's warnings")
  func unsupportedNamed() throws {
    let folder = try CaptureReplayTests.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("run.foleycapture")
    _ = try Self.capture(folder: folder, to: url) { _, drone in drone.seek(to: 0.05) }
    let capture = try CaptureFile(contentsOf: url)
    #expect(capture.unsupported["voice seek"] == 1)
    let replay = try OfflineRenderer.replay(
      capture, to: folder.appendingPathComponent("out.wav"), assetRoots: [folder])
    #expect(replay.warnings.contains { $0.contains("voice seek") })
  }

  @Test("a capture stops at its size limit and says so; an existing file is not replaced unless asked")
  func limitAndExisting() throws {
    let folder = try CaptureReplayTests.soundFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("run.foleycapture")
    let summary = try Self.capture(folder: folder, to: url, limit: 4_096) { engine, _ in
      let high = try? engine.sound(named: "high.wav")
      for _ in 0..<200 { if let high { engine.play(high, volume: 0.01) } }
    }
    #expect(summary.endedBy == "size limit")
    let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    #expect(size <= 4_096)
    #expect(try CaptureFile(contentsOf: url).endedBy == "size limit")
    // Not replaced without `replacing`, and left as it was.
    let before = try Data(contentsOf: url)
    let engine = try AudioEngine(embedded: EmbeddedMixer(), assetRoots: [folder])
    defer { engine.close() }
    #expect(throws: CaptureError.exists(url)) { try engine.startCapture(to: url) }
    #expect(try Data(contentsOf: url) == before)
    #expect(!engine.isCapturing)
  }

  @Test("every command's line is the JSON its Codable form writes, and reads back to the same command")
  func linesRoundTrip() throws {
    // One line of each kind, as the Capturing article describes them.
    let lines = [
      #"{"frame":0,"play":{"groupVolume":1,"joinsLate":true,"level":{"easing":"easeOut","frames":480,"from":0},"loops":-1,"normalization":0.7,"pan":-0.25,"placementGain":0.3,"placementPan":0.1,"rate":1.5,"sound":2,"start":9000,"voice":7,"volume":0.5}}"#,
      #"{"frame":512,"play":{"groupVolume":0.5,"loops":0,"normalization":1,"pan":0,"rate":1,"sound":1,"voice":8,"volume":1}}"#,
      #"{"frame":1024,"volume":{"to":0.125,"tween":{"duration":0.25,"easing":"easeIn:3","start":4096},"voice":7}}"#,
      #"{"frame":1536,"gain":{"groupVolume":0.25,"pan":0.5,"voice":7}}"#,
      #"{"frame":2048,"stop":{"tween":{"duration":0,"easing":"linear"},"voice":7}}"#,
      #"{"frame":2560,"pause":{"voice":3}}"#, #"{"frame":3072,"resume":{"voice":3}}"#,
      #"{"frame":3584,"mix":{"settings":{"balance":-0.25,"critical":["speech"],"ducks":{"talk":{"buses":["music"],"gain":0.25}},"dynamicRange":"night","isMasterMuted":false,"isMono":true,"masterVolume":0.8,"muted":["ui"],"soloed":[],"volumes":{"music":0.5}},"tween":{"duration":0.25,"easing":"easeIn:3","start":4096}}}"#,
      #"{"frame":4096,"session":{"inactive":["focusLost"],"resumesPausedVoices":true}}"#,
      #"{"frame":4608,"unsupported":"voice rate"}"#, #"{"frame":5120,"mark":true}"#,
      #"{"end":"stopped","frame":5632}"#,
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for text in lines {
      let record = try JSONDecoder().decode(CaptureRecord.self, from: Data(text.utf8))
      let line = try #require(record.line(using: encoder))
      let encoded = String(decoding: try encoder.encode(record), as: UTF8.self)
      #expect(String(decoding: line, as: UTF8.self) == encoded)
      #expect(try JSONDecoder().decode(CaptureRecord.self, from: line) == record)
      #expect(String(decoding: line, as: UTF8.self).count <= text.count + 8, "\(text)")
    }
  }

  @Test("a file that is not a capture, of another version, or with a bad line is refused with its line")
  func badFiles() throws {
    func reason(_ text: String) -> String {
      do {
        _ = try CaptureFile(data: Data(text.utf8), name: "f")
        return "read"
      } catch {
        return error.description
      }
    }
    let header =
      #"{"channels":2,"bufferFrames":512,"engine":{"closeFadeDuration":0.01,"declickDuration":0.005,"maximumChannels":256,"virtualizesInaudibleVoices":true},"format":"foley-capture","mix":{"balance":0,"critical":[],"ducks":{},"dynamicRange":"full","isMasterMuted":false,"isMono":false,"masterVolume":1,"muted":[],"soloed":[],"volumes":{}},"sampleRate":48000,"startFrame":0,"version":1,"voicesAtStart":0}"#
    #expect(reason(header + "\n") == "read")
    #expect(reason("") == "not a capture Foley can read: f is empty")
    #expect(reason("{\"hello\": 1}\n").contains("line 1: not a Foley capture header"))
    #expect(
      reason(header.replacingOccurrences(of: #""version":1"#, with: #""version":2"#) + "\n").contains(
        "version 2"))
    #expect(reason(header.replacingOccurrences(of: "48000", with: "5") + "\n").contains("5 Hz"))
    #expect(
      reason(header + "\n{\"frame\":0,\"mark\":true}\n{\"frame\":512,\"play\":{\"voice\":1}}\n").contains(
        "line 3"))
    #expect(reason(header + "\n{\"mark\":true}\n").contains("line 2: no \"frame\""))
    // A frame past a day of audio would have the replay mix for ever.
    #expect(
      reason(header + "\n{\"frame\":99999999999999,\"mark\":true}\n")
        == "not a capture Foley can read: f, line 2: frame 99999999999999 is past 86400 s of audio, the most a capture covers"
    )
    #expect(
      reason(
        header
          + "\n{\"frame\":0,\"stop\":{\"tween\":{\"duration\":1,\"easing\":\"linear\",\"start\":99999999999999},\"voice\":1}}\n"
      )
      .contains("line 2: frame 99999999999999 is past"))
  }
}
