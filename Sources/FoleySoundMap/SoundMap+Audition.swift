public import FoleyScene

extension SoundMap {
  /// The name of the node auditions at a position are posted from.
  public static let auditionNodeName = "foley.audition"

  /// Plays `name` as a designer asks to hear it: with `parameters`, and, given a `position`, from
  /// that point of the scene the map plays for (the first, if more than one), so a positional
  /// event is heard where it would be. The point is held by one node the map adds to that scene,
  /// named ``auditionNodeName``, moved for each audition and removed when the map leaves the
  /// scene. Without a scene, or without a position, it is a plain ``post(_:parameters:from:in:volume:pan:rate:start:fadeIn:)``.
  /// Returns what it started.
  ///
  /// ```swift
  /// try map.audition("ball.hit", parameters: ["surface": "player"], at: Point(x: 300, y: 120))
  /// ```
  /// - Throws: ``SoundMapAuditionError`` when the map has no event `name`, the event reads no
  ///   parameter of that name, or none of its cases names the value: an audition plays what was
  ///   asked or nothing, never a default in its place. A game's own ``post(_:parameters:from:in:volume:pan:rate:start:fadeIn:)``
  ///   is not checked (an unknown event is counted in ``statistics``).
  @discardableResult
  public func audition(
    _ name: String, parameters: [String: EventValue] = [:], at position: Point? = nil
  ) throws(SoundMapAuditionError) -> [PlayedSound] {
    try checkAudition(name, parameters: parameters)
    guard let position, let scene = scenes.first else { return post(name, parameters: parameters) }
    let node: Node
    if let held = scene.childNode(withName: Self.auditionNodeName) {
      node = held
    } else {
      node = Node()
      node.name = Self.auditionNodeName
      scene.addChild(node)
    }
    node.position = position
    return post(name, parameters: parameters, from: node, in: scene)
  }
}

extension SoundMap {
  /// Checks that posting `name` with `parameters` plays what a designer asks for, against the map
  /// in use; callable from any thread (the inspector checks a post before it reaches the game).
  ///
  /// ```swift
  /// do {
  ///   try map.checkAudition("ball.hit", parameters: ["surface": "plyer"])
  /// } catch {
  ///   print(error)  // ball.hit: surface is never "plyer" (did you mean player?); its cases: paddle, player, wall
  /// }
  /// ```
  /// - Throws: ``SoundMapAuditionError``.
  public nonisolated func checkAudition(
    _ name: String, parameters: [String: EventValue] = [:]
  ) throws(SoundMapAuditionError) {
    if let problem = auditionFacts.withLock({ $0.problem(name, parameters: parameters) }) { throw problem }
  }
}

/// Why an audition would not play what was asked (``SoundMap/audition(_:parameters:at:)``).
public enum SoundMapAuditionError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The map has no event of this name; the nearest name it has, if one is near.
  case unknownEvent(String, suggestion: String?)
  /// The event reads no parameter of this name; those it reads, and the nearest.
  case unknownParameter(String, event: String, reads: [String], suggestion: String?)
  /// None of the event's cases for `parameter` names this value; the values they name (none for
  /// a parameter that takes a number), and the nearest.
  case unknownValue(String, parameter: String, event: String, cases: [String], suggestion: String?)

  public var description: String {
    func hint(_ suggestion: String?) -> String { suggestion.map { " (did you mean \($0)?)" } ?? "" }
    switch self {
    case .unknownEvent(let name, let suggestion):
      return "no event \"\(name)\" in the map\(hint(suggestion))"
    case .unknownParameter(let parameter, let event, let reads, let suggestion):
      return "\(event) reads no parameter \"\(parameter)\"\(hint(suggestion)); "
        + (reads.isEmpty ? "it reads none" : "it reads \(reads.joined(separator: ", "))")
    case .unknownValue(let value, let parameter, let event, let cases, let suggestion):
      return cases.isEmpty
        ? "\(event): \(parameter) takes a number, not \"\(value)\""
        : "\(event): \(parameter) is never \"\(value)\"\(hint(suggestion)); its cases: \(cases.joined(separator: ", "))"
    }
  }
}
