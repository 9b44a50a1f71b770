import FoleyScene
import Testing

/// Watched nodes: the counts per subtree follow the tree, and the scene hears of the moves that
/// concern a watched node (its own, an ancestor's, a reparenting), and of no other.
@MainActor
@Suite("Watched moves")
struct WatchedMoveTests {
  @Test("moves of watched nodes and their ancestors reach the scene; others do not")
  func movesReachTheScene() {
    let scene = Scene(size: Size(width: 100, height: 100))
    scene.tracksMoves = true
    let cart = Node()
    let torch = Node()
    let bystander = Node()
    scene.addChild(cart)
    cart.addChild(torch)
    scene.addChild(bystander)
    torch.watch()
    #expect(torch.watchedInSubtree == 1 && cart.watchedInSubtree == 1 && scene.watchedInSubtree == 1)
    _ = scene.takeMovedNodes()
    bystander.position = Point(x: 5, y: 5)
    #expect(scene.takeMovedNodes().isEmpty)
    cart.position = Point(x: 10, y: 0)
    torch.zRotation = 1
    #expect(
      scene.takeMovedNodes().map(ObjectIdentifier.init) == [ObjectIdentifier(cart), ObjectIdentifier(torch)])
    // Moved under the bystander: counts follow, and the move is reported.
    bystander.addChild(torch)
    #expect(cart.watchedInSubtree == 0 && bystander.watchedInSubtree == 1 && scene.watchedInSubtree == 1)
    #expect(scene.takeMovedNodes().contains { $0 === torch })
    // Two watchers, then none: the counts go back to zero and moves are no longer noted.
    torch.watch()
    torch.unwatch()
    #expect(scene.watchedInSubtree == 1)
    torch.unwatch()
    torch.unwatch()  // one too many does nothing
    #expect(scene.watchedInSubtree == 0 && bystander.watchedInSubtree == 0)
    torch.position = Point(x: 1, y: 1)
    #expect(scene.takeMovedNodes().isEmpty)
    // Removing a watched subtree takes its count away; a scene that does not track keeps nothing.
    torch.watch()
    bystander.removeFromParent()
    #expect(scene.watchedInSubtree == 0 && bystander.watchedInSubtree == 1)
    scene.addChild(bystander)
    scene.tracksMoves = false
    torch.position = Point(x: 2, y: 2)
    #expect(scene.takeMovedNodes().isEmpty)
    scene.removeAllChildren()
    #expect(scene.watchedInSubtree == 0)
  }

  @Test(
    "past the taker's limit, moves are only flagged: the list keeps the first, the next take starts afresh")
  func movesPastTheLimitAreFlagged() {
    let scene = Scene(size: Size(width: 100, height: 100))
    scene.tracksMoves = true
    let torches = (0..<5).map { _ in Node() }
    for torch in torches {
      scene.addChild(torch)
      torch.watch()
    }
    var taken: [Node] = []
    #expect(!scene.takeMovedNodes(into: &taken))
    scene.movedNodesLimit = 3
    for (index, torch) in torches.enumerated() { torch.position = Point(x: Double(index), y: 0) }
    #expect(scene.takeMovedNodes(into: &taken), "five moves against a limit of three")
    #expect(taken.map(ObjectIdentifier.init) == torches.prefix(3).map(ObjectIdentifier.init))
    torches[4].position = Point(x: 9, y: 9)
    #expect(!scene.takeMovedNodes(into: &taken), "the flag goes with the take")
    #expect(taken.map(ObjectIdentifier.init) == [ObjectIdentifier(torches[4])])
    // Tracking turned off and on forgets an overflow as it forgets the list.
    for torch in torches { torch.position = Point(x: -1, y: -1) }
    scene.tracksMoves = false
    scene.tracksMoves = true
    #expect(!scene.takeMovedNodes(into: &taken) && taken.isEmpty)
  }
}

/// `inParentHierarchy`, which the positional pass asks of every moved node: true for the node
/// itself and each ancestor, false for anything else, and it follows the tree as it changes.
@MainActor
@Suite("Parent hierarchy")
struct ParentHierarchyTests {
  @Test("a node is in its own and its ancestors' hierarchy, and leaves it with its parent")
  func followsTheTree() {
    let scene = Scene(size: Size(width: 100, height: 100))
    let cart = Node()
    let torch = Node()
    let stranger = Node()
    scene.addChild(cart)
    cart.addChild(torch)
    #expect(torch.inParentHierarchy(torch))
    #expect(torch.inParentHierarchy(cart))
    #expect(torch.inParentHierarchy(scene))
    #expect(!cart.inParentHierarchy(torch))
    #expect(!torch.inParentHierarchy(stranger))
    #expect(!stranger.inParentHierarchy(scene))
    cart.removeFromParent()
    #expect(!torch.inParentHierarchy(scene))
    #expect(torch.inParentHierarchy(cart))
    stranger.addChild(cart)
    scene.addChild(stranger)
    #expect(torch.inParentHierarchy(scene) && torch.inParentHierarchy(stranger))
  }

  @Test(
    "position(in:) is the place in the scene for a node in it (moved, rotated, scaled parents), nil outside")
  func positionInAScene() {
    let scene = Scene(size: Size(width: 100, height: 100))
    let other = Scene(size: Size(width: 100, height: 100))
    let cart = Node()
    let torch = Node()
    cart.position = Point(x: 10, y: 20)
    cart.zRotation = .pi / 2
    cart.xScale = 2
    torch.position = Point(x: 3, y: 0)
    scene.addChild(cart)
    cart.addChild(torch)
    let placed = torch.position(in: scene)
    #expect(placed == torch.positionInScene)
    #expect(
      placed.map { abs($0.x - 10) < 1e-9 && abs($0.y - 26) < 1e-9 } == true, "\(String(describing: placed))")
    #expect(cart.position(in: scene) == Point(x: 10, y: 20))
    #expect(scene.position(in: scene) == scene.position)
    #expect(torch.position(in: other) == nil && scene.position(in: other) == nil)
    cart.removeFromParent()
    #expect(torch.position(in: scene) == nil)
    other.addChild(cart)
    #expect(torch.position(in: other) == torch.positionInScene)
  }
}
