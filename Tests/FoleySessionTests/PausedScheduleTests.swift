import FoleyAudio
import FoleyCore
import FoleyPlatform
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Starts scheduled on a frame, through a focus-loss pause, on real SDL (disk driver).
@MainActor
@Suite("Scheduled starts through a pause (disk driver)", .serialized)
struct PausedScheduleTests {
  @Test(
    "a start scheduled for a frame inside a focus-loss pause is heard after the resume, as late as the pause was long, on the frame it reports"
  )
  func startInsidePause() throws {
    let block = makeFloatWAV(samples: [Float](repeating: 0.25, count: 4_800), sampleRate: 48_000, channels: 1)
    let session = AudioSession()
    var asked = 0
    var reported = 0
    var paused = 0
    var resumed = 0
    var lookAhead = 0
    let capture = try captureDiskOutput(session: session) { engine, output in
      let pump = EventPump(sceneHeight: 100, session: session)
      lookAhead = engine.outputLatency.lookAheadFrames
      let sound = try engine.sound(data: block, name: "block.wav")
      #expect(output.waitForMore(seconds: 0.2))
      let start = engine.audioFrame + engine.frames(forSeconds: 0.3)
      asked = start.index
      let voice = engine.play(sound, start: .frame(start))
      try EventPump.push(.windowFocusLost)
      _ = pump.poll()
      paused = engine.audioFrame.index
      #expect(waitUntil { engine.audioFrame.index > start.index + 24_000 })
      try EventPump.push(.windowFocusGained)
      _ = pump.poll()
      resumed = engine.audioFrame.index
      #expect(waitUntil { voice.isFinished })
      reported = voice.startFrame?.index ?? -1
      #expect(engine.statistics.suppressed == 0)
    }
    let left = capture.left.samples
    let onset = try #require(left.firstIndex { $0 != 0 }, "never heard")
    #expect(onset == reported + lookAhead, "heard at \(onset), reported \(reported) + \(lookAhead)")
    // Moved by the pause's length (as the queue saw it, within a buffer either way).
    let moved = reported - asked
    #expect(abs(moved - (resumed - paused)) <= 1_024, "moved \(moved), paused for \(resumed - paused)")
    #expect(left[onset + 2_400] == 0.25)
  }
}
