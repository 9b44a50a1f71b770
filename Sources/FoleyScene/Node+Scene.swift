/// The scene a node is in: found by walking up its parents to the root that is a scene.
extension Node {
  /// The scene this node belongs to, if any.
  public var scene: Scene? { unretainedScene?.takeUnretainedValue() }

  /// The scene, unretained (valid while the node is in it): sound actions ask on every trigger.
  package var unretainedScene: Unmanaged<Scene>? {
    // A flag, not a dynamic cast per ancestor. The walk borrows each ancestor (no reference
    // counting on the way up).
    var current = Unmanaged.passUnretained(self)
    while true {
      let (isRoot, up) = current.borrow { ($0.isSceneRoot, $0.parentLink) }
      if isRoot {
        return Unmanaged.passUnretained(unsafeDowncast(current.takeUnretainedValue(), to: Scene.self))
      }
      guard let up else { return nil }
      current = up
    }
  }
}
