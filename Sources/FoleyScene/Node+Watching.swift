/// Watched nodes (see ``Node/watchers``): counting them per subtree as the tree changes, and
/// telling the scene when one of them (or an ancestor) moves; and nodes with actions, counted per
/// subtree the same way so the update skips subtrees where nothing runs.
extension Node {
  /// One more watcher of this node's place (see ``watchers``).
  package func watch() {
    watchers += 1
    if watchers == 1 { adjustWatched(by: 1) }
  }

  /// One watcher fewer.
  package func unwatch() {
    guard watchers > 0 else { return }
    watchers -= 1
    if watchers == 0 { adjustWatched(by: -1) }
  }

  func adjustWatched(by delta: Int) {
    // Unretained: a read-and-count walk up a tree whose nodes hold their parents' places.
    unowned(unsafe) var current: Node? = self
    while let node = current {
      node.watchedInSubtree += delta
      current = node.parent
    }
  }

  /// Counts a node with live actions into ``actionsInSubtree`` of it and every ancestor.
  func adjustActive(by delta: Int) {
    // Borrowed on the way up: `parent` retained and released each ancestor, most of what a `run`
    // spent here.
    var current = Unmanaged.passUnretained(self)
    while true {
      guard
        let up = current.borrow({ node in
          node.actionsInSubtree += delta
          return node.parentLink
        })
      else { return }
      current = up
    }
  }

  @inline(__always)
  func transformChanged() {
    guard watchedInSubtree > 0 else { return }
    // Borrowed on the way up: no reference counting per ancestor.
    var root = Unmanaged.passUnretained(self)
    while let up = root.borrow({ $0.parentLink }) { root = up }
    root.borrow { root in
      guard root.isSceneRoot else { return }
      unsafeDowncast(root, to: Scene.self).noteMoved(self)
    }
  }
}
