import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `foley-fuzz`: feeds mutated sound files through Foley's three entry points and reports whether
/// any crashed, hung or bloated the game's process.
///
///     foley-fuzz --count 100000 --seed 7 --corpus Tests/Fixtures --corpus /tmp/seeds --report fuzz.json
///
/// A supervisor runs a worker process (this program with `--worker`) and reads one line per blob;
/// a worker that dies or stops answering marks the blob it was on as a crash or a hang (saved with
/// `--save`), and a new worker carries on from the next blob. Blobs are made from the seed corpus by
/// a seeded generator: the same seed and count give the same run anywhere. Exit status 1 when the
/// game process crashed or hung, or its memory went over `--max-rss-mib`.
@main
struct FoleyFuzz: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "foley-fuzz", abstract: "Fuzz Foley's sound loading with mutated files.")

  @Option(help: "Blobs to try.")
  var count = 2_000

  @Option(help: "The run's seed.")
  var seed: UInt64 = 1

  @Option(help: "A folder (or file) of seed sounds; repeat for more.")
  var corpus: [String] = []

  @Option(help: "Write the figures as JSON here.")
  var report: String?

  @Option(help: "Save blobs that crashed or hung the game process in this folder.")
  var save: String?

  @Option(help: "Seconds one blob may take before the worker counts as hung.")
  var hangAfter: Double = 30

  @Option(help: "The most resident memory the game process may reach, in MiB.")
  var maxRssMib = 512

  @Flag(help: "Decode in the game's own process (no child process): to see what isolation prevents.")
  var inProcess = false

  @Option(
    help:
      "What the blobs go through: sounds (the three sound entry points), music (a track played with loops and seeks), repair (WAVFile.info and repair), maps (a sound map built and posted), scripts (a demo script parsed and its events pushed to SDL)."
  )
  var target: FuzzTarget = .sounds

  @Flag(help: .hidden)
  var worker = false

  @Option(help: .hidden)
  var start = 0

  mutating func run() throws {
    let seeds = try loadSeeds()
    let mutator = Mutator(seeds: seeds, runSeed: seed)
    if worker {
      try MainActor.assumeIsolated {
        try FuzzWorker.run(
          mutator: mutator, start: start, count: count, isolated: !inProcess, target: target,
          folder: corpus.first.map { URL(fileURLWithPath: $0) })
      }
      return
    }
    let figures = try Supervisor(
      mutator: mutator, count: count, arguments: workerArguments, hangAfter: hangAfter, saveFolder: save
    ).run()
    print(figures.summary(seeds: seeds.count))
    if let report {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(figures).write(to: URL(fileURLWithPath: report))
    }
    // A broken promise (repair changed a whole file, or turned chunks into samples) fails the run.
    let violations = figures.outcomes.filter { $0.key.hasPrefix("violation") }.values.reduce(0, +)
    if !figures.crashes.isEmpty || !figures.hangs.isEmpty || figures.peakRSSKiB > maxRssMib * 1_024
      || violations > 0
    {
      throw ExitCode(1)
    }
  }

  private var workerArguments: [String] {
    var arguments =
      ["--worker", "--seed", "\(seed)", "--target", target.rawValue] + corpus.flatMap { ["--corpus", $0] }
    if inProcess { arguments.append("--in-process") }
    return arguments
  }

  private func loadSeeds() throws -> [Data] {
    var files: [URL] = []
    for path in corpus {
      let url = URL(fileURLWithPath: path)
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
        throw ValidationError("no such corpus: \(path)")
      }
      if isFolder.boolValue {
        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        files += names.map { url.appendingPathComponent($0) }
      } else {
        files.append(url)
      }
    }
    let seeds = try files.map { try Data(contentsOf: $0) }.filter { !$0.isEmpty }
    guard !seeds.isEmpty else { throw ValidationError("the corpus is empty: give --corpus DIR") }
    return seeds
  }
}

/// What a fuzz run feeds its blobs through.
enum FuzzTarget: String, ExpressibleByArgument, Codable {
  case sounds, music, repair, maps, scripts
}
