import FoleySoundMap
import Foundation
import Testing

/// The JSON Schema for sound maps (Schemas/sound-map.schema.json), kept true: every map in the
/// repository conforms, and the maps the parser refuses are refused by the schema too, where a
/// schema can say the rule. Checked with python3-jsonschema (`Scripts/check-sound-maps.py`),
/// which `Scripts/test.sh` installs.
@Suite("Sound map schema")
struct SoundMapSchemaTests {
  static var validatorInstalled: Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import jsonschema"]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  /// Each map's schema errors, in the order given.
  static func schemaErrors(_ maps: [String]) throws -> [[String]] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-schema-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let files = try maps.enumerated().map { index, map in
      let file = folder.appendingPathComponent("\(index).json")
      try Data(map.utf8).write(to: file)
      return file.path
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      ["python3", ReadmeTests.root.appendingPathComponent("Scripts/check-sound-maps.py").path] + files
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    struct Line: Decodable { var errors: [String] }
    return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
      try JSONDecoder().decode(Line.self, from: Data($0.utf8)).errors
    }
  }

  @Test(
    "every sound map in the repository, and every map block of the README and the articles, conforms to the schema",
    .enabled(if: validatorInstalled, "python3-jsonschema is not installed (Scripts/test.sh installs it)"))
  func repositoryMapsConform() throws {
    let asset = try String(
      contentsOf: ReadmeTests.root.appendingPathComponent("Assets/sounds.json"), encoding: .utf8)
    #expect(asset.contains(#""$schema": "../Schemas/sound-map.schema.json""#))
    let blocks =
      try ReadmeTests.blocks("json")
      + ReadmeTests.articles().flatMap { ReadmeTests.blocks("json", in: $0.text) }
    let maps =
      [asset]
      + blocks.map { block in
        let trimmed = block.trimmingCharacters(in: .whitespacesAndNewlines)
        // A `mix` section is shown on its own: it goes into a map around it.
        return trimmed.hasPrefix("\"mix\"")
          ? #"{ "version": 1, "events": { "x": { "play": "a.wav" } }, "# + trimmed + " }" : trimmed
      }
    let errors = try Self.schemaErrors(maps)
    #expect(errors.count == maps.count)
    for (map, found) in zip(maps, errors) { #expect(found.isEmpty, "\(found)\n\(map.prefix(300))") }
  }

  /// Maps the parser refuses, each with whether the schema can say why.
  static let refused: [(map: String, schemaCan: Bool)] = [
    (#"{ "version": 2, "events": { "a": { "play": "a.wav" } } }"#, true),
    (#"{ "events": { "a": { "play": "a.wav" } } }"#, true),
    (#"{ "$schema": 3, "version": 1, "events": { "a": { "play": "a.wav" } } }"#, true),
    (#"{ "version": 1 }"#, true),
    (#"{ "version": 1, "evnets": {}, "events": { "a": { "play": "a.wav" } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "volumDb": -3 } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "file": "b.wav" } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "volumeDb": -3 } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "volumeDb": 3 } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "pitchSemitones": [0, 30] } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "delay": [0, 0.1, 0.2] } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "maxInstances": 0 } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "maxInstances": 1.5 } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "steal": "newest" } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "positional": "yes" } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "random": [] } } }"#, true),
    (
      #"{ "version": 1, "events": { "a": { "random": ["a.wav", "b.wav", "c.wav"], "avoidRepeat": 1, "shuffle": true } } }"#,
      true
    ),
    (#"{ "version": 1, "events": { "a": { "sequence": ["a.wav"], "mode": "loop" } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "sequence": ["a.wav"], "avoidRepeat": 1 } } }"#, true),
    (#"{ "version": 1, "events": { "a": { "switch": { "cases": { "x": "a.wav" } } } } }"#, true),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "caption": "\#(String(repeating: "x", count: 201))" } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "caption": { "text": "Hum", "category": "noise" } } } }"#,
      true
    ),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "rumble": 2 } } }"#, true),
    (
      #"{ "version": 1, "events": { "a": { "stop": "b", "volumeDb": -3 }, "b": { "play": "a.wav" } } }"#, true
    ),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav" } }, "mix": { "reverb": "church" } }"#, true),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav" } }, "mix": { "buses": { "master": { "volumeDb": -3 } } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav" } }, "mix": { "buses": { "sfx": { "effects": [{ "type": "lowpass", "frequency": 500 }] } } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": {}, "music": { "tracks": { "t": { "file": "a.ogg", "stems": ["b.ogg"] } } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": {}, "music": { "tracks": { "t": { "file": "a.ogg" } }, "states": { "s": { "track": "t", "at": "soon" } } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav" } }, "snapshots": { "s": { "mix": { "buses": { "music": { "effects": [{ "type": "reverb" }] } } } } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "modulators": [{ "lfo": { "wave": "sin", "rateHz": 4, "depthDb": 6 } }] } } }"#,
      true
    ),
    (
      #"{ "version": 1, "parameters": { "p": { "range": [0, 1] } }, "events": { "a": { "play": "a.wav" } }, "snapshots": { "s": { "intensity": { "parameter": "p", "curve": [[0, 0], [1, 2]] } } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "modulators": [{ "lfo": { "rateHz": 4, "depthDb": 6 }, "target": "pitch" }] } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "modulators": [{ "envelope": { "attack": -1 } }] } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "modulators": [{ "envelope": { "sustainDb": 3 } }] } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "modulators": [{ "follower": { "bus": "speech" } }] } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "modulators": [{ "follower": { "bus": "speech", "curve": [[-40, 0], [10, -6]] } }] } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "modulators": [{ "follower": { "bus": "speech", "curve": [[-40, 0], [-10, -6]], "hold": 1 } }] } } }"#,
      true
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav" } }, "parameters": { "p": { "default": 0 } } }"#,
      true
    ),
    (
      #"{ "version": 1, "parameters": { "p": { "range": [0, 1] } }, "events": { "a": { "blend": { "parameter": "p", "layers": [{ "play": "a.wav" }] } } } }"#,
      true
    ),
    // Rules a schema cannot say: they relate one value to another, or to the rest of the map.
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav", "volumeDb": { "parameter": "speed", "curve": [[0, -30], [1, 0]] } } } }"#,
      false
    ),
    (
      #"{ "version": 1, "events": { "a": { "play": "a.wav" } }, "parameters": { "p": { "range": [1, 0] } } }"#,
      false
    ),
    (#"{ "version": 1, "events": { "a": { "play": "a.wav", "volumeDb": [0, -3] } } }"#, false),
    (
      #"{ "version": 1, "events": { "a": { "switch": { "parameter": "p", "default": "z", "cases": { "x": "a.wav" } } } } }"#,
      false
    ),
    (#"{ "version": 1, "events": { "a": { "stop": "nothing" } } }"#, false),
    (#"{ "version": 1, "events": { "a": { "random": ["a.wav", "b.wav"], "avoidRepeat": 2 } } }"#, false),
  ]

  @Test(
    "every map the parser refuses is refused by the schema, where a schema can say the rule",
    .enabled(if: validatorInstalled, "python3-jsonschema is not installed (Scripts/test.sh installs it)"))
  func refusedMapsAreRefused() throws {
    let errors = try Self.schemaErrors(Self.refused.map(\.map))
    #expect(errors.count == Self.refused.count)
    for ((map, schemaCan), found) in zip(Self.refused, errors) {
      var parser = SoundMapParser()
      _ = parser.parse(Data(map.utf8))
      #expect(!parser.errors.isEmpty, "the parser took \(map)")
      if schemaCan {
        #expect(!found.isEmpty, "the schema took \(map)")
      } else {
        #expect(found.isEmpty, "the schema now says this rule too: move it up (\(map))")
      }
    }
  }
}
