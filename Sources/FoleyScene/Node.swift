import Foundation

/// The building block of a scene: a position, rotation, scale and alpha in its parent's
/// coordinates, a list of children, and the actions it runs. SpriteKit's `SKNode`, for Foley.
///
/// Nodes live on the game thread (the main actor), like SpriteKit's. Actions run only while the
/// node is in a scene that is being updated; a paused node pauses its subtree, and a node's `speed`
/// multiplies the clock of its actions and its descendants'.
///
/// ```swift
/// let scene = Scene(size: Size(width: 640, height: 480))
/// let ship = Node()
/// ship.name = "ship"
/// scene.addChild(ship)
/// ship.run(.repeatForever(.rotate(byAngle: .pi, duration: 1)), withKey: "spin")
/// scene.update(deltaTime: 1.0 / 60.0)
/// ship.removeAction(forKey: "spin")
/// ```
///
/// Everything is safe to call from inside a running block: removing a node, its actions or its
/// parent takes effect at once, and the update skips what was removed.
///
/// The properties the update loop reads or writes for every node and frame (position, rotation,
/// scale, alpha, isHidden, speed, isPaused, children) skip Swift's runtime exclusivity checks: they are plain
/// values on the main actor, and the checks cost as much as running the actions. Passing one of
/// them `inout` while also reading it elsewhere is not diagnosed at run time.
@MainActor
open class Node {
  /// A name for lookups with ``childNode(withName:)`` and `Action.run(_:onChildWithName:)`.
  public var name: String?
  /// Position in the parent's coordinate system.
  @exclusivity(unchecked) public var position = Point.zero {
    didSet { transformChanged() }
  }
  /// Rotation in radians, counter-clockwise.
  @exclusivity(unchecked) public var zRotation: Double = 0 {
    didSet { transformChanged() }
  }
  @exclusivity(unchecked) public var xScale: Double = 1 {
    didSet { transformChanged() }
  }
  @exclusivity(unchecked) public var yScale: Double = 1 {
    didSet { transformChanged() }
  }
  /// Watchers of this node's place in its scene (a positional voice follows it), and watched
  /// nodes in its subtree, itself included. A node with watched nodes below it reports its
  /// moves (position, rotation, scale, parent) to its scene (``Scene/takeMovedNodes()``), so the
  /// sound of thousands of still emitters is not looked at each frame; any other node's move
  /// costs one compare.
  @exclusivity(unchecked) package internal(set) var watchers = 0
  @exclusivity(unchecked) package internal(set) var watchedInSubtree = 0

  /// Opacity in 0...1; renderers multiply it down the tree.
  @exclusivity(unchecked) public var alpha: Double = 1
  /// Whether the node (and its subtree) is drawn. (The action loop's hide and unhide set it:
  /// checked at run time, it cost a tenth of every node's step.)
  @exclusivity(unchecked) public var isHidden = false
  /// Drawing order among siblings; higher draws later (on top).
  public var zPosition: Double = 0
  /// Multiplies the clock of this node's actions and of its whole subtree.
  @exclusivity(unchecked) public var speed: Double = 1
  /// A paused node runs no actions, and neither does any node below it.
  @exclusivity(unchecked) public var isPaused = false {
    didSet { Node.pauseClock &+= 1 }
  }
  /// Counts changes to any node's `isPaused` or parent: while it holds still, no node's paused
  /// state in its tree has changed (audio nodes are not asked again).
  @exclusivity(unchecked) package private(set) static var pauseClock: UInt64 = 0

  @exclusivity(unchecked) public private(set) var children: [Node] = [] {
    didSet { childrenGeneration &+= 1 }
  }
  /// The node this one is a child of. Not a weak reference (every node with children would then
  /// pay for a side table on every retain): a parent clears its children's link when it goes
  /// (see `deinit`), and removing a child clears it at once.
  public private(set) var parent: Node? {
    get { parentLink?.takeUnretainedValue() }
    set {
      if let newValue { parentLink = Unmanaged.passUnretained(newValue) } else { parentLink = nil }
    }
  }
  /// The parent, unretained: walks up the tree (a node's scene, its place in it) borrow each
  /// ancestor through it with no reference counting, which an `unowned(unsafe)` stored property
  /// does not spare (each load is a retain and a release).
  @exclusivity(unchecked) private(set) var parentLink: Unmanaged<Node>?
  /// Changes with every change to `children`: while it holds still during an update, every child
  /// the update took is still a child, and no weak `parent` needs loading to know it.
  @exclusivity(unchecked) private var childrenGeneration = 0

  /// The state other modules keep per node, one slot per feature (``NodeStorageKey``): the scene
  /// bridge keeps a node's volume and voices in one, and a scene's engine link in another, so no
  /// feature can overwrite another's. Finding a slot is an index, not a dictionary lookup.
  /// FoleyScene looks inside only to tell a ``SceneMembershipObserver`` when the node joins or
  /// leaves a scene.
  @exclusivity(unchecked) private var featureStorage: [AnyObject?] = []

  // Bookkeeping of the update loop: main-actor confined and never held across a call out, so
  // the runtime's exclusivity checks are left off (they cost as much as the loop itself).
  @exclusivity(unchecked) private var runningActions: [RunningAction] = []
  /// Actions on this node not removed or finished; and nodes in its subtree (itself included)
  /// with any. The update walks only into subtrees where something runs, so thousands of still
  /// nodes (tiles, emitters) cost nothing per frame.
  @exclusivity(unchecked) private var liveActions = 0
  @exclusivity(unchecked) package internal(set) var actionsInSubtree = 0
  @exclusivity(unchecked) private var hasRemovedActions = false
  /// The index in `runningActions` of the action being advanced, or -1; and how deep the
  /// advance is (a block that updates the scene re-enters it). Removed actions are compacted
  /// away only when no advance is under way, so the indices hold while one is.
  @exclusivity(unchecked) private var advancingIndex = -1
  @exclusivity(unchecked) private var advanceDepth = 0

  public init() {}

  isolated deinit {
    for child in children { child.parent = nil }
  }

  /// True for a `Scene` (set by its initialiser; read per ancestor on every trigger).
  @exclusivity(unchecked) var isSceneRoot = false

  // MARK: - Tree

  /// Adds `node` as the last child. A node that already has a parent is moved here (SpriteKit
  /// raises an exception instead; a game should not crash over it). Adding a node to itself or
  /// to one of its descendants is a programming error and traps with a message.
  public func addChild(_ node: Node) {
    insertChild(node, at: children.count)
  }

  /// Inserts `node` among the children at `index` (clamped to the valid range).
  public func insertChild(_ node: Node, at index: Int) {
    var ancestor: Node? = self
    while let current = ancestor {
      precondition(current !== node, "Foley: cannot add a node to itself or to one of its descendants")
      ancestor = current.parent
    }
    node.removeFromParent()
    node.parent = self
    if node.watchedInSubtree > 0 { adjustWatched(by: node.watchedInSubtree) }
    if node.actionsInSubtree > 0 { adjustActive(by: node.actionsInSubtree) }
    node.transformChanged()
    Node.pauseClock &+= 1
    children.insert(node, at: min(max(0, index), children.count))
    if let scene { node.announce(entering: scene) }
  }

  /// Removes this node from its parent. Its actions stay attached and run again if it is added back
  /// to a scene.
  public func removeFromParent() {
    guard let parent else { return }
    if let scene = parent.scene { announce(leaving: scene) }
    var index = parent.children.count - 1  // from the end: tiles out newest first is linear
    while index >= 0, parent.children[index] !== self { index -= 1 }
    if index >= 0 { parent.children.remove(at: index) }
    if watchedInSubtree > 0 { parent.adjustWatched(by: -watchedInSubtree) }
    if actionsInSubtree > 0 { parent.adjustActive(by: -actionsInSubtree) }
    self.parent = nil
    Node.pauseClock &+= 1
  }

  public func removeAllChildren() {
    if let scene { for child in children { child.announce(leaving: scene) } }
    for child in children where child.watchedInSubtree > 0 { adjustWatched(by: -child.watchedInSubtree) }
    for child in children where child.actionsInSubtree > 0 { adjustActive(by: -child.actionsInSubtree) }
    for child in children { child.parent = nil }
    children.removeAll()
  }

  /// Tells the observers in this subtree's feature storage that it joined `scene`'s tree.
  private func announce(entering scene: Scene) {
    for case let observer as any SceneMembershipObserver in featureStorage {
      observer.node(self, didEnter: scene)
    }
    for child in children { child.announce(entering: scene) }
  }

  private func announce(leaving scene: Scene) {
    for case let observer as any SceneMembershipObserver in featureStorage {
      observer.node(self, willLeave: scene)
    }
    for child in children { child.announce(leaving: scene) }
  }

  /// The state the feature of `key` keeps on this node, if it has put any there.
  package subscript<Value>(storage key: NodeStorageKey<Value>) -> Value? {
    get {
      guard key.index < featureStorage.count, let value = featureStorage[key.index] else { return nil }
      // Only this subscript writes a slot, and only with its key's type.
      return unsafeDowncast(value, to: Value.self)
    }
    set {
      if key.index >= featureStorage.count {
        featureStorage.append(contentsOf: repeatElement(nil, count: key.index + 1 - featureStorage.count))
      }
      featureStorage[key.index] = newValue
    }
  }

  /// The object the feature of `key` keeps on this node, as a pointer, unretained: a walk that
  /// reads it for many nodes each update (a moved node's positional slots) takes it with
  /// `Unmanaged.fromOpaque` and borrows it, with no reference counting.
  package final func unretainedStorage<Value>(_ key: NodeStorageKey<Value>) -> UnsafeRawPointer? {
    Self.object(in: featureStorage, at: key.index)
  }

  /// Slot `index` of `slots` read as a pointer (an `AnyObject?` is one, nil when null), so it is
  /// not retained. Nonisolated: a main-actor closure handed to the standard library would check
  /// its executor on every call.
  private nonisolated static func object(in slots: [AnyObject?], at index: Int) -> UnsafeRawPointer? {
    slots.withUnsafeBufferPointer { buffer in
      index < buffer.count
        ? UnsafeRawPointer(buffer.baseAddress! + index).load(as: UnsafeRawPointer?.self) : nil
    }
  }

  public func removeChildren(in nodes: [Node]) {
    for node in nodes where node.parent === self { node.removeFromParent() }
  }

  /// The first child named `name`; with a leading `//` (`"//enemy"`), the first match anywhere in
  /// the subtree, depth first.
  public func childNode(withName name: String) -> Node? {
    if name.hasPrefix("//") {
      let wanted = String(name.dropFirst(2))
      return firstDescendant { $0.name == wanted }
    }
    return children.isolatedFirst { $0.name == name }
  }

  private func firstDescendant(where matches: (Node) -> Bool) -> Node? {
    for child in children {
      if matches(child) { return child }
      if let found = child.firstDescendant(where: matches) { return found }
    }
    return nil
  }

  /// Whether `node` is this node or below it.
  public func inParentHierarchy(_ node: Node) -> Bool {
    // Borrowed, as `scene`'s walk: positional voices ask it of every moved node each update.
    var current = Unmanaged.passUnretained(self)
    while true {
      if current.toOpaque() == Unmanaged.passUnretained(node).toOpaque() { return true }
      guard let up = current.borrow({ $0.parentLink }) else { return false }
      current = up
    }
  }

  // MARK: - Actions

  /// Runs `action` on this node.
  public func run(_ action: Action) {
    start(action, key: nil, completion: nil)
  }

  /// Runs `action` and calls `completion` once, on the game thread, when it finishes. A removed
  /// action never calls its completion.
  public func run(_ action: Action, completion: @escaping @MainActor () -> Void) {
    start(action, key: nil, completion: completion)
  }

  /// Runs `action` under `key`, first removing any action already running under that key.
  public func run(_ action: Action, withKey key: String) {
    start(action, key: key, completion: nil)
  }

  /// The action running under `key`, if any.
  public func action(forKey key: String) -> Action? {
    runningActions.isolatedFirst { !$0.isRemoved && $0.key == key }?.action
  }

  /// Stops the action running under `key` without calling its completion.
  public func removeAction(forKey key: String) {
    for index in runningActions.indices where runningActions[index].key == key { markRemoved(at: index) }
  }

  /// Stops every action on this node without calling their completions.
  public func removeAllActions() {
    for index in runningActions.indices { markRemoved(at: index) }
  }

  /// Whether any action is running on this node.
  public func hasActions() -> Bool {
    runningActions.isolatedContains { !$0.isRemoved }
  }

  /// True while the action being advanced has been removed by something it ran (a block, a
  /// completion); containers check it between their parts so nothing after the removal runs.
  var isAdvancingActionRemoved: Bool { advancingIndex >= 0 && runningActions[advancingIndex].isRemoved }

  private func start(_ action: Action, key: String?, completion: (@MainActor () -> Void)?) {
    if let key { removeAction(forKey: key) }
    runningActions.append(RunningAction(action: action, key: key, completion: completion))
    liveActions += 1
    if liveActions == 1 { adjustActive(by: 1) }
  }

  private func markRemoved(at index: Int) {
    guard !runningActions[index].isRemoved else { return }
    runningActions[index].isRemoved = true
    runningActions[index].completion = nil
    hasRemovedActions = true
    liveActions -= 1
    if liveActions == 0 { adjustActive(by: -1) }
  }

  // MARK: - Update

  /// Advances this node's actions, then its children's, by `deltaTime` seconds of this node's
  /// clock. Actions added during the step start on the next one; removed ones stop at once.
  func advance(by deltaTime: TimeInterval) {
    if !runningActions.isEmpty {
      advanceActions(by: deltaTime)
    }
    // Nothing runs below: the children are not looked at.
    guard actionsInSubtree > (liveActions > 0 ? 1 : 0) else { return }
    let snapshot = children
    let generation = childrenGeneration
    let this = Unmanaged.passUnretained(self).toOpaque()
    for index in snapshot.indices {
      // Borrowed: the snapshot holds every child for the whole walk, even one a block removes.
      Unmanaged.passUnretained(snapshot[index]).borrow { child in
        guard child.actionsInSubtree > 0 else { return }
        // Only after a block changed the children does each one need checking.
        if childrenGeneration != generation, child.parentLink?.toOpaque() != this { return }
        if !child.isPaused { child.advance(by: deltaTime * child.speed) }
      }
    }
  }

  private func advanceActions(by deltaTime: TimeInterval) {
    // Actions added during the step start on the next one.
    let count = runningActions.count
    let outerIndex = advancingIndex
    advanceDepth += 1
    var index = 0
    while index < count {
      defer { index += 1 }
      guard !runningActions[index].isRemoved else { continue }
      advancingIndex = index
      let finished: Bool
      if let runner = runningActions[index].runner.unretained {
        // Borrowed: the run keeps its stage until no advance is under way (see `RunnerStage`).
        finished = runner.borrow { $0.advance(by: deltaTime, on: self) } != nil
      } else {
        let action = runningActions[index].action
        if action.performInstantly(on: self) {
          // An instantaneous action with no state (a sound played, a block run): no runner is
          // made, so a trigger allocates nothing here.
          finished = true
        } else {
          let runner = action.makeRunner(on: self)
          runningActions[index].runner = runner
          finished = runner.advance(by: deltaTime, on: self) != nil
        }
      }
      if finished && !runningActions[index].isRemoved {
        let completion = runningActions[index].completion
        markRemoved(at: index)
        completion?()
      }
    }
    advancingIndex = outerIndex
    advanceDepth -= 1
    if hasRemovedActions && advanceDepth == 0 {
      // Most often every run is done (a node that played a sound): emptied from the end, its
      // capacity kept. `removeAll(where:)` (and `removeAll(keepingCapacity:)`, which replaces
      // the whole range) runs generic code that costs more than the rest of a trigger's work
      // here.
      var everyRunRemoved = true
      for index in runningActions.indices where !runningActions[index].isRemoved {
        everyRunRemoved = false
        break
      }
      if everyRunRemoved {
        while !runningActions.isEmpty { runningActions.removeLast() }
      } else {
        runningActions.isolatedRemoveAll { $0.isRemoved }
      }
      hasRemovedActions = false
    }
  }

  /// One action running on this node: the immutable action beside its running state, kept in
  /// place in the node's array (a value, not an object per run).
  private struct RunningAction {
    let action: Action
    let key: String?
    var completion: (@MainActor () -> Void)?
    var runner: RunnerStage?
    var isRemoved = false
  }
}

/// State kept in a node's feature storage that wants to know when its node joins a scene's tree or
/// leaves it (FoleyAudio's `AudioNode` starts and stops its sound this way).
package protocol SceneMembershipObserver: AnyObject {
  @MainActor func node(_ node: Node, didEnter scene: Scene)
  @MainActor func node(_ node: Node, willLeave scene: Scene)
}
