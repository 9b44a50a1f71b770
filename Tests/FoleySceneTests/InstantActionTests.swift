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
    _ = scene.events.observe("ping") { event in senders.append(event.node.map(ObjectIdentifier.init)) }
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

/// A behavior whose runner cannot restart (the protocol's default): each pass of a container
/// needs a new one. It takes 0.1 s and logs when its runner is made and when it finishes.
struct OneShotBehavior: ActionBehavior {
  let log: EventLog
  let name: String
  var duration: TimeInterval { 0.1 }

  func makeRunner(on node: Node) -> any ActionRunner {
    log.append("\(name) made")
    return OneShotRunner(log: log, name: name)
  }
}

@MainActor
final class OneShotRunner: ActionRunner {
  let log: EventLog
  let name: String
  var elapsed: TimeInterval = 0
  init(log: EventLog, name: String) { (self.log, self.name) = (log, name) }
  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    elapsed += deltaTime
    guard elapsed >= 0.1 - 1e-9 else { return nil }
    log.append("\(name) done")
    return max(0, elapsed - 0.1)
  }
}

@MainActor
@Suite("Runners that cannot restart")
struct NonRestartingRunnerTests {
  static func passes(_ log: EventLog, reenterOnPass reentry: Int?, scene: Scene) -> Action {
    var blocks = 0
    return .repeat(
      .sequence([
        .behavior(OneShotBehavior(log: log, name: "a")),
        .group([.behavior(OneShotBehavior(log: log, name: "b")), .wait(forDuration: 0.05)]),
        .run {
          log.append("block")
          blocks += 1
          if blocks == reentry { scene.update(deltaTime: 0.1) }
        },
      ]), count: 3)
  }

  @Test(
    "a behavior's runner that cannot restart gets a new one on each pass of a repeat, in a sequence and in a group, made when the pass reaches it"
  )
  func newRunnerEachPass() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(Self.passes(log, reenterOnPass: nil, scene: scene)) { log.append("end") }
    step(scene, by: Array(repeating: 0.05, count: 12))
    let pass = ["a made", "a done", "b made", "b done", "block"]
    #expect(log.entries == pass + pass + pass + ["end"])
    #expect(!node.hasActions())
  }

  @Test(
    "a block that updates the scene again in the middle of such a repeat: the runners it replaces are not ones still running, and the repeat ends"
  )
  func newRunnerEachPassReentered() {
    let (scene, node) = makeSceneWithNode()
    let log = EventLog()
    node.run(Self.passes(log, reenterOnPass: 2, scene: scene)) { log.append("end") }
    step(scene, by: Array(repeating: 0.05, count: 12))
    // The nested update runs the rest of the second pass and starts the third inside the step
    // (the same run advanced twice in one frame, as the re-entrant update asks).
    let pass = ["a made", "a done", "b made", "b done", "block"]
    #expect(Array(log.entries.prefix(10)) == pass + pass)
    #expect(log.entries.filter { $0 == "a made" }.count == 3)
    #expect(log.entries.last == "end")
    #expect(!node.hasActions())
  }
}
