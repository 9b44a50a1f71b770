import FoleyAudio
import FoleyCore
import Foundation
import Testing

/// A calibration's arithmetic: pairing taps with cues, the median, and what it refuses.
@Suite("Latency calibration")
struct LatencyCalibrationTests {
  static let start = HostTime(nanoseconds: 10_000_000_000)

  static func pass(offsets: [Double], every gap: Double = 0.5) -> LatencyCalibration {
    var calibration = LatencyCalibration()
    for (index, offset) in offsets.enumerated() {
      let cue = start + Double(index) * gap
      calibration.cue(at: cue)
      calibration.tap(at: cue + offset)
    }
    return calibration
  }

  @Test(
    "the median of each tap's distance to its nearest cue; a tap far from every cue, or a missed one, is left out"
  )
  func median() throws {
    var calibration = Self.pass(offsets: [0.040, 0.050, 0.046, 0.044, 0.048, 0.047, 0.045, 0.049, 0.046])
    // A stray tap between two cues, and a cue with no tap.
    calibration.tap(at: Self.start + 0.25)
    calibration.cue(at: Self.start + 100)
    let measured = try calibration.offset()
    #expect(measured.taps == 9)
    #expect(abs(measured.seconds - 0.046) < 1e-9)
    #expect(abs(measured.spread - 0.002) < 1e-9)
    // Early taps are a negative offset.
    #expect(
      abs(try Self.pass(offsets: [Double](repeating: -0.030, count: 8)).offset().seconds + 0.030) < 1e-9)
  }

  @Test("a pair of cues closer than the rest does not narrow the window the other taps are paired in")
  func oneClosePair() throws {
    var calibration = Self.pass(offsets: [Double](repeating: 0.046, count: 10))
    // A cue 20 ms after another: with half the shortest gap as the window, no tap would count.
    calibration.cue(at: Self.start + 4.02)
    let measured = try calibration.offset()
    #expect(measured.taps == 10 && abs(measured.seconds - 0.046) < 1e-9, "\(measured)")
  }

  @Test("too few taps, taps too uneven, an offset past half a second: each a typed error that says why")
  func refusals() throws {
    let few = #expect(throws: CalibrationError.self) { try Self.pass(offsets: [0.04, 0.04, 0.04]).offset() }
    #expect(few == .tooFewTaps(matched: 3, needed: 8))
    #expect(few?.description == "only 3 taps fell near a cue; 8 are needed")
    let uneven = #expect(throws: CalibrationError.self) {
      try Self.pass(offsets: [0.0, 0.1, -0.1, 0.12, -0.12, 0.1, 0.0, -0.1]).offset()
    }
    #expect(uneven == .tooScattered(spread: 0.1))
    // Cues two seconds apart let a tap 0.7 s late pair; the offset is then refused.
    let late = Self.pass(offsets: [Double](repeating: 0.7, count: 8), every: 2)
    #expect(throws: CalibrationError.self) { try late.offset() }
    let tooLate = Self.pass(offsets: [Double](repeating: 0.45, count: 8), every: 2)
    let early = Self.pass(offsets: [Double](repeating: -0.1, count: 8), every: 2)
    let error = #expect(throws: CalibrationError.self) {
      try LatencyOffsets(tappingToClicks: tooLate, tappingToFlashes: early)
    }
    #expect(error == .outOfRange(seconds: 0.55))
  }

  @Test("clicks and flashes: the flashes give the input's delay, the rest is the sound's")
  func clicksAndFlashes() throws {
    let clicks = Self.pass(offsets: [Double](repeating: 0.060, count: 8))
    let flashes = Self.pass(offsets: [Double](repeating: 0.025, count: 8))
    let both = try LatencyOffsets(tappingToClicks: clicks, tappingToFlashes: flashes)
    #expect(abs(both.audio - 0.035) < 1e-9 && abs(both.input - 0.025) < 1e-9)
    let byEar = try LatencyOffsets(tappingToClicks: clicks)
    #expect(byEar.audio == 0 && abs(byEar.input - 0.060) < 1e-9)
  }

  @Test(
    "in settings JSON the offsets round-trip; one out of range or not a number is refused by name; in code it is clamped"
  )
  func settings() throws {
    var settings = AudioSettings()
    settings.latencyOffsets = LatencyOffsets(audio: 0.03, input: -0.01)
    let data = try JSONEncoder().encode(settings)
    #expect(try JSONDecoder().decode(AudioSettings.self, from: data) == settings)
    #expect(
      try JSONDecoder().decode(AudioSettings.self, from: Data("{}".utf8)).latencyOffsets == LatencyOffsets())
    for bad in [#"{"latencyOffsets": {"audio": 0.6}}"#, #"{"latencyOffsets": {"input": -2}}"#] {
      let error = #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(AudioSettings.self, from: Data(bad.utf8))
      }
      guard case .dataCorrupted(let context)? = error else {
        Issue.record("\(String(describing: error))")
        continue
      }
      #expect(context.debugDescription.contains("is not in -0.5…0.5"))
    }
    #expect(LatencyOffsets(audio: .nan, input: 9) == LatencyOffsets(audio: 0, input: 0.5))
  }
}
