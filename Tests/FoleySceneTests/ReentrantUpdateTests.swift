import FoleyScene
import Testing

/// `scene.update(deltaTime:)` called from inside an update (a block action, an update
/// observer): no action is advanced from inside its own advance, and the step is not lost; it is
/// added to the next update. (Before, a block that updated its scene ran itself again, without
/// end, until the stack overflowed.)
@MainActor
@Suite("Updates asked for from inside an update")
struct ReentrantUpdateTests {
  @Test("a block that updates its scene runs once; its step is added to the next update")
  func blockUpdatingTheScene() {
    let scene = Scene(size: Size(width: 100, height: 100))
    let node = Node()
    scene.addChild(node)
    let blockRuns = Counter()
    node.run(
      .sequence([
        .run {
          blockRuns.value += 1
          scene.update(deltaTime: 0.25)
        },
        .move(by: Vector(dx: 100, dy: 0), duration: 1),
      ]))
    scene.update(deltaTime: 0)
    #expect(blockRuns.value == 1)
    #expect(node.position.x == 0)
    #expect(scene.currentTime == 0)
    // The next update takes its own step and the quarter second the block asked for.
    scene.update(deltaTime: 0.25)
    #expect(blockRuns.value == 1)
    #expect(abs(node.position.x - 50) < 1e-9)
    #expect(abs(scene.currentTime - 0.5) < 1e-9)
  }

  @Test("an observer that updates the scene on every update: one step per call, the asked time kept")
  func observerUpdatingEveryTime() {
    let scene = Scene(size: Size(width: 100, height: 100))
    let node = Node()
    scene.addChild(node)
    node.run(.move(by: Vector(dx: 1_000, dy: 0), duration: 100))
    let steps = Counter()
    scene.observeUpdates(.afterActions) { _ in
      steps.value += 1
      scene.update(deltaTime: 0.1)
    }
    for _ in 0..<10 { scene.update(deltaTime: 0.1) }
    // Ten calls, ten updates; each took its own 0.1 s and (but the first) the 0.1 s asked for
    // in the update before. The last ask waits for the next call.
    #expect(steps.value == 10)
    #expect(abs(scene.currentTime - 1.9) < 1e-9)
    #expect(abs(node.position.x - 19) < 1e-9)
  }

  @MainActor
  final class Counter {
    var value = 0
  }
}
