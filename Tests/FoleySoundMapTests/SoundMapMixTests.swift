import FoleyAudio
import FoleySession
import FoleySoundMap
import FoleyTestSupport
import Foundation
import Testing

/// A sound map's `mix` section: checked as strictly as its events, and applied to the engine's
/// buses (heard on the disk driver).
@MainActor
@Suite("Sound map mix section", .serialized)
struct SoundMapMixTests {
  @Test("a bad mix section: every error with its JSON path, misspellings named, and nothing loads")
  func validation() throws {
    let audio = try EmbeddedAudio()
    let folder = try SoundMapTests.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = """
      { "version": 1, "events": { "x": { "play": "a.wav" } },
        "mix": { "reverbb": "cave",
                 "buses": { "music": { "volumDb": -3, "reverbSend": 2,
                                       "effects": [ { "type": "lowpas", "frequency": 900 },
                                                    { "type": "reverb", "preset": "cathedral" },
                                                    { "type": "delay", "time": 9 },
                                                    { "type": "compressor", "ratio": "high", "sidechain": 3 },
                                                    { "type": "highPass" } ] },
                            "master": { },
                            "radio": { "parent": 7 } } } }
      """
    let error = try #require(throws: SoundMapError.self) {
      try SoundMapTests.map(json, in: folder, engine: audio.engine)
    }
    let expected = [
      #"mix.reverbb: unknown key (did you mean reverb?)"#,
      #"mix.buses["music"].volumDb: unknown key (did you mean volumeDb?)"#,
      #"mix.buses["music"].reverbSend: 2 is outside 0...1"#,
      #"mix.buses["music"].effects[0].type: unknown effect "lowpas" (did you mean lowPass?)"#,
      #"mix.buses["music"].effects[1].preset: "cathedral" is not a reverb preset (room, hall, cave, underwater)"#,
      #"mix.buses["music"].effects[2].time: 9 is outside 0.001...2"#,
      #"mix.buses["music"].effects[3].ratio: must be a number"#,
      #"mix.buses["music"].effects[4].frequency: missing"#,
      #"mix.buses["master"]: "master" is not a category's bus (the master and the reverb are set apart)"#,
      #"mix.buses["radio"].parent: must be a category's name"#,
    ]
    for message in expected { #expect(error.errors.contains(message), "missing: \(message)\n\(error)") }
  }

  @Test(
    "every bus a map names is the engine's or declared: events, snapshots, sidechains, followers and parents")
  func busNamesChecked() throws {
    let audio = try EmbeddedAudio()
    let folder = try SoundMapTests.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = """
      { "version": 1,
        "events": { "x": { "play": "a.wav", "category": "cuse" },
                    "y": { "play": "a.wav", "modulators": [{ "follower": { "bus": "speach", "curve": [[-40, 0], [-10, -6]] } }] },
                    "z": { "play": "a.wav", "category": "cues" } },
        "snapshots": { "quiet": { "mix": { "buses": { "muzic": { "volumeDb": -6 } } } } },
        "mix": { "buses": { "cues": {},
                            "music": { "effects": [{ "type": "compressor", "threshold": -40, "ratio": 4, "sidechain": "cuess" }] },
                            "radio": { "parent": "wrld" } } } }
      """
    let error = try #require(throws: SoundMapError.self) {
      try SoundMapTests.map(json, in: folder, engine: audio.engine)
    }
    let tail =
      "; a map names the engine's buses (effects, music, ambience, speech) or those its mix.buses declares"
    for message in [
      #"events["x"].category: no bus "cuse" (did you mean cues?)"#,
      #"events["y"].modulators[0].follower.bus: no bus "speach" (did you mean speech?)"#,
      #"snapshots["quiet"].mix.buses["muzic"]: no bus "muzic" (did you mean music?)"#,
      #"mix.buses["music"].effects[0].sidechain: no bus "cuess" (did you mean cues?)"#,
      #"mix.buses["radio"].parent: no bus "wrld""#,
    ] {
      #expect(error.errors.contains(message + tail), "missing: \(message)\n\(error)")
    }
    #expect(!error.errors.contains { $0.hasPrefix(#"events["z"]"#) }, "\(error)")
    // Declared, the same names load, and a declared bus is there before anything plays on it.
    var fixed = json
    for (wrong, right) in [
      ("cuse", "cues"), ("speach", "speech"), ("muzic", "music"), ("cuess", "cues"),
      (#""radio": { "parent": "wrld" }"#, #""radio": { "parent": "world" }, "world": {}"#),
    ] {
      fixed = fixed.replacingOccurrences(of: wrong, with: right)
    }
    let map = try SoundMapTests.map(fixed, in: folder, engine: audio.engine)
    #expect(map.declaredBuses == ["effects", "music", "ambience", "speech", "cues", "radio", "world"])
    let buses = audio.engine.core.busIndices.withLock { Set($0.keys.map(\.name)) }
    #expect(buses.isSuperset(of: ["cues", "radio", "world"]), "\(buses)")
  }

  @Test("a map's mix puts a high-pass on a category's bus and sets its volume: its low tone goes")
  func applied() throws {
    let folder = try SoundMapTests.folder(["low.wav": 150])
    defer { try? FileManager.default.removeItem(at: folder) }
    try makeToneWAV(frequency: 150, duration: 0.5, amplitude: 0.4).write(
      to: folder.appendingPathComponent("low.wav"))
    let capture = try captureDiskOutput { engine, output in
      let map = try SoundMapTests.map(
        """
        { "version": 1,
          "events": { "radio": { "play": "low.wav", "category": "radio" }, "plain": { "play": "low.wav" } },
          "mix": { "reverb": "hall",
                   "buses": { "radio": { "volumeDb": -6, "effects": [ { "type": "highPass", "frequency": 2000 } ] } } } }
        """, in: folder, engine: engine)
      #expect(engine.reverb.preset == .hall)
      _ = map.post("radio")
      #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
      #expect(output.waitForMore(seconds: 0.2))
      _ = map.post("plain")
      #expect(waitUntil { engine.voiceCensus() == VoiceCensus() })
    }
    let range = try #require(capture.left.audibleRange(threshold: 0.0001))
    let plain = capture.left.peak(in: (range.upperBound - 21_600)..<(range.upperBound - 2_400))
    let radio = capture.left.peak(in: (range.lowerBound + 2_400)..<(range.lowerBound + 21_600))
    #expect(abs(plain - 0.4) < 0.002)
    // 150 Hz through a 2 kHz high-pass (about -45 dB) and -6 dB of bus volume.
    #expect(radio < 0.4 * 0.005, "radio peak \(radio)")
  }
}
