import ArgumentParser
import Foley
import Foundation

/// `foley-demo loudness FILE…`: each file's integrated loudness, loudness range and true peak
/// (ITU-R BS.1770 / EBU R128, measured with libebur128 on the decoded sound), and with
/// `--target LUFS` the gain that normalisation would apply.
struct LoudnessCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "loudness",
    abstract: "Measure sound files' loudness (LUFS), loudness range (LU) and true peak (dBTP).",
    discussion: """
      Each file is decoded as the engine decodes it (any format Foley reads) and measured on its \
      own channels. A file that cannot be read gets one line on standard error and the exit \
      status is 1.
      """)

  @Argument(help: "Sound files.")
  var files: [String]

  @Option(
    parsing: .unconditional,
    help: "Also print the gain that brings each file to this loudness (true peak held at -1 dBTP).")
  var target: Double?

  func validate() throws {
    if let target, !AudioEngine.loudnessTargets.contains(target) {
      throw ValidationError("--target must be between -70 and 0 LUFS")
    }
  }

  @MainActor
  func run() async throws {
    let engine = try AudioEngine.forTool("foley.loudness")
    defer { engine.close() }
    var failures = 0
    for file in files {
      do {
        let sound = try Sound(contentsOf: URL(fileURLWithPath: file), engine: engine)
        var line = "\(file): \(sound.loudness)"
        if let target {
          line += String(format: "; to %.1f LUFS: %+.1f dB", target, sound.loudness.gain(toReach: target))
        }
        print(line)
      } catch {
        failures += 1
        FileHandle.standardError.write(Data("foley-demo: \(file): \(error)\n".utf8))
      }
    }
    if failures > 0 { throw ExitCode(1) }
  }
}
