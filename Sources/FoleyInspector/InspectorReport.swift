public import FoleyAudio
public import FoleyMusic
public import FoleySoundMap
import Foundation

/// What the browser inspector sends each time: the engine's snapshot, the music, the sound map's
/// latest posts and reloads, and whether the page may change the mix.
///
/// ```swift
/// let report = try JSONDecoder().decode(InspectorReport.self, from: data)  // /snapshot.json
/// print(report.audio.voices.count, report.events.last?.name ?? "-")
/// ```
public struct InspectorReport: Sendable, Codable, Hashable {
  public var audio: AudioSnapshot
  /// The engine's own music player, nil if the game never made it.
  public var music: MusicSnapshot?
  /// The inspected sound map's last posts, oldest first (empty without a map).
  public var events: [PostedEvent]
  /// The inspected sound map's latest reloads of its file, oldest first: what each changed, or
  /// why it failed (empty without a map, or before its first reload).
  public var reloads: [SoundMapReload]
  /// Whether the page's controls work (``InspectorServer/Options/allowsControl``).
  public var controlsEnabled: Bool
}

/// A change the page asks for, as JSON text over its WebSocket or `POST /control`:
/// `{"type": "volume", "bus": "music", "volume": 0.5}`, `{"type": "mute", "bus": "sfx",
/// "muted": true}`, `{"type": "post", "event": "ball.hit"}`. `"bus": "master"` is the master.
///
/// ```swift
/// let command = try InspectorCommand(json: Data(#"{"type":"post","event":"door.open"}"#.utf8))
/// ```
public enum InspectorCommand: Sendable, Hashable {
  case volume(bus: String, volume: Double)
  case mute(bus: String, muted: Bool)
  case post(event: String)

  /// The longest command accepted, in bytes.
  public static let maximumSize = 4_096

  /// Parses a command.
  /// - Throws: ``InspectorError/badCommand(_:)`` saying what is wrong.
  public init(json: some Collection<UInt8>) throws(InspectorError) {
    guard json.count <= Self.maximumSize else {
      throw .badCommand("a command is at most \(Self.maximumSize) bytes; this one has \(json.count)")
    }
    let fields: CommandFields
    do {
      fields = try JSONDecoder().decode(CommandFields.self, from: Data(json))
    } catch {
      throw .badCommand("not a command: a JSON object with a \"type\" is expected")
    }
    func name(_ value: String?, _ field: String) throws(InspectorError) -> String {
      guard let value, !value.isEmpty, value.utf8.count <= 256,
        !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
      else {
        throw .badCommand("\"\(fields.type)\" needs a \"\(field)\": 1…256 bytes, no control characters")
      }
      return value
    }
    switch fields.type {
    case "volume":
      guard let volume = fields.volume, volume.isFinite, (0...1).contains(volume) else {
        throw .badCommand("\"volume\" needs a \"volume\" in 0…1")
      }
      self = .volume(bus: try name(fields.bus, "bus"), volume: volume)
    case "mute":
      guard let muted = fields.muted else { throw .badCommand("\"mute\" needs \"muted\": true or false") }
      self = .mute(bus: try name(fields.bus, "bus"), muted: muted)
    case "post":
      self = .post(event: try name(fields.event, "event"))
    default:
      throw .badCommand("unknown command type; expected \"volume\", \"mute\" or \"post\"")
    }
  }
}

/// A command's fields as JSON has them, before they are checked.
private struct CommandFields: Decodable {
  var type: String
  var bus: String?
  var volume: Double?
  var muted: Bool?
  var event: String?
}

/// Why the inspector refused something.
public enum InspectorError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A command that does not parse, or names no bus.
  case badCommand(String)
  /// The game did not enable the page's controls.
  case controlsDisabled
  /// The server could not start (the port is taken, say).
  case cannotStart(String)

  public var description: String {
    switch self {
    case .badCommand(let why): "bad command: \(why)"
    case .controlsDisabled: "the game has not enabled the inspector's controls"
    case .cannotStart(let why): "the inspector cannot start: \(why)"
    }
  }
}
