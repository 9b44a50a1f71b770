import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// A stinger due while the session is paused, on real SDL (disk driver): after the resume it lands
/// on its place in the music, to the sample, however long the music took to fall silent.
@MainActor
@Suite("Music through a pause (disk driver)", .serialized)
struct MusicPauseTests {
  @Test(
    "a stinger due on the next bar inside a focus-loss pause is heard on that bar's click after the resume, to the sample, whether it reached the mixer before the pause began or after",
    arguments: [true, false])
  func stingerThroughPause(reachesMixerFirst: Bool) throws {
    // A click on every beat at 240 bpm (12,000 frames apart) for 10 s.
    var samples = [Float](repeating: 0, count: 480_000)
    for beat in 0..<40 { samples[beat * 12_000] = 0.5 }
    var track = Track(
      data: makeFloatWAV(samples: samples, sampleRate: 48_000, channels: 1), name: "clicks.wav")
    track.tempo = try TempoMap(bpm: 240)
    let session = AudioSession()
    var asked = 0
    var reported = 0
    var lookAhead = 0
    let capture = try captureDiskOutput(session: session) { engine, output in
      lookAhead = engine.outputLatency.lookAheadFrames
      let block = try engine.sound(data: MusicClockTests.block, name: "stinger.wav")
      let music = engine.music
      music.play(track)
      #expect(waitUntil { (music.currentTime ?? 0) > 0.3 })
      // The next bar is up to a second away; the pause begins at once and lasts longer.
      asked = try #require(music.frame(of: .nextBar)).index
      let voice: Voice
      if reachesMixerFirst {
        voice = try music.playStinger(block, at: .nextBar)
        #expect(waitUntil { voice.state == .playing })
        session.beginInterruption()
      } else {
        // Asked for while the game still runs and paused at once: its request mostly reaches the
        // mixer once the session is paused, and waits with the rest instead of being dropped.
        voice = try music.playStinger(block, at: .nextBar)
        session.beginInterruption()
      }
      #expect(output.waitForMore(seconds: 1.3))
      session.endInterruption(shouldResume: true)
      #expect(waitUntil { voice.isFinished })
      reported = voice.startFrame?.index ?? -1
      #expect(engine.statistics.suppressed == 0)
      music.stop()
    }
    let left = capture.left.samples
    // The stinger's block (0.125, or 0.625 on a click) and the clicks after the resume.
    let stinger = try #require(
      left.firstIndex { abs($0 - 0.125) < 1e-4 || abs($0 - 0.625) < 1e-4 },
      "asked \(asked), reported \(reported), heard \(left.indices.filter { left[$0] != 0 }.prefix(40)) of \(left.count)"
    )
    #expect(stinger == reported + lookAhead, "heard at \(stinger), reported \(reported) + \(lookAhead)")
    #expect(reported > asked, "moved past the pause: asked \(asked), reported \(reported)")
    #expect(
      abs(left[stinger] - 0.625) < 1e-4,
      "on a click: \(left[stinger]) at \(stinger), clicks \(left.indices.filter { left[$0] == 0.5 || left[$0] == 0.625 })"
    )
  }
}
