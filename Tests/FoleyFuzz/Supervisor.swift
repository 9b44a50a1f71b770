import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a fuzz run found.
struct FuzzFigures: Codable {
  var blobs = 0
  /// Blobs that killed the game's process (a worker), by index.
  var crashes: [Int] = []
  /// Blobs on which the game's process stopped answering.
  var hangs: [Int] = []
  /// Blobs that crashed, or outlasted, a decoder in its child process: contained, the game went on.
  var contained: [Int] = []
  /// How each entry point's loads ended: "ok", or the `SoundError` code.
  var outcomes: [String: Int] = [:]
  /// The game process's peak resident memory, and the largest decoder child's.
  var peakRSSKiB = 0
  var peakDecoderRSSKiB = 0
  var seconds = 0.0

  func summary(seeds: Int) -> String {
    let list = outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    return """
      foley-fuzz: \(blobs) blobs from \(seeds) seeds in \(String(format: "%.1f", seconds)) s
      foley-fuzz: game-process crashes \(crashes.count)\(crashes.isEmpty ? "" : " \(crashes.prefix(20))"), \
      hangs \(hangs.count)\(hangs.isEmpty ? "" : " \(hangs.prefix(20))"); \
      decoder crashes or timeouts contained in the child \(contained.count)
      foley-fuzz: peak RSS \(peakRSSKiB / 1_024) MiB (game), \(peakDecoderRSSKiB / 1_024) MiB (largest decoder child)
      foley-fuzz: outcomes (three entry points per blob): \(list)
      """
  }
}

/// Runs workers over the blobs, restarting after a crash or a hang.
struct Supervisor {
  let mutator: Mutator
  let count: Int
  let arguments: [String]
  let hangAfter: Double
  let saveFolder: String?

  func run() throws -> FuzzFigures {
    var figures = FuzzFigures()
    let began = Date()
    var next = 0
    while next < count {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      process.arguments = arguments + ["--start", "\(next)", "--count", "\(count - next)"]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      var reader = LineReader(fileDescriptor: output.fileHandleForReading.fileDescriptor)
      var current: Int?
      var hung = false
      while let line = reader.next(timeout: hangAfter) {
        let fields = line.split(separator: " ")
        switch fields.first {
        case "start": current = Int(fields[1])
        case "end":
          current = nil
          next = (Int(fields[1]) ?? next) + 1
          figures.blobs += 1
          let outcomes = fields[2].split(separator: ",")
          for outcome in outcomes { figures.outcomes[String(outcome), default: 0] += 1 }
          if let index = Int(fields[1]),
            outcomes.contains("decoderCrashed") || outcomes.contains("decoderTimedOut")
          {
            // Contained in the decoder's child process: the game went on; keep the bytes to look at.
            figures.contained.append(index)
            saveBlob(index, kind: "contained")
          }
        case "progress":
          FileHandle.standardError.write(Data("foley-fuzz: \(fields[1]) blobs…\n".utf8))
        case "rss":
          figures.peakRSSKiB = max(figures.peakRSSKiB, Int(fields[1]) ?? 0)
          figures.peakDecoderRSSKiB = max(figures.peakDecoderRSSKiB, Int(fields[2]) ?? 0)
        default: break
        }
      }
      if reader.timedOut {
        hung = true
        process.terminate()
        kill(process.processIdentifier, SIGKILL)
      }
      process.waitUntilExit()
      guard let blob = current else { continue }  // finished (or died between blobs)
      if hung { figures.hangs.append(blob) } else { figures.crashes.append(blob) }
      figures.blobs += 1
      saveBlob(blob, kind: hung ? "hang" : "crash")
      next = blob + 1
    }
    figures.seconds = Date().timeIntervalSince(began)
    return figures
  }

  private func saveBlob(_ index: Int, kind: String) {
    guard let saveFolder else { return }
    try? FileManager.default.createDirectory(atPath: saveFolder, withIntermediateDirectories: true)
    let (seed, bytes) = mutator.blob(index)
    try? bytes.write(
      to: URL(fileURLWithPath: saveFolder).appendingPathComponent("\(kind)-\(index)-seed\(seed).bin"))
  }
}

/// Lines from a pipe, each awaited with a timeout.
struct LineReader {
  let fileDescriptor: Int32
  private var buffer: [UInt8] = []
  private(set) var timedOut = false
  private var ended = false

  init(fileDescriptor: Int32) {
    self.fileDescriptor = fileDescriptor
  }

  mutating func next(timeout: Double) -> String? {
    while true {
      if let newline = buffer.firstIndex(of: 10) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      guard !ended else { return nil }
      var watch = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&watch, 1, Int32(timeout * 1_000))
      if ready == 0 {
        timedOut = true
        return nil
      }
      if ready < 0 {
        if errno == EINTR { continue }
        return nil
      }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let got = read(fileDescriptor, &chunk, chunk.count)
      if got <= 0 {
        ended = true
        continue
      }
      buffer += chunk[..<got]
    }
  }
}
