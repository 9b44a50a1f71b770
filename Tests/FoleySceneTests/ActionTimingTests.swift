import FoleyCore
import FoleyScene
import Testing

@MainActor
@Suite("Action timing")
struct ActionTimingTests {
  @Test("repeat(move(by:)) in uneven steps adding to 1 s ends exactly at +100")
  func repeatedMoveDoesNotDrift() {
    let (scene, node) = makeSceneWithNode()
    var finished = 0
    node.run(.repeat(.move(by: Vector(dx: 10, dy: 0), duration: 0.1), count: 10)) { finished += 1 }
    step(scene, by: unevenSteps(total: 1.0, weights: [3, 1, 7, 0.5, 2, 9, 4, 1.5, 6, 2, 5, 8]))
    #expect(abs(node.position.x - 100) < 1e-9)
    #expect(node.position.y == 0)
    #expect(finished == 1)
    #expect(!node.hasActions())
  }

  @Test("a sequence hands leftover time to the next action")
  func sequenceCarriesLeftover() {
    let (scene, node) = makeSceneWithNode()
    node.run(.sequence([.wait(forDuration: 0.25), .move(by: Vector(dx: 100, dy: 0), duration: 1)]))
    step(scene, by: [0.1, 0.1, 0.1])  // 0.05 s into the move
    #expect(abs(node.position.x - 5) < 1e-9)
  }

  @Test("a group lasts as long as its longest part and hands back the rest")
  func groupDuration() {
    let (scene, node) = makeSceneWithNode()
    let group = Action.group([
      .move(by: Vector(dx: 10, dy: 0), duration: 0.2), .fadeOut(withDuration: 0.5),
    ])
    #expect(group.duration == 0.5)
    let log = EventLog()
    node.run(.sequence([group, .run { log.append("after") }]))
    step(scene, by: [0.3])
    #expect(abs(node.position.x - 10) < 1e-12)
    #expect(log.entries.isEmpty)
    step(scene, by: [0.3])
    #expect(node.alpha == 0)
    #expect(log.entries == ["after"])
  }

  @Test("a node's speed and its parents' multiply; a paused parent pauses its subtree")
  func speedAndPauseInherit() {
    let (scene, parent) = makeSceneWithNode()
    let child = Node()
    parent.addChild(child)
    parent.speed = 2
    child.speed = 0.25
    child.run(.move(by: Vector(dx: 100, dy: 0), duration: 1))
    step(scene, by: [1])  // effective speed 0.5
    #expect(abs(child.position.x - 50) < 1e-9)
    parent.isPaused = true
    step(scene, by: [1])
    #expect(abs(child.position.x - 50) < 1e-9)
    parent.isPaused = false
    scene.isPaused = true
    step(scene, by: [1])
    #expect(abs(child.position.x - 50) < 1e-9)
  }

  @Test("an action's own speed scales its clock")
  func actionSpeed() {
    let (scene, node) = makeSceneWithNode()
    var fast = Action.move(by: Vector(dx: 100, dy: 0), duration: 1)
    fast.speed = 4
    var frozen = Action.move(by: Vector(dx: 0, dy: 100), duration: 1)
    frozen.speed = 0
    node.run(fast)
    node.run(frozen)
    step(scene, by: [0.125])
    #expect(abs(node.position.x - 50) < 1e-9)
    step(scene, by: [0.25])
    #expect(abs(node.position.x - 100) < 1e-9)
    #expect(node.position.y == 0)
  }

  @Test("speed(to:) changes the node's clock for its later actions")
  func speedAction() {
    let (scene, node) = makeSceneWithNode()
    node.run(.speed(to: 3, duration: 0))
    step(scene, by: [0])
    #expect(node.speed == 3)
    node.run(.move(by: Vector(dx: 30, dy: 0), duration: 1))
    step(scene, by: [0.1])
    #expect(abs(node.position.x - 9) < 1e-9)
  }

  @Test("easing changes the path, not the end points", arguments: Easing.allCases)
  func easingEndpoints(mode: Easing) {
    let (scene, node) = makeSceneWithNode()
    var move = Action.move(to: Point(x: 100, y: 0), duration: 1)
    move.timingMode = mode
    node.run(move)
    step(scene, by: [0.25])
    let quarter = node.position.x
    step(scene, by: [0.25, 0.25, 0.3])
    #expect(node.position.x == 100)
    #expect(abs(quarter - 100 * mode.apply(0.25)) < 1e-9)
    switch mode.shape {
    case .linear: #expect(abs(quarter - 25) < 1e-9)
    case .easeIn, .easeInEaseOut, .smoothstep: #expect(quarter < 25)
    case .easeOut: #expect(quarter > 25)
    }
  }

  @Test("a timing mode on a sequence shapes the whole sequence and still ends exactly")
  func easedSequence() {
    let (scene, node) = makeSceneWithNode()
    var sequence = Action.sequence([
      .move(by: Vector(dx: 50, dy: 0), duration: 0.5), .move(by: Vector(dx: 50, dy: 0), duration: 0.5),
    ])
    sequence.timingMode = .easeIn
    let log = EventLog()
    node.run(sequence) { log.append("done") }
    step(scene, by: [0.5])
    #expect(abs(node.position.x - 25) < 1e-9)  // easeIn(0.5) = 0.25 of the way
    step(scene, by: [0.5])
    #expect(abs(node.position.x - 100) < 1e-9)
    #expect(log.entries == ["done"])
  }

  @Test("a custom timing function is used and ends at the target")
  func customTimingFunction() {
    let (scene, node) = makeSceneWithNode()
    var move = Action.moveTo(x: 100, duration: 1)
    move.timingFunction = { $0 * $0 * $0 }
    node.run(move)
    step(scene, by: [0.5])
    #expect(abs(node.position.x - 12.5) < 1e-9)
    step(scene, by: [0.5])
    #expect(node.position.x == 100)
  }

  @Test("customAction gets the elapsed time, last exactly the duration")
  func customActionElapsed() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(.customAction(withDuration: 0.5) { _, elapsed in log.append("\(elapsed)") })
    step(scene, by: [0.2, 0.2, 0.2])
    #expect(log.entries == ["0.2", "0.4", "0.5"])
  }

  @Test("repeatForever of an instant action runs once per frame, not forever")
  func repeatForeverInstant() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(.repeatForever(.run { log.append("tick") }))
    step(scene, by: [0.1, 0.1, 0.1])
    #expect(log.entries.count == 3)
    #expect(node.hasActions())
  }

  @Test("wait(withRange:) replays identically for a seed and stays within its range")
  func seededWait() {
    func finishingFrame(seed: UInt64) -> Int? {
      let (scene, node) = makeSceneWithNode(seed: seed)
      node.run(.wait(forDuration: 1, withRange: 1))
      for frame in 1...120 {
        scene.update(deltaTime: 1.0 / 60.0)
        if !node.hasActions() { return frame }
      }
      return nil
    }
    let frames = (0..<20).map { finishingFrame(seed: UInt64($0)) }
    #expect(frames == (0..<20).map { finishingFrame(seed: UInt64($0)) })
    for frame in frames {
      let frame = try! #require(frame)
      #expect((30...90).contains(frame))
    }
    #expect(Set(frames).count > 1)
  }
}
