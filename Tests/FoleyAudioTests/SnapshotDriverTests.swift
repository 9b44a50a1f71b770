import FoleyAudio
import FoleyCore
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// A snapshot whose intensity follows a game parameter through a curve, read back from SDL's
/// disk driver.
@MainActor
@Suite("Snapshots driven by a parameter (disk driver)", .serialized)
struct SnapshotDriverTests {
  @Test("a -12 dB snapshot on the music bus follows its parameter: 0, -6 and -12 dB; released it lets go")
  func snapshotFollowsItsParameter() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var ranges: [Range<Int>] = []
    let capture = try captureDiskOutput { engine, output in
      try engine.defineParameter("danger", range: 0...1, default: 0)
      var snapshot = MixSnapshot("danger", buses: [.music: .init(volumeDecibels: -12)])
      snapshot.driver = MixSnapshot.Driver(parameter: "danger", curve: try ParameterCurve([(0, 0), (1, 1)]))
      try engine.defineSnapshot(snapshot)
      #expect(engine.activeSnapshots == ["danger": 1])
      var settings = SoundSettings()
      settings.category = .music
      let voice = engine.play(try Sound(data: dc, engine: engine, settings: settings), loops: -1)
      func measure() {
        #expect(output.waitForMore(seconds: 0.15))
        let from = output.framesWritten
        #expect(output.waitForMore(seconds: 0.1))
        ranges.append(from..<output.framesWritten)
      }
      #expect(waitUntil { voice.isPlaying })
      measure()
      try engine.setParameter("danger", to: 0.5)
      measure()
      try engine.setParameter("danger", to: 1)
      measure()
      try engine.releaseSnapshot("danger")
      measure()
      voice.stop()
      #expect(waitUntil { voice.isFinished })
    }
    let full = Double(TweenOutputTests.level)
    let heard = ranges.map { 20 * log10(capture.left.rms(in: $0) / full) }
    for (level, meant) in zip(heard, [0.0, -6, -12, 0]) {
      #expect(abs(level - meant) < 0.1, "heard \(level) dB, meant \(meant) dB (all: \(heard))")
    }
  }

  @Test("a driver naming no parameter, or a curve beyond 0…1, is refused and changes nothing")
  func badDriversAreRefused() throws {
    let engine = try AudioEngine(embedded: EmbeddedMixer(), session: AudioSession())
    defer { engine.close() }
    try engine.defineParameter("danger", range: 0...1, default: 0)
    var unknown = MixSnapshot("danger", buses: [.music: .init(volumeDecibels: -6)])
    unknown.driver = MixSnapshot.Driver(parameter: "dangr", curve: try ParameterCurve([(0, 0), (1, 1)]))
    #expect(throws: ParameterError.unknownParameter("dangr", suggestion: "danger")) {
      try engine.defineSnapshot(unknown)
    }
    var steep = unknown
    steep.driver = MixSnapshot.Driver(parameter: "danger", curve: try ParameterCurve([(0, 0), (1, 2)]))
    #expect(throws: ParameterError.self) { try engine.defineSnapshot(steep) }
    #expect(engine.snapshots.isEmpty)
  }
}

/// A voice's own value of a game parameter, read back from SDL's disk driver.
@MainActor
@Suite("Per-voice parameters (disk driver)", .serialized)
struct VoiceParameterTests {
  @Test(
    "two voices follow one parameter's curve: one set on its own holds there while the other follows the engine"
  )
  func voicesKeepTheirOwnValue() throws {
    let dc = makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5)
    var ranges: [Range<Int>] = []
    let capture = try captureDiskOutput { engine, output in
      try engine.defineParameter("rpm", range: 0...1, default: 0)
      let sound = try engine.sound(data: dc)
      let curve = try ParameterCurve([(0, -20), (1, 0)])
      let own = engine.play(sound, pan: -1, loops: -1)
      let shared = engine.play(sound, pan: 1, loops: -1)
      try own.setModulators([.parameter("rpm", curve: curve)])
      try shared.setModulators([.parameter("rpm", curve: curve)])
      try own.setParameter("rpm", to: 1)
      #expect(own.parameter("rpm") == 1 && shared.parameter("rpm") == nil)
      #expect(throws: ParameterError.unknownParameter("rmp", suggestion: "rpm")) {
        try own.setParameter("rmp", to: 1)
      }
      func measure() {
        #expect(output.waitForMore(seconds: 0.15))
        let from = output.framesWritten
        #expect(output.waitForMore(seconds: 0.1))
        ranges.append(from..<output.framesWritten)
      }
      #expect(waitUntil { own.isPlaying && shared.isPlaying })
      measure()
      try engine.setParameter("rpm", to: 0.5)
      measure()
      try own.setParameter("rpm", to: 0.25, tween: 0.05)
      measure()
      own.stop()
      shared.stop()
      #expect(waitUntil { own.isFinished && shared.isFinished })
    }
    let full = Double(TweenOutputTests.level)
    func decibels(_ signal: Signal, _ range: Range<Int>) -> Double {
      20 * log10(signal.rms(in: range) / full)
    }
    let own = ranges.map { decibels(capture.left, $0) }
    let shared = ranges.map { decibels(capture.right, $0) }
    for (heard, meant) in zip(own, [0.0, 0, -15]) {
      #expect(
        abs(heard - meant) < 0.1, "the voice with its own value: \(heard) dB, meant \(meant) (all: \(own))")
    }
    for (heard, meant) in zip(shared, [-20.0, -10, -10]) {
      #expect(
        abs(heard - meant) < 0.1,
        "the voice following the engine: \(heard) dB, meant \(meant) (all: \(shared))")
    }
  }
}
