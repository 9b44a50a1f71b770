public import FoleyCore
public import Foundation

/// A value carried by a game event's parameters: text, a number or a flag.
///
/// ```swift
/// let parameters: [String: EventValue] = ["surface": "grass", "speed": 3.5, "heavy": true]
/// ```
public enum EventValue: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
  ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral
{
  case string(String)
  case number(Double)
  case bool(Bool)

  public init(stringLiteral value: String) { self = .string(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }

  /// The value as text (a whole number without a fraction): how a sound map's `switch` matches it.
  public var description: String {
    switch self {
    case .string(let text): text
    case .number(let number):
      number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    case .bool(let flag): flag ? "true" : "false"
    }
  }

  /// The value as a number, if it is one (or text that reads as one).
  public var number: Double? {
    switch self {
    case .number(let number): number
    case .string(let text): Double(text)
    case .bool: nil
    }
  }
}

/// Something that happened in the game, by name, with parameters and the node it happened at.
///
/// Not `Sendable`: it names a node, which lives on the game thread, and it is delivered there.
public struct GameEvent {
  /// A dotted name by convention: `player.footstep`, `ui.click`.
  public var name: String
  public var parameters: [String: EventValue]
  /// The node it happened at, if any (a sound map plays positional sounds there).
  public weak var node: Node?
  /// The scene's time when it was posted.
  public var time: TimeInterval

  public init(name: String, parameters: [String: EventValue] = [:], node: Node? = nil, time: TimeInterval = 0)
  {
    self.name = name
    self.parameters = parameters
    self.node = node
    self.time = time
  }
}

/// A scene's game-event dispatcher: the game posts what happened, and whoever listens (a sound
/// map, analytics, achievements) reacts, without the game's code importing them. Listeners
/// subscribe by exact name, by a prefix ending in `*` (`"player.*"`), or to everything (`"*"`).
/// Events are delivered at once, on the game thread, in the order they were posted.
///
/// ```swift
/// scene.events.post("player.footstep", parameters: ["surface": "grass"], from: player)
/// let watching = scene.events.observe("player.*") { event in print(event.name) }
/// watching.cancel()
/// ```
@MainActor
public final class GameEvents {
  // Each access instantaneous (a post iterates a copy of the listeners), so the runtime's
  // exclusivity checks are left off: three per post before.
  @exclusivity(unchecked) private var listeners:
    [(token: Int, pattern: String, handler: @MainActor (GameEvent) -> Void)] = []
  @exclusivity(unchecked) private var nextToken = 0
  unowned(unsafe) let scene: Scene
  /// Events posted so far.
  @exclusivity(unchecked) public private(set) var posted = 0

  init(scene: Scene) {
    self.scene = scene
  }

  /// Posts an event to every listener whose pattern matches its name.
  public func post(_ name: String, parameters: [String: EventValue] = [:], from node: Node? = nil) {
    posted += 1
    let event = GameEvent(name: name, parameters: parameters, node: node, time: scene.currentTime)
    for listener in listeners where Self.matches(listener.pattern, name) { listener.handler(event) }
  }

  /// Calls `handler` with every event whose name matches `pattern` (a name, a prefix ending in
  /// `*`, or `*` for all), until the observation is cancelled.
  @discardableResult
  public func observe(_ pattern: String, _ handler: @escaping @MainActor (GameEvent) -> Void) -> Observation {
    nextToken += 1
    let token = nextToken
    listeners.append((token, pattern, handler))
    return Observation { [weak self] in self?.listeners.isolatedRemoveAll { $0.token == token } }
  }

  static func matches(_ pattern: String, _ name: String) -> Bool {
    if pattern == "*" { return true }
    if pattern.hasSuffix("*") { return name.hasPrefix(pattern.dropLast()) }
    return pattern == name
  }
}

extension Action {
  /// Posts a game event from the node running the action (instantaneous).
  public static func postEvent(_ name: String, parameters: [String: EventValue] = [:]) -> Action {
    .behavior(PostEventBehavior(name: name, parameters: parameters))
  }
}

/// Instant: a node runs it with no runner (a sound-map trigger allocates none).
struct PostEventBehavior: InstantActionBehavior {
  let name: String
  let parameters: [String: EventValue]

  func perform(on node: Node) {
    node.scene?.events.post(name, parameters: parameters, from: node)
  }
}
