import FoleyScene
import Testing

@MainActor
@Suite("Nodes running actions")
struct NodeActionTests {
  @Test("run(_:withKey:) replaces the action under that key")
  func keyedReplacement() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(.sequence([.wait(forDuration: 0.1), .run { log.append("first") }]), withKey: "k")
    node.run(.sequence([.wait(forDuration: 0.1), .run { log.append("second") }]), withKey: "k")
    #expect(node.action(forKey: "k")?.duration == 0.1)
    step(scene, by: [0.2])
    #expect(log.entries == ["second"])
    #expect(node.action(forKey: "k") == nil)
  }

  @Test("removeAction(forKey:) stops it and its completion never runs")
  func removeByKey() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(.move(by: Vector(dx: 100, dy: 0), duration: 1), withKey: "slide")
    node.run(.wait(forDuration: 0.5)) { log.append("completion") }
    step(scene, by: [0.25])
    node.removeAction(forKey: "slide")
    node.removeAllActions()
    step(scene, by: [1])
    #expect(abs(node.position.x - 25) < 1e-9)
    #expect(log.entries.isEmpty)
    #expect(!node.hasActions())
  }

  @Test("a block that removes its own node's actions stops the rest of its sequence at once")
  func removalFromInsideBlock() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(
      .sequence([
        .run { [unowned node] in node.removeAllActions() },
        .move(by: Vector(dx: 100, dy: 0), duration: 1),
      ])
    ) { log.append("completion") }
    step(scene, by: [0.5, 0.5])
    #expect(node.position.x == 0)
    #expect(log.entries.isEmpty)
  }

  @Test("a block may remove nodes, including the next one to update, without harm")
  func removingNodesDuringUpdate() {
    let scene = Scene()
    let first = Node()
    let second = Node()
    let third = Node()
    for node in [first, second, third] { scene.addChild(node) }
    let log = EventLog()
    first.run(
      .run { [unowned second, unowned first] in
        second.removeFromParent()
        first.removeFromParent()
        log.append("first")
      })
    second.run(.run { log.append("second") })
    third.run(.run { log.append("third") })
    scene.update(deltaTime: 0.1)
    #expect(log.entries == ["first", "third"])
    #expect(scene.children.count == 1)
  }

  @Test("removeFromParent action detaches the node")
  func removeFromParentAction() {
    let (scene, node) = makeSceneWithNode()
    node.run(.sequence([.wait(forDuration: 0.1), .removeFromParent()]))
    step(scene, by: [0.05])
    #expect(node.parent === scene)
    step(scene, by: [0.05])
    #expect(node.parent == nil)
    #expect(scene.children.isEmpty)
  }

  @Test("completion blocks run once, after the action, in order")
  func completionOnce() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(.wait(forDuration: 0.1)) { log.append("a") }
    node.run(.run { log.append("b-action") }) { log.append("b") }
    step(scene, by: [0.05, 0.05, 0.05, 1])
    #expect(log.entries == ["b-action", "b", "a"])
  }

  @Test("actions started from a block begin on the next update")
  func actionsStartedDuringUpdate() {
    let (scene, node) = makeSceneWithNode()
    node.run(.run { [unowned node] in node.run(.moveTo(x: 10, duration: 0)) })
    scene.update(deltaTime: 0.1)
    #expect(node.position.x == 0)
    scene.update(deltaTime: 0.1)
    #expect(node.position.x == 10)
  }

  @Test("one action value runs on 1,000 nodes independently")
  func reusableAction() {
    let scene = Scene()
    let action = Action.sequence([
      .move(by: Vector(dx: 3, dy: 4), duration: 0.3), .fadeOut(withDuration: 0.2),
    ])
    let nodes = (0..<1000).map { index -> Node in
      let node = Node()
      node.position = Point(x: Double(index), y: 0)
      scene.addChild(node)
      node.run(action)
      return node
    }
    step(scene, by: Array(repeating: 1.0 / 60.0, count: 31))
    for (index, node) in nodes.enumerated() {
      #expect(abs(node.position.x - Double(index) - 3) < 1e-9)
      #expect(node.alpha == 0)
    }
  }

  @Test("run(_:onChildWithName:) starts the action on the named child")
  func runOnChild() {
    let (scene, node) = makeSceneWithNode()
    let child = Node()
    child.name = "turret"
    node.addChild(child)
    node.run(.run(.rotate(byAngle: 1, duration: 0.5), onChildWithName: "turret"))
    node.run(.run(.hide(), onChildWithName: "missing"))
    step(scene, by: [0.1, 0.5])
    #expect(abs(child.zRotation - 1) < 1e-9)
    #expect(!node.hasActions())
  }

  @Test("childNode(withName:) finds direct children, and with // the whole subtree")
  func childLookup() {
    let scene = Scene()
    let layer = Node()
    layer.name = "layer"
    let enemy = SpriteNode(color: .red, size: Size(width: 8, height: 8))
    enemy.name = "enemy"
    layer.addChild(enemy)
    scene.addChild(layer)
    #expect(scene.childNode(withName: "layer") === layer)
    #expect(scene.childNode(withName: "enemy") == nil)
    #expect(scene.childNode(withName: "//enemy") === enemy)
    #expect(enemy.scene === scene)
  }

  @Test("adding a node that has a parent moves it")
  func reparenting() {
    let scene = Scene()
    let a = Node()
    let b = Node()
    let child = Node()
    scene.addChild(a)
    scene.addChild(b)
    a.addChild(child)
    b.addChild(child)
    #expect(a.children.isEmpty)
    #expect(b.children.first === child)
    #expect(child.parent === b)
  }

  @Test("hide, unhide, fades, rotations and scales reach their targets")
  func propertyActions() {
    let (scene, node) = makeSceneWithNode()
    node.run(
      .group([
        .sequence([.hide(), .wait(forDuration: 0.1), .unhide()]),
        .fadeAlpha(to: 0.25, duration: 0.2),
        .rotate(toAngle: 2, duration: 0.2),
        .scale(by: 3, duration: 0.2),
        .scaleX(to: 2, y: 5, duration: 0.3),
      ]))
    step(scene, by: [0.05])
    #expect(node.isHidden)
    step(scene, by: [0.3])
    #expect(!node.isHidden)
    #expect(abs(node.alpha - 0.25) < 1e-12)
    #expect(abs(node.zRotation - 2) < 1e-12)
    #expect(node.xScale == 2)
    #expect(node.yScale == 5)
  }
}

@MainActor
@Suite("Colours")
struct ColorTests {
  @Test("SKColor's named colours exist with UIKit's components, so ported code compiles")
  func namedColours() {
    #expect(Color.yellow == Color(red: 1, green: 1, blue: 0))
    #expect(Color.orange == Color(red: 1, green: 0.5, blue: 0))
    #expect(Color.gray == Color(red: 0.5, green: 0.5, blue: 0.5))
    #expect(
      [Color.cyan, .magenta, .purple, .brown, .darkGray, .lightGray].count
        == Set([Color.cyan, .magenta, .purple, .brown, .darkGray, .lightGray]).count)
  }

  @Test(
    "a repeat of an instant action with a huge count runs 10,000 per step instead of hanging; small counts run at once"
  )
  func hugeInstantRepeatDoesNotHang() {
    let (scene, node) = makeSceneWithNode()
    var runs = 0
    node.run(.repeat(.run { runs += 1 }, count: Int.max))
    scene.update(deltaTime: 1.0 / 60)
    #expect(runs == 10_000)
    scene.update(deltaTime: 1.0 / 60)
    #expect(runs == 20_000)
    var few = 0
    node.run(.repeat(.run { few += 1 }, count: 3))
    scene.update(deltaTime: 1.0 / 60)
    #expect(few == 3)
  }
}
