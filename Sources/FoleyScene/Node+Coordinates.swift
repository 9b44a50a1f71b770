import Foundation

/// Coordinates: converting points between a node's system, its ancestors' and another node's, as
/// SpriteKit does (position, rotation and scale of every ancestor apply).
extension Node {
  /// `point` in this node's coordinate system, converted to `node`'s (both in the same tree).
  /// SpriteKit's `convert(_:to:)`: positions, rotations and scales of every ancestor apply.
  public func convert(_ point: Point, to node: Node) -> Point {
    node.fromRoot(toRoot(point))
  }

  /// `point` in `node`'s coordinate system, converted to this node's.
  public func convert(_ point: Point, from node: Node) -> Point {
    fromRoot(node.toRoot(point))
  }

  /// The node's position in its scene's coordinates (in its root's, when it is in no scene).
  public var positionInScene: Point {
    // Borrowed, as `toRoot`'s walk: asked of every moving positional voice's node each update.
    guard let parent = parentLink else { return position }
    return parent.borrow { $0.toRoot(position) }
  }

  /// The node's position in `scene`'s coordinates, or nil when the node is not in `scene`'s
  /// tree: ``positionInScene`` and ``inParentHierarchy(_:)`` in one walk up, each ancestor
  /// borrowed (the scene's audio link asks it of every moving positional voice's node each
  /// update).
  package func position(in scene: Scene) -> Point? {
    // `toRoot`'s walk written out again: the same walk shared through a helper that also returns
    // the root costs half as much again, on every moving voice's every update.
    guard var node = parentLink else { return self === scene ? position : nil }
    var result = position
    while let up = node.borrow({ $0.parentLink }) {
      result = node.borrow { $0.toParent(result) }
      node = up
    }
    return node.toOpaque() == Unmanaged.passUnretained(scene).toOpaque() ? result : nil
  }

  /// `point` from this node's coordinates to its root's.
  fileprivate func toRoot(_ point: Point) -> Point {
    var result = point
    // Walked every update for every moving positional voice: each ancestor borrowed, no
    // reference counting on the way.
    var node = Unmanaged.passUnretained(self)
    while let up = node.borrow({ $0.parentLink }) {
      result = node.borrow { $0.toParent(result) }
      node = up
    }
    return result
  }

  /// `point` from the root's coordinates to this node's.
  fileprivate func fromRoot(_ point: Point) -> Point {
    var chain: [Node] = []
    var current: Node? = self
    while let node = current, node.parent != nil {
      chain.append(node)
      current = node.parent
    }
    var result = point
    for node in chain.reversed() { result = node.fromParent(result) }
    return result
  }

  /// A point in this node's coordinates, in its parent's: scaled, rotated, then moved.
  fileprivate func toParent(_ point: Point) -> Point {
    // Unrotated (most nodes): the same sums without a sine and a cosine.
    if zRotation == 0 { return Point(x: position.x + point.x * xScale, y: position.y + point.y * yScale) }
    let x = point.x * xScale
    let y = point.y * yScale
    let (sine, cosine) = (sin(zRotation), cos(zRotation))
    return Point(x: position.x + x * cosine - y * sine, y: position.y + x * sine + y * cosine)
  }

  fileprivate func fromParent(_ point: Point) -> Point {
    let (dx, dy) = (point.x - position.x, point.y - position.y)
    let (sine, cosine) = (sin(zRotation), cos(zRotation))
    let x = dx * cosine + dy * sine
    let y = -dx * sine + dy * cosine
    return Point(x: xScale == 0 ? 0 : x / xScale, y: yScale == 0 ? 0 : y / yScale)
  }
}
