import FoleyTestSupport
import Foundation
import Testing

/// `foley-demo render --rollback-test SEED OUT.wav --truth TRUTH.wav`: a match through a simulated
/// rollback netcode, heard against the confirmed timeline alone.
@Suite("The rollback match, heard against its truth")
struct RollbackCommandTests {
  struct Rollback: Decodable {
    var rollback: Int
    var atFrame: Int
    var toFrame: Int
  }

  @Test(
    "once a rollback is reconciled the output is the truth: no double, no miss, no click",
    arguments: [3, 41, 2026])
  func heardIsTheTruth(seed: Int) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-rollback-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let heardURL = folder.appendingPathComponent("heard.wav")
    let truthURL = folder.appendingPathComponent("truth.wav")
    let run = try runDemoCommand([
      "render", "--rollback-test", "\(seed)", heardURL.path, "--truth", truthURL.path,
    ])
    #expect(run.status == 0, "\(run.errors)")
    let rollbacks = try run.output.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
      try JSONDecoder().decode(Rollback.self, from: Data($0.utf8))
    }
    // Several a second over the 30 s match, from 1 to 8 frames back.
    #expect(rollbacks.count > 40, "\(rollbacks.count) rollbacks")
    #expect(rollbacks.allSatisfy { (1...16).contains($0.atFrame - $0.toFrame) })
    let guessed = try #require(run.output.firstMatch(of: /(\d+) of (\d+) predicted frames guessed wrong/))
    let wrongShare = Double(guessed.1)! / Double(guessed.2)!
    #expect(wrongShare > 0.12 && wrongShare < 0.3, "\(wrongShare) of the guesses wrong")

    let heard = try floatSamples(ofWAV: heardURL)
    let truth = try floatSamples(ofWAV: truthURL)
    #expect(heard.count == truth.count && truth.count == 2 * 30 * 48_000)
    let peak = truth.map(abs).max() ?? 0
    #expect(peak > 0.2 && peak < 1)

    // Stereo frames where a misprediction may be heard: from the frame the next rollback goes
    // back to (its first wrong guess) until 150 ms after it reconciles.
    var unsettled = Array(repeating: false, count: truth.count / 2)
    for rollback in rollbacks {
      let from = rollback.toFrame * 800
      let to = min(unsettled.count, rollback.atFrame * 800 + 7_200)
      if from < to { for frame in from..<to { unsettled[frame] = true } }
    }
    // Settled, the very samples of the truth: below -60 dB of its peak.
    var worst: Float = 0
    var settled = 0
    for frame in unsettled.indices where !unsettled[frame] {
      settled += 1
      worst = max(
        worst, abs(heard[2 * frame] - truth[2 * frame]), abs(heard[2 * frame + 1] - truth[2 * frame + 1]))
    }
    #expect(settled > 30 * 48_000 / 3, "\(settled) frames settled")
    #expect(
      worst < peak / 1_000,
      "settled, the heard output is \(20 * log10(worst / peak)) dB of the peak off the truth")

    // No click anywhere: no step between neighbouring samples beyond the truth's own largest.
    func largestStep(_ samples: [Float]) -> Float {
      stride(from: 2, to: samples.count, by: 1).reduce(0) { max($0, abs(samples[$1] - samples[$1 - 2])) }
    }
    #expect(largestStep(heard) <= largestStep(truth) + 1e-6)

    // No doubled and no missing sound once settled: every 50 ms stretch wholly settled is within
    // 3 dB of the truth wherever the truth is audible.
    let window = 2_400
    for start in stride(from: 0, to: unsettled.count - window, by: window)
    where !unsettled[start..<(start + window)].contains(true) {
      let range = (2 * start)..<(2 * (start + window))
      let heardLevel = (heard[range].reduce(0) { $0 + $1 * $1 }).squareRoot()
      let truthLevel = (truth[range].reduce(0) { $0 + $1 * $1 }).squareRoot()
      guard truthLevel > peak * 0.05 else { continue }
      #expect(abs(20 * log10(heardLevel / truthLevel)) < 3, "the 50 ms from \(start)")
    }
  }

  @Test("the same seed renders the same bytes, and a bad seed or file is refused")
  func deterministicAndRefused() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-rollback-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = try runDemoCommand([
      "render", "--rollback-test", "9", "--seconds", "5", folder.appendingPathComponent("a.wav").path,
    ])
    let second = try runDemoCommand([
      "render", "--rollback-test", "9", "--seconds", "5", folder.appendingPathComponent("b.wav").path,
    ])
    let hashes = [first, second].map {
      $0.output.firstMatch(of: /sha256 ([0-9a-f]{64})/).map { String($0.1) }
    }
    #expect(hashes[0] != nil && hashes[0] == hashes[1])
    let notASeed = try runDemoCommand([
      "render", "--rollback-test", "seven", folder.appendingPathComponent("c.wav").path,
    ])
    #expect(notASeed.status != 0)
    let truthAlone = try runDemoCommand([
      "render", "--truth", "t.wav", "--tour", folder.appendingPathComponent("d.wav").path,
    ])
    #expect(truthAlone.status != 0 && truthAlone.errors.contains("--truth goes with --rollback-test"))
  }
}
