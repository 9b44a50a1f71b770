import FoleyAudio
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// The map's envelopes and followers: written in an event's `modulators`, heard on the disk driver.
@MainActor
@Suite("Sound map envelopes and followers", .serialized)
struct SoundMapModulatorTests {
  static let map = """
    { "version": 1,
      "events": {
        "pad": { "play": "pad.wav", "loop": true,
                 "modulators": [{ "envelope": { "attack": 0.2, "sustainDb": -3, "decay": 0.1, "release": 0.3 } }] },
        "pad.off": { "stop": "pad" } } }
    """

  @Test("an event's envelope brings its sound in over the attack, and its stop lets it go over the release")
  func envelopeFromTheMap() throws {
    let folder = try SoundMapTests.folder(["pad.wav": 440])
    defer { try? FileManager.default.removeItem(at: folder) }
    var stoppedAt = 0
    let capture = try captureDiskOutput { engine, output in
      let map = try SoundMapTests.map(Self.map, in: folder, engine: engine)
      #expect(map.post("pad").count == 1)
      #expect(output.waitForMore(seconds: 0.6))
      stoppedAt = output.framesWritten
      map.post("pad.off")
      #expect(output.waitForMore(seconds: 0.8))
      #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
    }
    let signal = capture.left
    let heard = try #require(signal.audibleRange(threshold: 1e-4))
    func rms(_ from: Double, _ to: Double) -> Double {
      signal.rms(in: (heard.lowerBound + Int(from * 48_000))..<(heard.lowerBound + Int(to * 48_000)))
    }
    // The attack: the first 20 ms a small share of the level it reaches.
    let rising = rms(0, 0.02) / rms(0.35, 0.45)
    #expect(rising < 0.15, "the first 20 ms at \(rising) of the sustained level")
    // The release: heard for about 0.3 s after the stop (and the device's buffers) lands.
    let tail = Double(heard.upperBound - stoppedAt) / 48_000
    #expect(tail > 0.2 && tail < 0.55, "heard \(tail) s after the stop")
  }

  @Test("a bad envelope or follower: each error with its JSON path, and nothing loads")
  func refusals() throws {
    let audio = try EmbeddedAudio()
    let folder = try SoundMapTests.folder(["pad.wav": 440])
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = """
      { "version": 1, "events": {
          "a": { "play": "pad.wav", "modulators": [{ "envelope": { "attack": "slow", "sustainDb": 3 } }] },
          "b": { "play": "pad.wav", "modulators": [{ "follower": { "bus": "speech" } }] },
          "c": { "play": "pad.wav", "modulators": [{ "follower": { "bus": "", "curve": [[-40, 0], [-10, -6]] } }] },
          "d": { "play": "pad.wav", "modulators": [{ "follower": { "bus": "speech", "curve": [[-40, 0], [-10, -6]], "release": 0 } }] },
          "e": { "play": "pad.wav", "modulators": [{ "envelope": { "atack": 0.1 } }] },
          "f": { "play": "pad.wav", "modulators": [{ "sidechain": {} }] } } }
      """
    let error = try #require(throws: SoundMapError.self) {
      try SoundMapTests.map(json, in: folder, engine: audio.engine)
    }
    for message in [
      #"events["a"].modulators[0].envelope.attack: must be a number"#,
      #"events["b"].modulators[0].follower.curve: must be a list of [dBFS, dB] points"#,
      #"events["c"].modulators[0].follower.bus: must be a bus name (effects, music, ambience, speech, or one mix.buses declares)"#,
      #"events["d"].modulators[0].follower.release: 0 is outside 0.001...10"#,
      #"events["f"].modulators[0]: needs "lfo", "parameter", "envelope" or "follower""#,
      #"events["e"].modulators[0].envelope.atack: unknown key (did you mean attack?)"#,
    ] {
      #expect(error.errors.contains(message), "missing: \(message)\n\(error)")
    }
  }
}
