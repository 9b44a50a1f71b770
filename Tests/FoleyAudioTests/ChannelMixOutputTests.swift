import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// Mono output and balance, for players who hear with one ear or on one speaker, checked in the
/// mixed output SDL's disk driver writes.
@MainActor
@Suite("Mono and balance (disk driver)", .serialized)
struct ChannelMixOutputTests {
  /// Noise placed hard left of the listener (a positional node 400 points left, the pan width),
  /// played to its end; with `mono`, in mono output.
  static func hardLeft(mono: Bool, balance: Double = 0) throws -> DiskCapture {
    let noise = makeNoiseWAV(frames: 48_000)
    return try captureDiskOutput { engine, output in
      engine.isMono = mono
      engine.balance = balance
      let (scene, _) = PositionalOutputTests.scene(engine, model: .none)
      #expect(output.waitForMore(seconds: 0.05))
      let node = Node()
      node.position = Point(x: 0, y: 300)
      scene.addChild(node)
      var done = false
      node.run(.playSound(data: noise, name: "noise.wav", waitForCompletion: true)) { done = true }
      #expect(waitUntil(stepping: scene) { done })
    }
  }

  @Test("mono: a sound placed hard left is in both ears, sample for sample, as loud as in stereo")
  func monoKeepsLoudness() throws {
    let stereo = try Self.hardLeft(mono: false)
    let mono = try Self.hardLeft(mono: true)
    let stereoRange = try #require(stereo.left.audibleRange(threshold: 0))
    let monoRange = try #require(mono.left.audibleRange(threshold: 0))
    // Stereo: all of it on the left.
    #expect(stereo.right.samples[stereoRange].allSatisfy { abs($0) < 1e-6 })
    // Mono: the right channel is the left one, every sample.
    #expect(mono.left.samples[monoRange] == mono.right.samples[monoRange])
    let stereoLoudness = LoudnessTests.integratedLoudness(
      left: Array(stereo.left.samples[stereoRange]), right: Array(stereo.right.samples[stereoRange]))
    let monoLoudness = LoudnessTests.integratedLoudness(
      left: Array(mono.left.samples[monoRange]), right: Array(mono.right.samples[monoRange]))
    #expect(abs(monoLoudness - stereoLoudness) < 0.5, "stereo \(stereoLoudness) LUFS, mono \(monoLoudness)")
  }

  @Test("mono: a stereo sound with different channels and the reverb's return come out the same in both ears")
  func monoFoldsStereoAndReverb() throws {
    // A stereo file: a tone on the left, noise on the right.
    let noise = noiseSamples(frames: 24_000)
    var samples = [Int16](repeating: 0, count: 48_000)
    for frame in 0..<24_000 {
      samples[2 * frame] = Int16(0.4 * 32_767 * sin(2 * .pi * 440 * Double(frame) / 48_000))
      samples[2 * frame + 1] = Int16(noise[frame] * 0.4 * 32_767)
    }
    let capture = try captureDiskOutput { engine, _ in
      engine.isMono = true
      engine.reverb.apply(.hall)
      // Switched over silence, the mode is taken at once: the sound's first sample is mono.
      let voice = engine.play(
        try engine.sound(data: makeWAV(samples: samples, sampleRate: 48_000, channels: 2)))
      voice.setReverbSend(0.8)
      #expect(waitUntil { voice.isFinished })
      #expect(waitUntil { !engine.isSounding })  // the reverb's tail rung out
    }
    let range = try #require(capture.left.audibleRange(threshold: 0))
    #expect(range.count > 24_000)  // the tail is there
    #expect(capture.left.samples[range] == capture.right.samples[range])
  }

  @Test("balance: fully left silences the right and leaves the left as it was; half right halves the left")
  func balance() throws {
    let centred = try Self.hardLeft(mono: true)
    let left = try Self.hardLeft(mono: true, balance: -1)
    let right = try Self.hardLeft(mono: true, balance: 0.5)
    let range = try #require(centred.left.audibleRange(threshold: 0))
    let leftRange = try #require(left.left.audibleRange(threshold: 0))
    let rightRange = try #require(right.left.audibleRange(threshold: 0))
    #expect(left.right.samples.allSatisfy { $0 == 0 })
    // Within 1 % (0.09 dB): three separate runs of a positional sound on the device, whose first
    // and last ramps can fall a few samples differently on a starved machine (measured 0.33 %
    // under ThreadSanitizer); a balance law that were wrong is off by tens of percent.
    let tolerance = 0.01
    #expect(
      abs(left.left.rms(in: leftRange) - centred.left.rms(in: range)) < tolerance
        * centred.left.rms(in: range))
    #expect(
      abs(right.right.rms(in: rightRange) - centred.right.rms(in: range)) < tolerance
        * centred.right.rms(in: range))
    #expect(
      abs(right.left.rms(in: rightRange) - 0.5 * centred.left.rms(in: range)) < tolerance
        * centred.left.rms(in: range))
  }
}

/// A second of stereo constant level, 0.5 on the left and nothing on the right: every output
/// sample shows the gains it was given.
private func leftOnlyLevel() -> Data {
  var samples = [Int16](repeating: 0, count: 96_000)
  for frame in 0..<48_000 { samples[2 * frame] = Int16(0.5 * 32_767) }
  return makeWAV(samples: samples, sampleRate: 48_000, channels: 2)
}

/// Switching mono and balance while a sound plays, on the embedded mixer: exact frames.
@MainActor
@Suite("Mono and balance switching (embedded mixer)")
struct ChannelMixSwitchingTests {
  @Test("switching to mono mid-sound glides to the average over the de-click time, with no step")
  func switchingGlides() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let voice = audio.engine.play(try audio.engine.sound(data: leftOnlyLevel()))
    audio.advance(seconds: 0.1)
    let before = audio.frames
    audio.engine.isMono = true
    audio.advance(seconds: 0.1)
    audio.engine.balance = 1
    audio.advance(seconds: 0.1)
    #expect(voice.isPlaying)
    let level = Float(Int16(0.5 * 32_767)) / 32_768
    // Before: all on the left. After the switch: the average in both ears, then, balanced fully
    // right, nothing on the left.
    #expect(abs(audio.left[before - 1] - level) < 1e-6 && audio.right[before - 1] == 0)
    let mono = before + 4_800 - 1
    #expect(abs(audio.left[mono] - level / 2) < 1e-6 && audio.left[mono] == audio.right[mono])
    #expect(audio.left[audio.frames - 1] == 0 && abs(audio.right[audio.frames - 1] - level / 2) < 1e-6)
    // No sample moves by more than the de-click ramp's step (5 ms from 0 to 1), half of the level.
    let step = level / 240 * 1.01
    #expect(audio.left.largestStep(in: (before - 100)..<audio.frames) <= step)
    #expect(audio.right.largestStep(in: (before - 100)..<audio.frames) <= step)
  }
}

/// A player's settings saved, loaded and applied, on the embedded mixer.
@MainActor
@Suite("Audio settings (embedded mixer)")
struct AudioSettingsTests {
  @Test("settings saved as JSON load back equal and apply to the mix: the bus at half, mono, balance")
  func saveLoadApply() throws {
    let audio = try EmbeddedAudio(limiter: false)
    // On the effects bus.
    let voice = audio.engine.play(try audio.engine.sound(data: leftOnlyLevel()))
    audio.advance(seconds: 0.1)
    var settings = audio.engine.settings
    #expect(settings == AudioSettings())
    settings.isMono = true
    settings.balance = 0.5
    settings.busVolumes["effects"] = 0.5
    settings.mutedBuses = ["music"]
    settings.dynamicRange = .night
    settings.showsCaptions = false
    let saved = try JSONEncoder().encode(settings)
    let loaded = try JSONDecoder().decode(AudioSettings.self, from: saved)
    #expect(loaded == settings)
    audio.engine.apply(loaded)
    audio.advance(seconds: 0.1)
    #expect(voice.isPlaying)
    #expect(audio.engine.settings == settings)
    #expect(audio.engine.bus(.effects).volume == 0.5 && audio.engine.bus(.music).isMuted)
    #expect(audio.engine.dynamicRange == .night && !audio.engine.captions.isEnabled)
    // The level below is above the night curve's threshold: back to full, so it is exact.
    audio.engine.dynamicRange = .full
    audio.advance(seconds: 0.1)
    // Half the level on its bus, averaged into both ears (a quarter), the left at half for the balance.
    let level = Float(Int16(0.5 * 32_767)) / 32_768
    let last = audio.frames - 1
    #expect(abs(audio.right[last] - level / 4) < 1e-6, "\(audio.right[last])")
    #expect(abs(audio.left[last] - level / 8) < 1e-6, "\(audio.left[last])")
  }

  @Test(
    "a settings file with a value out of range, or of the wrong type, is a decoding error naming the field")
  func badFilesAreRefused() throws {
    for (json, field) in [
      (#"{"balance": 2}"#, "balance"), (#"{"masterVolume": -0.5}"#, "masterVolume"),
      (#"{"busVolumes": {"music": 1.5}}"#, "music"), (#"{"isMono": "yes"}"#, "isMono"),
      (#"{"dynamicRange": "loud"}"#, "dynamicRange"), (#"{"showsCaptions": 1}"#, "showsCaptions"),
    ] {
      #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(AudioSettings.self, from: Data(json.utf8))
      }
      do {
        _ = try JSONDecoder().decode(AudioSettings.self, from: Data(json.utf8))
      } catch {
        #expect("\(error)".contains(field), "\(error)")
      }
    }
    // Missing fields take their defaults: an older file still loads.
    #expect(try JSONDecoder().decode(AudioSettings.self, from: Data("{}".utf8)) == AudioSettings())
  }
}
