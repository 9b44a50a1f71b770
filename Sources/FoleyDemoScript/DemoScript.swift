import FoleyAudio
package import FoleyPlatform
package import FoleyScene
import FoleySoundMap
package import Foundation

/// A scripted run: `{"duration": s, "step": s?, "events": [{"at": s, "event": "...", ...}]}`.
///
/// Parsing checks everything before anything runs: an unknown event or a missing or mistyped
/// field is a ``ScriptError`` naming the event's index and the field.
package struct DemoScript {
  package enum Event: Equatable {
    case key(String, up: Bool)
    case click(x: Double, y: Double)
    case focusLost, focusGained, minimized, restored, willEnterBackground, didEnterForeground
    case deviceRemoved, deviceAdded
    case playSound(file: String)
    case record(file: String)
    case stopRecording
    /// A game event for the sound map.
    case post(name: String, parameters: [String: EventValue])
    case quit
  }

  package struct TimedEvent {
    package let at: Double
    package let event: Event

    package init(at: Double, event: Event) {
      self.at = at
      self.event = event
    }
  }

  package struct ScriptError: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) { self.description = description }
  }

  package var duration: Double
  package var step: Double
  package var events: [TimedEvent]

  package static let eventNames = [
    "key", "click", "focusLost", "focusGained", "minimized", "restored", "willEnterBackground",
    "didEnterForeground", "deviceRemoved", "deviceAdded", "playSound", "record", "stopRecording", "post",
    "quit",
  ]

  package init(duration: Double, step: Double = 1.0 / 60.0, events: [TimedEvent]) {
    self.duration = duration
    self.step = step
    self.events = events
  }

  package init(contentsOf path: String) throws {
    let data: Data
    do {
      // A regular file of at most 16 MiB, checked before it is read (a FIFO never blocks the run).
      data = try BoundedFile.read(URL(fileURLWithPath: path), limit: 16 << 20, asset: path)
    } catch {
      throw ScriptError(description: "cannot read script \(path): \(error.message)")
    }
    try self.init(json: data, name: path)
  }

  /// Parses a script's JSON (`name` is what errors call it).
  package init(json data: Data, name path: String) throws {
    let root: Any
    do {
      root = try JSONSerialization.jsonObject(with: data)
    } catch {
      throw ScriptError(
        description: "script \(path) is not valid JSON: \(JSONSyntax.describe(error, in: data))")
    }
    guard let object = root as? [String: Any] else {
      throw ScriptError(description: "script \(path): the top level must be an object")
    }
    guard let duration = Self.number(object["duration"]), duration > 0, duration <= Self.longestRun else {
      throw ScriptError(
        description:
          "script \(path): \"duration\" must be a number of seconds in (0, \(Int(Self.longestRun))], not \(Self.show(object["duration"]))"
      )
    }
    var step = 1.0 / 60.0
    if let value = object["step"] {
      guard let number = Self.number(value), number >= Self.shortestStep, number <= 1 else {
        throw ScriptError(
          description:
            "script \(path): \"step\" must be a number of seconds in [0.001, 1], not \(Self.show(value))")
      }
      step = number
    }
    guard let list = (object["events"] ?? [Any]()) as? [Any] else {
      throw ScriptError(description: "script \(path): \"events\" must be a list")
    }
    var events: [TimedEvent] = []
    for (index, item) in list.enumerated() {
      events.append(try Self.parseEvent(item, index: index))
    }
    self.init(duration: duration, step: step, events: events.sorted { $0.at < $1.at })
  }

  /// The longest scripted run (a day) and the shortest step (1 ms): a run is at most 86.4 million
  /// steps, and a script can neither trap the runner nor spin it for ever.
  package static let longestRun = 86_400.0
  package static let shortestStep = 0.001

  /// A JSON number as a finite Double; nil for anything else (JSON's `true` is not 1).
  package static func number(_ value: Any?) -> Double? {
    // The sound map's rule for what JSONSerialization hands over as a number.
    guard let value, let number = SoundMapParser.number(value) else { return nil }
    return number.isFinite ? number : nil
  }

  /// A value as a message shows it, with control characters escaped (a NUL once went out raw).
  static func show(_ value: Any?) -> String {
    guard let value else { return "nothing" }
    let text: String
    if let number = number(value) {
      text = "\(number)"
    } else {
      text = value is String ? "\"\(value)\"" : "\(value)"
    }
    return text.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }
      .joined()
  }

  private static func parseEvent(_ item: Any, index: Int) throws -> TimedEvent {
    func fail(_ field: String, _ problem: String) -> ScriptError {
      ScriptError(description: "event \(index): field \"\(field)\" \(problem)")
    }
    guard let fields = item as? [String: Any] else {
      throw ScriptError(description: "event \(index): must be an object")
    }
    guard let at = Self.number(fields["at"]) else {
      throw fail(
        "at",
        fields["at"] == nil ? "is missing" : "must be a number of seconds, not \(Self.show(fields["at"]))")
    }
    guard at >= 0 else { throw fail("at", "must not be negative") }
    guard let name = fields["event"] as? String else {
      throw fail("event", fields["event"] == nil ? "is missing" : "must be a string")
    }
    func string(_ field: String) throws -> String {
      guard let value = fields[field] else { throw fail(field, "is missing (needed by \"\(name)\")") }
      guard let text = value as? String, !text.isEmpty else {
        throw fail(field, "must be a non-empty string")
      }
      return text
    }
    func number(_ field: String) throws -> Double {
      guard let value = fields[field] else { throw fail(field, "is missing (needed by \"\(name)\")") }
      guard let number = Self.number(value), abs(number) <= 1e6 else {
        throw fail(field, "must be a number in -1000000...1000000, not \(Self.show(value))")
      }
      return number
    }
    let event: Event
    switch name {
    case "key":
      let key = try string("key")
      guard Key(name: key).isKnownToSDL else {
        throw fail("key", "names no key SDL knows: \(Self.show(key))")
      }
      event = .key(key, up: (fields["up"] as? Bool) ?? false)
    case "click": event = .click(x: try number("x"), y: try number("y"))
    case "focusLost": event = .focusLost
    case "focusGained": event = .focusGained
    case "minimized": event = .minimized
    case "restored": event = .restored
    case "willEnterBackground": event = .willEnterBackground
    case "didEnterForeground": event = .didEnterForeground
    case "deviceRemoved": event = .deviceRemoved
    case "deviceAdded": event = .deviceAdded
    case "playSound": event = .playSound(file: try string("file"))
    case "record": event = .record(file: try string("file"))
    case "stopRecording": event = .stopRecording
    case "post":
      var parameters: [String: EventValue] = [:]
      if let given = fields["parameters"] {
        guard let object = given as? [String: Any] else { throw fail("parameters", "must be an object") }
        for (key, value) in object {
          if let text = value as? String {
            parameters[key] = .string(text)
          } else if let number = value as? NSNumber {
            parameters[key] =
              SoundMapParser.isBoolean(value) ? .bool(number.boolValue) : .number(number.doubleValue)
          } else {
            throw fail("parameters", "must hold strings, numbers and booleans (\"\(key)\" does not)")
          }
        }
      }
      event = .post(name: try string("name"), parameters: parameters)
    case "quit": event = .quit
    default:
      throw fail("event", "is unknown: \(Self.show(name)) (known: \(eventNames.joined(separator: ", ")))")
    }
    return TimedEvent(at: at, event: event)
  }

  /// The script `demo.sh` runs where there is no display: a little of everything.
  package static let tour = DemoScript(
    duration: 6,
    events: [
      TimedEvent(at: 0.5, event: .key("space", up: false)),
      TimedEvent(at: 0.6, event: .key("space", up: true)),
      TimedEvent(at: 1.0, event: .key("right", up: false)),
      TimedEvent(at: 1.8, event: .key("right", up: true)),
      TimedEvent(at: 0.7, event: .key("t", up: false)), TimedEvent(at: 0.75, event: .key("t", up: true)),
      TimedEvent(at: 1.9, event: .key("n", up: false)), TimedEvent(at: 1.95, event: .key("n", up: true)),
      TimedEvent(at: 2.0, event: .focusLost), TimedEvent(at: 3.0, event: .focusGained),
      TimedEvent(at: 3.5, event: .minimized), TimedEvent(at: 3.8, event: .restored),
      TimedEvent(at: 4.0, event: .deviceRemoved),
      TimedEvent(at: 4.5, event: .click(x: 400, y: 300)),
      TimedEvent(at: 5.0, event: .key("space", up: false)),
      TimedEvent(at: 5.1, event: .key("space", up: true)),
    ])
}

extension DemoScript.Event {
  /// The SDL event a script's event is pushed as (`EventPump.push`), so the game sees it as it
  /// would a player's; nil for what the runner asks the game for itself (a file played, a
  /// recording, a posted game event). `outputDevice` is the device a `deviceRemoved` names.
  package func platformEvent(outputDevice: UInt32) -> PlatformEvent? {
    switch self {
    case .key(let name, let up): up ? .keyUp(Key(name: name)) : .keyDown(Key(name: name), isRepeat: false)
    case .click(let x, let y): .mouseDown(x: x, y: y)
    case .focusLost: .windowFocusLost
    case .focusGained: .windowFocusGained
    case .minimized: .windowMinimized
    case .restored: .windowRestored
    case .willEnterBackground: .appWillEnterBackground
    case .didEnterForeground: .appDidEnterForeground
    case .deviceRemoved: .audioDeviceRemoved(deviceID: outputDevice, isCapture: false)
    case .deviceAdded: .audioDeviceAdded(index: 0, isCapture: false)
    case .quit: .quit
    case .playSound, .record, .stopRecording, .post: nil
    }
  }
}
