public import FoleyAudio
public import FoleyMusic
public import FoleyScene
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
/// "muted": true}`, `{"type": "solo", "bus": "speech", "soloed": true}`, `{"type": "post", "event": "ball.hit", "parameters": {"surface": "player"}, "position": [300, 120]}`
/// (parameters optional: strings, numbers or booleans; a position, optional, is where in the
/// scene a positional event is heard from: see `SoundMap.audition(_:parameters:at:)`),
/// `{"type": "snapshot", "name": "muffled", "intensity": 1, "tween": 0.5}` (a mix snapshot to an
/// intensity, 0 releasing it, over `tween` seconds, optional). `"bus": "master"` is the master.
///
/// ```swift
/// let command = try InspectorCommand(json: Data(#"{"type":"post","event":"door.open"}"#.utf8))
/// ```
public enum InspectorCommand: Sendable, Hashable {
  case volume(bus: String, volume: Double)
  case mute(bus: String, muted: Bool)
  case solo(bus: String, soloed: Bool)
  case post(event: String, parameters: [String: EventValue] = [:], position: Point? = nil)
  case snapshot(name: String, intensity: Double, tween: Double)

  /// Whether a name from the page (a bus, an event, a parameter) may be used: 1…256 bytes, no
  /// control characters.
  static func isName(_ value: String) -> Bool {
    !value.isEmpty && value.utf8.count <= 256
      && !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
  }

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
      guard let value, Self.isName(value) else {
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
    case "solo":
      guard let soloed = fields.soloed else { throw .badCommand("\"solo\" needs \"soloed\": true or false") }
      self = .solo(bus: try name(fields.bus, "bus"), soloed: soloed)
    case "post":
      var parameters: [String: EventValue] = [:]
      let given = fields.parameters ?? [:]
      guard given.count <= 16 else { throw .badCommand("a post takes at most 16 parameters") }
      for (key, value) in given {
        parameters[try name(key, "parameter name")] = value.value
      }
      var position: Point?
      if let given = fields.position {
        guard given.count == 2, given.allSatisfy({ $0.isFinite && abs($0) <= 1e6 }) else {
          throw .badCommand("a post's \"position\" is [x, y], each within ±1,000,000")
        }
        position = Point(x: given[0], y: given[1])
      }
      self = .post(event: try name(fields.event, "event"), parameters: parameters, position: position)
    case "snapshot":
      let intensity = fields.intensity ?? 1
      guard intensity.isFinite, (0...1).contains(intensity) else {
        throw .badCommand("\"snapshot\" takes an \"intensity\" in 0…1")
      }
      let tween = fields.tween ?? 0
      guard tween.isFinite, (0...3_600).contains(tween) else {
        throw .badCommand("\"snapshot\" takes a \"tween\" of 0…3600 seconds")
      }
      self = .snapshot(name: try name(fields.name, "name"), intensity: intensity, tween: tween)
    default:
      throw .badCommand(
        "unknown command type; expected \"volume\", \"mute\", \"solo\", \"post\" or \"snapshot\"")
    }
  }
}

/// A command's fields as JSON has them, before they are checked.
private struct CommandFields: Decodable {
  var type: String
  var bus: String?
  var volume: Double?
  var muted: Bool?
  var soloed: Bool?
  var event: String?
  var parameters: [String: Parameter]?
  var position: [Double]?
  var name: String?
  var intensity: Double?
  var tween: Double?

  /// A post's parameter: a string, a number or a boolean.
  struct Parameter: Decodable {
    var value: EventValue

    init(from decoder: any Decoder) throws {
      let single = try decoder.singleValueContainer()
      if let flag = try? single.decode(Bool.self) {
        value = .bool(flag)
      } else if let number = try? single.decode(Double.self), number.isFinite {
        value = .number(number)
      } else if let text = try? single.decode(String.self), text.utf8.count <= 256 {
        value = .string(text)
      } else {
        throw DecodingError.dataCorruptedError(
          in: single, debugDescription: "a parameter is a string (at most 256 bytes), a number or a boolean")
      }
    }
  }
}

/// Why the inspector refused something.
public enum InspectorError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A command that does not parse, or names no bus.
  case badCommand(String)
  /// A post of an event the inspected map does not have (HTTP 404), with the nearest name.
  case notFound(String)
  /// The game did not enable the page's controls.
  case controlsDisabled
  /// The server could not start (the port is taken, say).
  case cannotStart(String)

  public var description: String {
    switch self {
    case .badCommand(let why): "bad command: \(why)"
    case .notFound(let why): "not found: \(why)"
    case .controlsDisabled: "the game has not enabled the inspector's controls"
    case .cannotStart(let why): "the inspector cannot start: \(why)"
    }
  }
}
