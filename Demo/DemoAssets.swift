import Foley
import Foundation

/// Where the demo's sounds are: `--assets DIR`, or the first of `./Assets`, `Assets` beside the
/// executable or above it (a SwiftPM build), and the source tree the demo was built from.
enum DemoAssets {
  /// The files the demo plays.
  static let required = ["thud.wav", "blip.wav", "chime.ogg", "ambience.wav", "sounds.json"]

  struct NotFound: Error, CustomStringConvertible {
    let searched: [URL]
    let missing: [String]
    var description: String {
      "the demo's sounds (\(missing.joined(separator: ", "))) are not in "
        + searched.map(\.path).joined(separator: ", ") + "; pass --assets DIR"
    }
  }

  static func locate(_ explicit: String?) throws -> URL {
    let candidates: [URL]
    if let explicit {
      candidates = [URL(fileURLWithPath: explicit, isDirectory: true)]
    } else {
      let sourceTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Assets", isDirectory: true)
      candidates = AudioEngine.defaultAssetRoots + [sourceTree]
    }
    for folder in candidates
    where required.allSatisfy({
      FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
    }) {
      return folder
    }
    let first = candidates[0]
    throw NotFound(
      searched: candidates,
      missing: required.filter {
        !FileManager.default.fileExists(atPath: first.appendingPathComponent($0).path)
      })
  }
}
