@_spi(FoleyStreams) import FoleyAudio
import FoleyMusic
import FoleyOffline
import FoleyRecording
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// Offline rendering: the same scene renders to the same bytes every time, and golden renders
/// whose hashes are checked in.
@MainActor
@Suite("Offline rendering", .serialized)
struct OfflineRenderTests {
  /// A scene that uses most of what Foley does: sound actions on a repeat, a positional audio
  /// node moving across with a rising rate, a reverb send and a bus filter, a sound map with
  /// seeded random pitch and level, and music that crossfades.
  static func renderScene(
    seconds: Double, to url: URL? = nil, consume: ((UnsafeBufferPointer<Float>) -> Void)? = nil
  ) throws -> OfflineRenderer.Result {
    let folder = try makeToneFolder(["a.wav": 330, "b.wav": 495])
    defer { try? FileManager.default.removeItem(at: folder) }
    let renderer = try OfflineRenderer()
    defer { renderer.close() }
    let engine = renderer.engine
    let scene = Scene(size: Size(width: 800, height: 600), seed: 7)
    var spatial = SpatialAudio()
    spatial.speedOfSound = 3_430
    engine.attach(to: scene, positional: false, spatial: spatial)
    SceneView().presentScene(scene)
    try engine.bus(.ambience).setEffects([FilterEffect(.lowPass, frequency: 2_500)])
    engine.reverb.apply(.hall)
    let map = try SoundMap(
      json: Data(
        #"{ "version": 1, "events": { "hit": { "random": ["a.wav", "b.wav"], "pitchSemitones": [-2, 2], "volumeDb": [-6, 0] } } }"#
          .utf8), relativeTo: folder, engine: engine, seed: 11)
    engine.use(map, for: scene)
    let drummer = Node()
    scene.addChild(drummer)
    drummer.run(
      .repeatForever(
        .sequence([
          .playSound(data: makeToneWAV(frequency: 880, duration: 0.05, amplitude: 0.3), name: "tick.wav"),
          .postEvent("hit"), .wait(forDuration: 0.25),
        ])))
    var settings = SoundSettings()
    settings.category = .ambience
    let hum = AudioNode(
      sound: try Sound(
        data: makeToneWAV(frequency: 220, duration: 0.4, amplitude: 0.3), engine: engine, settings: settings))
    hum.position = Point(x: 0, y: 300)
    scene.addChild(hum)
    hum.run(
      .group([
        .move(to: Point(x: 800, y: 300), duration: 2), .changePlaybackRate(to: 1.5, duration: 2),
        .changeReverb(to: 0.5, duration: 1),
      ]))
    engine.music.play(Track(url: fixture("loop-chirp.ogg"), loopCount: -1))
    scene.run(
      .sequence([.wait(forDuration: 0.6), .playMusic(Track(url: fixture("tone.ogg")), tween: 0.3)]))
    let update: (Double) -> Void = { scene.update(deltaTime: $0) }
    if let url { return try renderer.render(seconds: seconds, to: url, update: update) }
    return try renderer.render(seconds: seconds, update: update, consume: consume ?? { _ in })
  }

  /// Sound in space: a positional audio node flying past the listener with doppler, occluded
  /// half-way, on a bus with an echo, and a thump from a node at the side.
  static func renderSpace(
    seconds: Double, consume: @escaping (UnsafeBufferPointer<Float>) -> Void
  ) throws -> OfflineRenderer.Result {
    let renderer = try OfflineRenderer()
    defer { renderer.close() }
    let engine = renderer.engine
    let scene = Scene(size: Size(width: 800, height: 600), seed: 3)
    let listener = Node()
    listener.position = Point(x: 400, y: 300)
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.speedOfSound = 1_500
    spatial.distanceModel = .inverse(reference: 100, rolloff: 1)
    engine.attach(to: scene, positional: true, spatial: spatial)
    SceneView().presentScene(scene)
    try engine.bus("flyby").setEffects([DelayEffect(time: 0.12, feedback: 0.4, wet: 0.4)])
    var settings = SoundSettings()
    settings.category = "flyby"
    let hum = try Sound(
      data: makeToneWAV(frequency: 300, duration: 0.5, amplitude: 0.4, channels: 1), engine: engine,
      settings: settings)
    let plane = AudioNode(sound: hum)
    plane.position = Point(x: -200, y: 350)
    scene.addChild(plane)
    plane.run(
      .group([
        .move(to: Point(x: 1_000, y: 350), duration: 1),
        .sequence([.wait(forDuration: 0.5), .changeOcclusion(to: -24, duration: 0.2)]),
      ]))
    let thump = Node()
    thump.position = Point(x: 100, y: 300)
    scene.addChild(thump)
    thump.run(
      .repeatForever(
        .sequence([
          .playSound(data: makeToneWAV(frequency: 90, duration: 0.08, amplitude: 0.5), name: "thump.wav"),
          .wait(forDuration: 0.3),
        ])))
    return try renderer.render(seconds: seconds, update: { scene.update(deltaTime: $0) }, consume: consume)
  }

  /// One step of an offline render whose update starts a stream and plays three sounds, the
  /// stream thread either done with the stream before the plays are asked for (`streamFirst`)
  /// or held up until after the queue could have served them: the channels each got.
  static func streamAndPlays(streamFirst: Bool) throws -> (stream: Int, plays: [Int]) {
    let renderer = try OfflineRenderer()
    defer { renderer.close() }
    let engine = renderer.engine
    let sound = try Sound(data: makeToneWAV(frequency: 440, duration: 1, amplitude: 0.2), engine: engine)
    let filler = engine.streamFiller
    let gate = DispatchSemaphore(value: 0)
    var stream: PCMStream?
    var plays: [Voice] = []
    try renderer.render(
      seconds: 0.05,
      update: { _ in
        guard stream == nil else { return }
        if !streamFirst { filler.queue.async { gate.wait() } }
        stream = engine.playStream(
          NoiseSource(samples: [Float](repeating: 0.1, count: 48_000)), name: "noise", category: .effects,
          volume: 1)
        if streamFirst { filler.queue.sync {} }
        plays = (0..<3).map { _ in engine.play(sound) }
        if !streamFirst {
          engine.core.syncOnQueue {}  // whatever hop the plays raised has run
          gate.signal()
        }
      }, consume: { _ in })
    let channels = engine.core.syncOnQueue { (stream!.voice.channel, plays.map(\.channel)) }
    return (channels.0, channels.1)
  }

  @Test(
    "a stream started in an update and the update's plays get the same channels however fast the stream thread was"
  )
  func streamsAndPlaysInOneOrder() throws {
    // The order the mix adds voices in is their channels' order, so channels that hung on the
    // stream thread's speed made renders differ in their last bits (the demo's tour did, under
    // load). The update's plays are held until the step's streams are on their channels.
    let fast = try Self.streamAndPlays(streamFirst: true)
    let slow = try Self.streamAndPlays(streamFirst: false)
    #expect(fast.stream >= 0 && fast.plays.allSatisfy { $0 >= 0 })
    #expect(fast.stream == slow.stream && fast.plays == slow.plays, "fast \(fast), slow \(slow)")
  }

  @Test("the same scene renders to the same bytes on every run, music, effects and random pitch included")
  func deterministic() throws {
    var first: [Float] = []
    var second: [Float] = []
    let one = try Self.renderScene(seconds: 1.5) { first.append(contentsOf: $0) }
    let two = try Self.renderScene(seconds: 1.5) { second.append(contentsOf: $0) }
    #expect(first == second)
    #expect(one.frames == 72_000 && two.frames == 72_000)
    #expect(one.sha256 == two.sha256)
    #expect(one.sha256.count == 64)
    // Not a render of silence: the ticks, the hum and the music are all in it.
    let left = Signal(interleaved: first, channel: 0)
    #expect(left.rms(in: 0..<left.count) > 0.05)
    #expect(left.segments(minimumGap: 48, threshold: 0.0001).count >= 1)
    // The file's hash is its bytes'; rendering to a file twice gives the same file.
    let file = temporaryFile("render.wav")
    defer { try? FileManager.default.removeItem(at: file) }
    let written = try Self.renderScene(seconds: 1.5, to: file)
    let again = try Self.renderScene(seconds: 1.5, to: file)
    #expect(written.sha256 == again.sha256)
    let info = try WAVFile.info(at: file)
    #expect(info.isConsistent && info.frames == 72_000 && info.format.sampleFormat == .float32)
  }

  @Test(
    "golden renders: checked-in hashes; a change reports where and by how much (FOLEY_UPDATE_GOLDENS=1 updates)",
    arguments: ["scene", "space"])
  func goldens(name: String) throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Goldens")
    let update = ProcessInfo.processInfo.environment["FOLEY_UPDATE_GOLDENS"] == "1"
    var samples: [Float] = []
    let result =
      name == "scene"
      ? try Self.renderScene(seconds: 1) { samples.append(contentsOf: $0) }
      : try Self.renderSpace(seconds: 1) { samples.append(contentsOf: $0) }
    let hashFile = folder.appendingPathComponent("\(name).sha256")
    let referenceFile = folder.appendingPathComponent("\(name).wav")
    if update {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data((result.sha256 + "\n").utf8).write(to: hashFile)
      let quantised = samples.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
      try makeWAV(samples: quantised, sampleRate: 48_000, channels: 2).write(to: referenceFile)
      return
    }
    // Not silence: a golden of nothing would pass whatever broke.
    #expect(Signal(interleaved: samples, channel: 0).rms(in: 0..<(samples.count / 2)) > 0.01)
    let expected = try String(contentsOf: hashFile, encoding: .utf8).trimmingCharacters(
      in: .whitespacesAndNewlines)
    guard result.sha256 != expected else { return }
    // Where and by how much it changed, against the 16-bit reference beside the hash.
    let reference = try DiskCapture(wav: referenceFile)
    let now = Signal(interleaved: samples, channel: 0)
    let limit = min(reference.left.count, now.count)
    let first = (0..<limit).first { abs(reference.left[$0] - now[$0]) > 1.5 / 32_768 }
    let peak = (0..<limit).map { abs(reference.left[$0] - now[$0]) }.max() ?? 0
    Issue.record(
      """
      the golden render '\(name)' changed: sha256 \(result.sha256), expected \(expected); \
      \(first.map { "first differs at sample \($0) (\(String(format: "%.4f", Double($0) / 48_000)) s)" } ?? "no difference beyond 16-bit rounding"), \
      largest difference \(String(format: "%.1f", 20 * log10(max(Double(peak), 1e-12)))) dBFS. \
      If the change is meant: FOLEY_UPDATE_GOLDENS=1 swift test --filter goldens
      """)
  }
}
