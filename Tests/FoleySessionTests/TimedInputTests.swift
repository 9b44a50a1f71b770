import FoleyAudio
import FoleyCore
import FoleyPlatform
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Input and the audio clock on one host clock, on real SDL (disk driver): events carry SDL's
/// stamp, and the engine says which output frame was heard at an instant.
@MainActor
@Suite("Timed input and the heard clock (disk driver)", .serialized)
struct TimedInputTests {
  @Test(
    "an event pushed is stamped with the instant it was pushed (within 1 ms), however late it is polled, and maps to the frame heard then"
  )
  func pushedEventTimes() throws {
    let session = AudioSession()
    _ = try captureDiskOutput(session: session) { engine, output in
      let pump = EventPump(sceneHeight: 100, session: session)
      #expect(output.waitForMore(seconds: 0.2))
      var errors: [Double] = []
      var frameErrors: [Int] = []
      for index in 0..<20 {
        let pushed = HostTime.now
        try EventPump.push(.keyDown(.space, isRepeat: false))
        // Polled up to 9 ms later, as a game's next frame would: the stamp is the push's.
        Thread.sleep(forTimeInterval: 0.003 * Double(index % 4))
        let polled = pump.poll().filter { $0.event == .keyDown(.space, isRepeat: false) }
        try #require(polled.count == 1)
        errors.append(polled[0].time - pushed)
        let heard = try #require(engine.heardFrame(at: polled[0].time))
        let reference = try #require(engine.heardFrame(at: pushed))
        frameErrors.append(abs(heard - reference))
      }
      #expect(errors.allSatisfy { abs($0) < 0.001 }, "stamp minus push, s: \(errors)")
      #expect(frameErrors.allSatisfy { $0 <= 48 }, "frames apart: \(frameErrors)")
    }
  }

  @Test(
    "the frame heard now is about the last one written; an instant and its frame map back to each other; it keeps the device's rate"
  )
  func heardClock() throws {
    _ = try captureDiskOutput { engine, output in
      #expect(output.waitForMore(seconds: 0.3))
      let buffer = engine.deviceFormat.bufferFrames
      let latency = engine.outputLatency
      #expect(latency.deviceQueueFrames == 0 && latency.bufferFrames == buffer)
      #expect(latency.frames == latency.lookAheadFrames + buffer)
      let firstTime = HostTime.now
      let first = try #require(engine.heardFrame(at: firstTime))
      let firstMixed = engine.audioFrame
      // A stalled callback (a loaded machine) leaves the loop predicting past the last written
      // frame, by the stall: a few buffers.
      #expect(abs(first - firstMixed) <= 4 * buffer, "heard \(first), mixed \(firstMixed)")
      let back = try #require(engine.hostTime(whenHeard: first))
      #expect(abs(back - firstTime) < 1.0 / 48_000 * 2, "\(back - firstTime) s")
      #expect(output.waitForMore(seconds: 1))
      let secondTime = HostTime.now
      let second = try #require(engine.heardFrame(at: secondTime))
      let secondMixed = engine.audioFrame
      // The device's rate, not the nominal one (SDL's disk driver sleeps 10 ms a 10.7 ms buffer).
      let heardRate = Double(second - first) / (secondTime - firstTime)
      let mixedRate = Double(secondMixed - firstMixed) / (secondTime - firstTime)
      #expect(abs(heardRate / mixedRate - 1) < 0.03, "heard \(heardRate) frames/s, mixed \(mixedRate)")
    }
  }
}

extension TimedInputTests {
  @Test(
    "a player tapping 46 ms after each click, and 20 ms after each flash, is calibrated to those delays within 2 ms; applied, a tap maps to its click's heard frame and a flash is drawn 26 ms later"
  )
  func calibration() throws {
    let session = AudioSession()
    _ = try captureDiskOutput(session: session) { engine, output in
      let pump = EventPump(sceneHeight: 100, session: session)
      let click = try engine.sound(
        data: makeFloatWAV(samples: [Float](repeating: 0.5, count: 240), sampleRate: 48_000, channels: 1),
        name: "click.wav")
      #expect(output.waitForMore(seconds: 0.2))
      // A click every 0.25 s, each heard at a known instant; the player taps `late` after it.
      @MainActor func pass(late: Double, sounding: Bool) throws -> (LatencyCalibration, [AudioFrame]) {
        var calibration = LatencyCalibration()
        var heard: [AudioFrame] = []
        for _ in 0..<12 {
          let frame = engine.audioFrame + 6_000
          if sounding { _ = engine.play(click, start: .frame(frame)) }
          let cue = try #require(engine.hostTime(whenHeard: engine.heardFrame(of: frame)))
          calibration.cue(at: cue)
          heard.append(engine.heardFrame(of: frame))
          let tapAt = cue + late
          while HostTime.now < tapAt { Thread.sleep(forTimeInterval: 0.0002) }
          try EventPump.push(.keyDown(.space, isRepeat: false))
          Thread.sleep(forTimeInterval: 0.25 - late)
          for polled in pump.poll() where polled.event == .keyDown(.space, isRepeat: false) {
            calibration.tap(at: polled.time)
          }
        }
        return (calibration, heard)
      }
      let (clicks, heard) = try pass(late: 0.046, sounding: true)
      let (flashes, _) = try pass(late: 0.020, sounding: false)
      let byEar = try #require(
        try? clicks.offset(),
        "taps \(clicks.taps.count), cues \(clicks.cues.count): \(zip(clicks.taps, clicks.cues).map { $0 - $1 })"
      )
      #expect(abs(byEar.seconds - 0.046) < 0.002 && byEar.taps == 12, "\(byEar)")
      let offsets = try LatencyOffsets(tappingToClicks: clicks, tappingToFlashes: flashes)
      #expect(abs(offsets.input - 0.020) < 0.002 && abs(offsets.audio - 0.026) < 0.003, "\(offsets)")
      // Applied: the flash for a frame is drawn the sound's delay later; a tap at the player's
      // delay after its click maps back to the click.
      // The clock's fit moves with each buffer; a busy machine can put one between two readings,
      // so the readings are taken again (offsets off, then on) until none fell between them.
      let frame = heard.last! + 48_000
      var readings: [(shift: Double, mapped: Int)] = []
      for _ in 0..<5 {
        var settings = engine.settings
        settings.latencyOffsets = LatencyOffsets()
        engine.apply(settings)
        let before = try #require(engine.hostTime(whenHeard: frame))
        settings.latencyOffsets = offsets
        engine.apply(settings)
        #expect(engine.settings.latencyOffsets == offsets)
        let after = try #require(engine.hostTime(whenHeard: frame))
        let mapped = try #require(engine.heardFrame(at: before + byEar.seconds))
        readings.append((after - before, mapped - frame))
        if abs((after - before) - offsets.audio) < 1e-6 && abs(mapped - frame) <= 2 { break }
      }
      let last = try #require(readings.last)
      #expect(
        abs(last.shift - offsets.audio) < 1e-6, "shifted by \(readings.map(\.shift)) for \(offsets.audio)")
      #expect(abs(last.mapped) <= 2, "tap maps \(readings.map(\.mapped)) frames from its click")
    }
  }
}
