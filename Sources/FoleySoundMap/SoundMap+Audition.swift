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
  /// map.audition("ball.hit", parameters: ["surface": "player"], at: Point(x: 300, y: 120))
  /// ```
  @discardableResult
  public func audition(
    _ name: String, parameters: [String: EventValue] = [:], at position: Point? = nil
  ) -> [PlayedSound] {
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
