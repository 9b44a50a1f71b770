import ArgumentParser
import Foley
import FoleyOffline
import Foundation

/// `foley-demo capture summary FILE`: what a capture holds, second by second.
struct CaptureTool: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "capture", abstract: "Look into a capture made with `foley-demo --capture`.",
    subcommands: [Summary.self])

  struct Summary: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print what a capture holds: a JSON line about the whole, then one per second of audio.",
      discussion: """
        The first line names the format, the mix, the sounds and how the capture ended; each next \
        line counts a second's commands by kind ("play", "volume", "stop", …) and names the kinds \
        it holds but cannot replay. A capture cut short is summarised up to its last whole line.
        """)

    @Argument(help: "The capture file.")
    var file: String

    func run() throws {
      let capture: CaptureFile
      do {
        capture = try CaptureFile(contentsOf: URL(fileURLWithPath: file))
      } catch {
        FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
        throw ExitCode(2)
      }
      let header = capture.header
      print(
        Self.json([
          "format": "\(header.format) \(header.version)", "sampleRate": header.sampleRate,
          "bufferFrames": header.bufferFrames, "seconds": (capture.seconds * 1000).rounded() / 1000,
          "commands": capture.records.count, "complete": capture.isComplete,
          "endedBy": capture.endedBy ?? NSNull(),
          "sounds": capture.sounds.values.sorted { $0.id < $1.id }.map(\.name),
          "voicesAtStart": header.voicesAtStart,
        ]))
      var seconds: [Int: [String: Int]] = [:]
      var unsupported: [Int: Set<String>] = [:]
      for record in capture.records {
        let second = Int(record.frame / UInt64(header.sampleRate))
        let kind: String
        switch record.command {
        case .sound: kind = "sound"
        case .play: kind = "play"
        case .volume: kind = "volume"
        case .pan: kind = "pan"
        case .gain: kind = "gain"
        case .place: kind = "place"
        case .shape: kind = "shape"
        case .stop: kind = "stop"
        case .pause: kind = "pause"
        case .resume: kind = "resume"
        case .mix: kind = "mix"
        case .session: kind = "session"
        case .unsupported(let what):
          unsupported[second, default: []].insert(what)
          continue
        case .mark, .end: continue
        }
        seconds[second, default: [:]][kind, default: 0] += 1
      }
      let last = Int(capture.frames / UInt64(header.sampleRate))
      for second in 0...last {
        var line: [String: Any] = ["second": second, "commands": seconds[second] ?? [:]]
        if let kinds = unsupported[second] { line["cannotReplay"] = kinds.sorted() }
        print(Self.json(line))
      }
    }

    static func json(_ object: [String: Any]) -> String {
      let data =
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
      return String(decoding: data, as: UTF8.self)
    }
  }
}
