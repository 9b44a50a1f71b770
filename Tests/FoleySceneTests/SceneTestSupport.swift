import FoleyScene

/// A scene with one child node, the usual fixture for action tests.
@MainActor
func makeSceneWithNode(seed: UInt64 = 0) -> (Scene, Node) {
  let scene = Scene(size: Size(width: 640, height: 480), seed: seed)
  let node = Node()
  scene.addChild(node)
  return (scene, node)
}

/// Steps `scene` by each of `steps` in turn.
@MainActor
func step(_ scene: Scene, by steps: [Double]) {
  for deltaTime in steps { scene.update(deltaTime: deltaTime) }
}

/// Splits `total` into `parts` uneven positive steps that add up to it (the last absorbs rounding).
func unevenSteps(total: Double, weights: [Double]) -> [Double] {
  let sum = weights.reduce(0, +)
  var steps = weights.map { total * $0 / sum }
  steps[steps.count - 1] = total - steps.dropLast().reduce(0, +)
  return steps
}

/// Records the order of events in a test; a class so blocks can append to it.
@MainActor
final class EventLog {
  var entries: [String] = []
  func append(_ entry: String) { entries.append(entry) }
}
