import FoleyCore
import FoleyScene
import PropertyBased
import Testing

@MainActor
@Suite("Action properties")
struct ActionPropertyTests {
  @Test("a repeated move ends at count × delta for any uneven stepping that covers its duration")
  func repeatedMoveAnySteps() async {
    await propertyCheck(
      input: Gen.int(in: 1...20), Gen.double(in: 0.01...1), Gen.double(in: 0.05...5).array(of: 1...40)
    ) { count, duration, weights in
      let (scene, node) = makeSceneWithNode()
      var completions = 0
      node.run(.repeat(.move(by: Vector(dx: 10, dy: -2), duration: duration), count: count)) {
        completions += 1
      }
      step(scene, by: unevenSteps(total: duration * Double(count), weights: weights))
      #expect(abs(node.position.x - 10 * Double(count)) < 1e-6)
      #expect(abs(node.position.y + 2 * Double(count)) < 1e-6)
      #expect(completions == 1)
    }
  }

  @Test("every timing curve fixes 0 and 1 and never goes backwards")
  func timingCurvesMonotonic() async {
    await propertyCheck(
      input: Gen<Easing>.case, Gen.double(in: 0...1), Gen.double(in: 0...1)
    ) { mode, a, b in
      #expect(mode.apply(0) == 0)
      #expect(mode.apply(1) == 1)
      let (low, high) = (min(a, b), max(a, b))
      #expect(mode.apply(low) <= mode.apply(high))
    }
  }

  @Test("a sequence's leftover time is exact: its completion lands in the step that covers its duration")
  func sequenceCompletionStep() async {
    await propertyCheck(
      input: Gen.double(in: 0.01...0.5).array(of: 1...6), Gen.double(in: 0.004...0.05)
    ) { durations, stepSize in
      let (scene, node) = makeSceneWithNode()
      let total = durations.reduce(0, +)
      var finishedAt: Double?
      var clock = 0.0
      node.run(.sequence(durations.map { .wait(forDuration: $0) })) { finishedAt = clock }
      while finishedAt == nil && clock < total + 1 {
        clock += stepSize
        scene.update(deltaTime: stepSize)
      }
      let finish = try #require(finishedAt)
      #expect(finish >= total - 1e-9)
      #expect(finish < total + stepSize + 1e-9)
    }
  }
}
