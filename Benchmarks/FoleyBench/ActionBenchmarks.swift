import Foley
import Foundation
import Logging
import Synchronization

/// The action system per node and frame, beside two floors: a hand-written loop over the same
/// `Node` objects (the floor for this API) and the same arithmetic on a flat array (the floor for
/// any API).
@MainActor
enum ActionBenchmarks {
  static let nodeCount = 10_000
  static let step = 1.0 / 60.0

  /// 10,000 nodes each running move / wait / playSound forever, with the session inactive (so the
  /// sound gate is exercised and nothing plays).
  static func actions(_ sound: Data, frames: Int, logger: Logger) throws -> Double {
    let session = AudioSession()
    let engine = try AudioEngine(
      configuration: TriggerBenchmarks.configuration(channels: 256), session: session, logger: logger)
    defer { engine.close() }
    session.deactivate(reason: .host("benchmark"))
    let scene = Scene()
    engine.attach(to: scene)
    let action = Action.repeatForever(
      .sequence([
        .move(by: Vector(dx: 3, dy: 1), duration: 0.25), .wait(forDuration: 0.25), .playSound(data: sound),
      ]))
    for index in 0..<nodeCount {
      let node = Node()
      node.position = Point(x: Double(index % 100), y: Double(index / 100))
      scene.addChild(node)
      node.run(action)
    }
    for _ in 0..<30 { scene.update(deltaTime: step) }  // warm up
    let start = Clocks.threadCPUNanoseconds
    for _ in 0..<frames { scene.update(deltaTime: step) }
    let elapsed = Clocks.threadCPUNanoseconds - start
    precondition(engine.statistics.suppressed > 0, "the gate must be exercised")
    return Double(elapsed) / Double(frames) / Double(nodeCount)
  }

  /// The same behaviour written by hand over the same `Node` objects: move for 0.25 s, wait
  /// 0.25 s, check the sound gate, with each node's phase in a parallel array.
  static func objectsLoop(frames: Int) -> Double {
    let scene = Scene()
    var nodes: [Node] = []
    for index in 0..<nodeCount {
      let node = Node()
      node.position = Point(x: Double(index % 100), y: Double(index / 100))
      scene.addChild(node)
      nodes.append(node)
    }
    var phases = [Double](repeating: 0, count: nodeCount)
    let active = Atomic<Bool>(false)
    var plays = 0
    let start = Clocks.threadCPUNanoseconds
    for _ in 0..<frames {
      for index in nodes.indices {
        let node = nodes[index]
        let before = phases[index]
        let after = before + step
        if before < 0.25 {
          let moving = min(after, 0.25) - before
          node.position.x += 3 * moving / 0.25
          node.position.y += 1 * moving / 0.25
        }
        if after >= 0.5 {
          phases[index] = after - 0.5
          if active.load(ordering: .acquiring) { plays += 1 }
        } else {
          phases[index] = after
        }
      }
    }
    let elapsed = Clocks.threadCPUNanoseconds - start
    precondition(nodes.reduce(0) { $0 + $1.position.x } > 0 && plays == 0)
    return Double(elapsed) / Double(frames) / Double(nodeCount)
  }

  struct PlainNode {
    var x: Double
    var y: Double
    var phase: Double
    var plays: Int
  }

  /// The same arithmetic on a plain array of structs.
  static func flatLoop(frames: Int) -> Double {
    var nodes = (0..<nodeCount).map {
      PlainNode(x: Double($0 % 100), y: Double($0 / 100), phase: 0, plays: 0)
    }
    let active = Atomic<Bool>(false)
    let start = Clocks.threadCPUNanoseconds
    for _ in 0..<frames {
      for index in nodes.indices {
        var node = nodes[index]
        let before = node.phase
        node.phase += step
        if before < 0.25 {
          let moving = min(node.phase, 0.25) - before
          node.x += 3 * moving / 0.25
          node.y += 1 * moving / 0.25
        }
        if node.phase >= 0.5 {
          node.phase -= 0.5
          if active.load(ordering: .acquiring) { node.plays += 1 }
        }
        nodes[index] = node
      }
    }
    let elapsed = Clocks.threadCPUNanoseconds - start
    precondition(nodes.reduce(0) { $0 + $1.x } > 0)
    return Double(elapsed) / Double(frames) / Double(nodeCount)
  }

  static func figures(_ short: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let frames = quick ? 120 : 600
    return [
      "actions_ns_per_node": try actions(short, frames: frames, logger: logger),
      "objects_loop_ns_per_node": objectsLoop(frames: frames),
      "baseline_loop_ns_per_node": flatLoop(frames: frames),
    ]
  }
}
