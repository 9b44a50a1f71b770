import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// SpriteKit's four audio actions that Foley lacked, on a looping audio node in a scene, heard
/// on the disk driver: `changePlaybackRate(to:)` and `(by:)`, `changeObstruction`,
/// `changeOcclusion` and `changeReverb`.
@MainActor
@Suite("Scene shaping actions (disk driver)", .serialized)
struct SceneShapingTests {
  @Test("changePlaybackRate, changeObstruction, changeOcclusion and changeReverb change what is heard")
  func fourActions() throws {
    let tone = makeToneWAV(frequency: 400, duration: 0.5, amplitude: 0.4, channels: 1)
    let marks = Locked<[String: Int]>([:])
    let capture = try captureDiskOutput { engine, output in
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene)
      let node = AudioNode(data: tone, name: "tone.wav")
      node.isPositional = false
      let done = Locked(false)
      func mark(_ name: String) -> Action { .run { marks.withLock { $0[name] = output.framesWritten } } }
      node.run(
        .sequence([
          .wait(forDuration: 0.6), mark("plain"),
          .changePlaybackRate(to: 2, duration: 0.15), .wait(forDuration: 0.6), mark("double"),
          .changePlaybackRate(by: -0.5, duration: 0), .wait(forDuration: 0.6), mark("one and a half"),
          .changeObstruction(to: -24, duration: 0.05), .wait(forDuration: 0.6), mark("obstructed"),
          .changeObstruction(to: 0, duration: 0), .changeOcclusion(to: -12, duration: 0.05),
          .wait(forDuration: 0.6), mark("occluded"),
          .changeOcclusion(to: 0, duration: 0), .pause(), .wait(forDuration: 0.4), mark("paused"),
          .play(), .changeReverb(to: 1, duration: 0), .wait(forDuration: 0.6),
          mark("stopping"), .stop(), .wait(forDuration: 0.4), mark("tail"),
          .run { done.withLock { $0 = true } },
        ]))
      scene.addChild(node)
      #expect(waitUntil(stepping: scene, timeout: 30) { done.withLock { $0 } })
      // The scene's clock is the wall's: on a starved machine (ThreadSanitizer, both cores busy)
      // the device may lag it, so wait for the tail the last check reads to be written.
      let stopping = marks.withLock { $0["stopping"] } ?? 0
      #expect(waitUntil(timeout: 30) { output.framesWritten >= stopping + 12_000 })
    }
    let signal = capture.left
    func window(_ name: String) throws -> Range<Int> {
      let end = try #require(marks.withLock { $0[name] }) - 2_400
      return (end - 9_600)..<end
    }
    #expect(abs(signal.frequency(in: try window("plain")) - 400) < 4)
    #expect(abs(signal.frequency(in: try window("double")) - 800) < 8)
    #expect(abs(signal.frequency(in: try window("one and a half")) - 600) < 6)
    let level = signal.rms(in: try window("one and a half"))
    // -24 dB of obstruction: a gain of 10^(-24/80) and a 1.25 kHz low-pass (0.974 at 600 Hz).
    let obstructed = signal.rms(in: try window("obstructed")) / level
    #expect(abs(obstructed - 0.501 * 0.974) < 0.03, "obstructed: \(obstructed)")
    // -12 dB of occlusion: 10^(-12/80) and a 5 kHz low-pass (1.0 at 600 Hz).
    let occluded = signal.rms(in: try window("occluded")) / level
    #expect(abs(occluded - 0.708) < 0.03, "occluded: \(occluded)")
    // Paused without a send, the node is silent at once; stopped with its send up, it rings on.
    #expect(signal.rms(in: try window("paused")) < 1e-4)
    let stop = try #require(marks.withLock { $0["stopping"] })
    try #require(stop + 12_000 <= signal.samples.count, "the capture ends before the reverb's tail")
    #expect(signal.rms(in: (stop + 7_200)..<(stop + 12_000)) > 0.002)
  }
}
