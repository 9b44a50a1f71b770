import ArgumentParser
import Foley
import Foundation
import Logging

/// `foley-demo loudness FILE…`: each file's integrated loudness, loudness range and true peak
/// (ITU-R BS.1770 / EBU R128, measured with libebur128), and with `--target LUFS` the gain that
/// normalisation would apply. No audio device is opened: the engine runs on an embedded mixer.
/// A sound is measured as the engine decodes it; a file longer than a sound may be (a music
/// track) is streamed through the music's check instead, in constant memory, whatever its length.
struct LoudnessCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "loudness",
    abstract: "Measure sound files' loudness (LUFS), loudness range (LU) and true peak (dBTP).",
    discussion: """
      Each file is decoded as the engine decodes it (any format Foley reads) and measured on its \
      own channels; a file too long to decode whole (music) is streamed and measured on the way. \
      No audio device is opened. A file that cannot be read gets one line on standard error and \
      the exit status is 1.
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
    var logger = Logger(label: "foley.loudness")
    logger.logLevel = .critical  // a file that fails gets its own line below
    let engine = try AudioEngine(embedded: EmbeddedMixer(), session: AudioSession(), logger: logger)
    defer { engine.close() }
    var failures = 0
    for file in files {
      let url = URL(fileURLWithPath: file)
      do {
        let loudness: Loudness
        do {
          loudness = try Sound(contentsOf: url, engine: engine).loudness
        } catch let error where error.code == .tooLong {
          loudness = try Self.streamedLoudness(of: url, engine: engine)
        }
        var line = "\(file): \(loudness)"
        if let target {
          line += String(format: "; to %.1f LUFS: %+.1f dB", target, loudness.gain(toReach: target))
        }
        print(line)
      } catch {
        failures += 1
        FileHandle.standardError.write(Data("foley-demo: \(file): \(error)\n".utf8))
      }
    }
    if failures > 0 { throw ExitCode(1) }
  }

  /// A track's loudness, measured while the music's check reads it to its end.
  @MainActor
  static func streamedLoudness(of url: URL, engine: AudioEngine) throws(SoundError) -> Loudness {
    let checked = try engine.music.check(Track(url: url))
    guard let loudness = checked.loudness else {
      throw SoundError(
        .noSamples, asset: url.lastPathComponent, message: "its loudness could not be measured")
    }
    return loudness
  }
}
