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
