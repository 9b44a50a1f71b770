import FoleyScene
import Testing

/// The update walks only into subtrees where an action runs: each node counts the nodes of its
/// subtree with live actions, and the count must follow every change of the tree and of actions.
@MainActor
@Suite("Subtrees with actions")
struct ActiveSubtreeTests {
  func truth(_ node: Node) -> Int {
    (node.hasActions() ? 1 : 0) + node.children.reduce(0) { $0 + truth($1) }
  }

  func expectCounts(_ node: Node, _ context: String) {
    #expect(node.actionsInSubtree == truth(node), "\(node.name ?? "?"): \(context)")
    for child in node.children { expectCounts(child, context) }
  }

  @Test("The counts match a recount after 3,000 random changes to the tree and its actions")
  func randomChanges() {
    var random = SeededRandomGenerator(seed: 7)
    let scene = Scene(size: Size(width: 100, height: 100))
    var nodes: [Node] = [scene]
    var loose: [Node] = []
    for step in 0..<3_000 {
      let node = nodes.randomElement(using: &random)!
      switch Int.random(in: 0..<9, using: &random) {
      case 0, 1:
        let child = Node()
        child.name = "n\(step)"
        node.addChild(child)
        nodes.append(child)
      case 2 where node !== scene:
        node.removeFromParent()
        loose.append(node)
      case 3 where !loose.isEmpty:
        let back = loose.removeLast()
        // Not under itself or a descendant of its own.
        if !node.inParentHierarchy(back) { node.addChild(back) }
      case 4: node.run(.wait(forDuration: Double.random(in: 0...0.1, using: &random)))
      case 5: node.run(.repeatForever(.move(by: Vector(dx: 1, dy: 0), duration: 0.2)), withKey: "k")
      case 6: node.removeAction(forKey: "k")
      case 7: if Bool.random(using: &random) { node.removeAllActions() } else { node.removeAllChildren() }
      default: scene.update(deltaTime: 1.0 / 30)
      }
      if step % 100 == 0 {
        expectCounts(scene, "step \(step)")
        for node in loose where node.parent == nil { expectCounts(node, "loose, step \(step)") }
      }
    }
    expectCounts(scene, "end")
  }

  @Test(
    "A child's action still runs under thousands of still siblings, and a finished one stops being walked")
  func walkReachesTheActiveOnly() {
    let scene = Scene(size: Size(width: 100, height: 100))
    for _ in 0..<5_000 { scene.addChild(Node()) }
    let group = Node()
    let mover = Node()
    group.addChild(mover)
    scene.addChild(group)
    mover.run(.move(by: Vector(dx: 10, dy: 0), duration: 0.1))
    #expect(scene.actionsInSubtree == 1 && group.actionsInSubtree == 1)
    for _ in 0..<10 { scene.update(deltaTime: 0.02) }
    #expect(abs(mover.position.x - 10) < 1e-9)
    #expect(scene.actionsInSubtree == 0 && !mover.hasActions())
    // Paused: counted, not run; unpaused: runs.
    group.isPaused = true
    mover.run(.move(by: Vector(dx: 5, dy: 0), duration: 0))
    scene.update(deltaTime: 0.02)
    #expect(mover.position.x == 10 && scene.actionsInSubtree == 1)
    group.isPaused = false
    scene.update(deltaTime: 0.02)
    #expect(mover.position.x == 15 && scene.actionsInSubtree == 0)
  }
}
