import FoleyAudio
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// A blend container: layers heard together, their volumes crossfading along a game parameter.
@MainActor
@Suite("Sound map blend containers", .serialized)
struct SoundMapBlendTests {
  static let map = """
    { "version": 1,
      "parameters": { "speed": { "range": [0, 1] } },
      "events": { "car": { "blend": { "parameter": "speed", "layers": [
          { "play": "idle.wav", "curve": [[0, 0], [1, -40]] },
          { "play": "drive.wav", "curve": [[0, -40], [1, 0]], "interpolation": "smooth" } ] },
        "loop": true } } }
    """

  @Test("the layers crossfade along the parameter: the first at 0, the second at 1, both 3 dB down half way")
  func crossfade() throws {
    let folder = try SoundMapTests.folder(["idle.wav": 200, "drive.wav": 2_000])
    defer { try? FileManager.default.removeItem(at: folder) }
    var marks: [Int] = []
    let capture = try captureDiskOutput { engine, output in
      let map = try SoundMapTests.map(Self.map, in: folder, engine: engine)
      #expect(map.post("car").count == 2)
      for value in [0.0, 0.5, 1.0] {
        try engine.setParameter("speed", to: value, tween: Tween(duration: 0.05))
        #expect(output.waitForMore(seconds: 0.25))
        marks.append(output.framesWritten)
        #expect(output.waitForMore(seconds: 0.2))
      }
      engine.stopAllVoices()
      #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
    }
    let signal = capture.left
    func level(_ hertz: Double, at mark: Int) -> Double {
      10 * log10(signal.power(atFrequency: hertz, in: mark..<(mark + 9_600)))
    }
    // Each tone's level at speed 1 of its own layer is the reference (0 dB on its curve).
    let idleFull = level(200, at: marks[0])
    let driveFull = level(2_000, at: marks[2])
    #expect(level(2_000, at: marks[0]) - driveFull < -39, "drive at speed 0")
    #expect(level(200, at: marks[2]) - idleFull < -39, "idle at speed 1")
    // Half way: the idle layer's straight line gives -20 dB, the drive layer's smooth one -20 dB too.
    #expect(
      abs(level(200, at: marks[1]) - idleFull + 20) < 0.5,
      "idle half way: \(level(200, at: marks[1]) - idleFull)")
    #expect(
      abs(level(2_000, at: marks[1]) - driveFull + 20) < 0.5,
      "drive half way: \(level(2_000, at: marks[1]) - driveFull)")
  }

  @Test("a bad blend: its parameter unknown (with the nearest), a layer without a curve, a bad curve")
  func refusals() throws {
    let audio = try EmbeddedAudio()
    let folder = try SoundMapTests.folder(["idle.wav": 200])
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = """
      { "version": 1, "parameters": { "speed": { "range": [0, 1] } },
        "events": { "car": { "blend": { "parameter": "sped", "layers": [
            { "play": "idle.wav" },
            { "play": "idle.wav", "curve": [[1, 0], [0, -40]] } ] } } } }
      """
    let error = try #require(throws: SoundMapError.self) {
      try SoundMapTests.map(json, in: folder, engine: audio.engine)
    }
    for message in [
      #"events["car"].blend.parameter: no parameter "sped" in the map's "parameters" (did you mean speed?)"#,
      #"events["car"].blend.layers[0].curve: missing (the layer's level in dB along the parameter)"#,
      #"events["car"].blend.layers[1].curve: curve point 1 has x 0.0, not above the one before (1.0)"#,
    ] {
      #expect(error.errors.contains(message), "missing: \(message)\n\(error)")
    }
  }
}
