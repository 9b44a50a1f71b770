import FoleyCore
import FoleyTestSupport
import Foundation
import Testing

/// The engine's heard clock across fresh processes, on SDL's disk driver: the frame a beat is
/// reported heard on is the frame its click starts on in the file, every run.
@Suite("Heard clock across runs (disk driver)", .serialized)
struct HeardClockRunTests {
  @Test(
    "ten fresh runs of a click track with `music --beats`: every click starts on its reported heard frame, one latency line in all"
  )
  func tenFreshRuns() throws {
    // A click on every beat at 240 bpm (12,000 frames apart) for six beats.
    var samples = [Float](repeating: 0, count: 72_000)
    for beat in 0..<6 { samples[beat * 12_000] = 0.5 }
    let clicks = temporaryFile("clicks.wav")
    let output = temporaryFile("clicks.raw")
    defer {
      try? FileManager.default.removeItem(at: clicks)
      try? FileManager.default.removeItem(at: output)
    }
    try makeFloatWAV(samples: samples, sampleRate: 48_000, channels: 1).write(to: clicks)
    var latencyLines: Set<String> = []
    for run in 0..<10 {
      let result = try runDemoCommand(
        ["music", clicks.path, "--tempo", "240", "--beats"],
        environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": output.path])
      #expect(result.status == 0, "\(result.errors)")
      let lines = result.output.split(separator: "\n").map(String.init)
      let objects = lines.compactMap { line -> [String: Any]? in
        guard line.hasPrefix("{") else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      }
      latencyLines.formUnion(lines.filter { $0.hasPrefix(#"{"latencyFrames""#) })
      let heard = objects.compactMap { $0["heardFrame"] as? Int }
      let frames = objects.compactMap { $0["frame"] as? Int }
      try #require(heard.count == 6, "run \(run): \(result.output)")
      // The look-ahead apart from its frame, the same in every run.
      #expect(Set(zip(heard, frames).map { $0 - $1 }).count == 1)
      let left = try DiskCapture(contentsOf: output, format: .float32).left.samples
      let onsets = left.indices.filter { left[$0] != 0 && ($0 == 0 || left[$0 - 1] == 0) }
      #expect(onsets == heard, "run \(run): clicks at \(onsets), reported \(heard)")
    }
    #expect(latencyLines.count == 1, "\(latencyLines)")
    let latency = try #require(latencyLines.first)
    #expect(
      latency.contains(#""latencyFrames": 608"#) && latency.contains(#""lookAheadFrames": 96"#), "\(latency)")
  }
}
