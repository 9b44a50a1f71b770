import FoleyScene
import Testing

@MainActor
@Suite("Reversed actions")
struct ActionReversalTests {
  @Test("an action followed by its reverse returns the node to where it started")
  func roundTrip() {
    let (scene, node) = makeSceneWithNode()
    node.position = Point(x: 5, y: 7)
    var forward = Action.sequence([
      .move(by: Vector(dx: 30, dy: -10), duration: 0.3),
      .rotate(byAngle: 1.5, duration: 0.2),
      .scale(by: 2, duration: 0.1),
      .fadeAlpha(by: -0.5, duration: 0.2),
    ])
    forward.timingMode = .easeIn
    node.run(.sequence([forward, forward.reversed()]))
    step(scene, by: Array(repeating: 0.07, count: 30))
    #expect(abs(node.position.x - 5) < 1e-9)
    #expect(abs(node.position.y - 7) < 1e-9)
    #expect(abs(node.zRotation) < 1e-9)
    #expect(abs(node.xScale - 1) < 1e-9)
    #expect(abs(node.alpha - 1) < 1e-9)
  }

  @Test("a reversed sequence runs its parts backwards")
  func sequenceOrder() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    let sequence = Action.sequence([.run { log.append("a") }, .run { log.append("b") }])
    node.run(sequence.reversed())
    scene.update(deltaTime: 0)
    #expect(log.entries == ["b", "a"])
  }

  @Test("fadeIn and fadeOut, hide and unhide, easeIn and easeOut swap")
  func pairs() {
    let (scene, node) = makeSceneWithNode()
    node.run(.fadeIn(withDuration: 0.1).reversed())
    node.run(.unhide().reversed())
    step(scene, by: [0.2])
    #expect(node.alpha == 0)
    #expect(node.isHidden)
    var eased = Action.move(by: Vector(dx: 1, dy: 0), duration: 1)
    eased.timingMode = .easeIn
    #expect(eased.reversed().timingMode == .easeOut)
  }
}
