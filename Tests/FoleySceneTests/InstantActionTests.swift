import FoleyScene
import Foundation
import Testing

/// How often an instant behavior ran, and how often a runner was made for it.
@MainActor
final class InstantCount {
  var performed = 0
  var runnersMade = 0
}

/// An instant behavior that counts: performed without a runner on its own, through one inside a
/// container.
struct CountingInstant: ActionBehavior {
  let count: InstantCount
  var duration: TimeInterval { 0 }
  var isInstant: Bool { true }

  func perform(on node: Node) { count.performed += 1 }

  func makeRunner(on node: Node) -> any ActionRunner {
    count.runnersMade += 1
    return CountingRunner(count: count)
  }
}

@MainActor
final class CountingRunner: ActionRunner {
  let count: InstantCount
  init(count: InstantCount) { self.count = count }
  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    count.performed += 1
    return deltaTime
  }
  func restart(on node: Node) -> Bool { true }
}

@MainActor
@Suite("Instant actions")
struct InstantActionTests {
  @Test(
    "an instant action runs in its first step with no runner, unless its speed holds it; one removed by an earlier block in the step never runs"
  )
  func instantWithoutRunner() {
    let (scene, node) = makeSceneWithNode()
    let count = InstantCount()
    var blocks = 0
    node.run(.behavior(CountingInstant(count: count)))
    var held = Action.run { blocks += 1 }
    held.speed = 0
    node.run(held, withKey: "held")
    node.run(.run { node.removeAction(forKey: "later") })
    node.run(.behavior(CountingInstant(count: count)), withKey: "later")
    var completions = 0
    node.run(.behavior(CountingInstant(count: count))) { completions += 1 }
    step(scene, by: [0.1])
    #expect(count.performed == 2 && count.runnersMade == 0)
    #expect(completions == 1)
    #expect(blocks == 0 && node.action(forKey: "held") != nil)
    step(scene, by: [0.1])
    #expect(count.performed == 2 && completions == 1 && blocks == 0)
    // Inside a container the part gets a runner, made once and restarted on each pass.
    node.run(
      .repeat(.sequence([.behavior(CountingInstant(count: count)), .wait(forDuration: 0.1)]), count: 3))
    step(scene, by: [0.1, 0.1, 0.1])
    #expect(count.performed == 5 && count.runnersMade == 1)
  }

  @Test("postEvent, an instant behavior, posts in its first step from its node, once; at speed 0 it waits")
  func postEventIsInstant() {
    let (scene, node) = makeSceneWithNode()
    var senders: [ObjectIdentifier?] = []
    _ = scene.events.subscribe("ping") { event in senders.append(event.node.map(ObjectIdentifier.init)) }
    var held = Action.postEvent("ping")
    held.speed = 0
    node.run(held)
    node.run(.postEvent("ping"))
    step(scene, by: [0.1, 0.1])
    #expect(senders == [ObjectIdentifier(node)])
  }

  @Test(
    "a block that updates the scene again mid-step runs the node's other actions once each, and nothing is lost"
  )
  func reentrantUpdate() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    var reentered = false
    node.run(
      .run {
        log.append("outer")
        if !reentered {
          reentered = true
          scene.update(deltaTime: 0)
        }
      })
    node.run(.run { log.append("second") })
    node.run(.move(by: Vector(dx: 10, dy: 0), duration: 1))
    step(scene, by: [0.5])
    node.run(.run { log.append("after") })
    step(scene, by: [0.5])
    #expect(log.entries.filter { $0 == "second" }.count == 1)
    #expect(log.entries.last == "after")
    #expect(abs(node.position.x - 10) < 1e-9)
    #expect(!node.hasActions())
  }
}
