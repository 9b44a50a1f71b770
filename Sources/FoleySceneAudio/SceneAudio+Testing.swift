// What the tests and the benchmark read and a game has no use for: package members, out of the
// scene audio's production files.
package import FoleyAudio
package import FoleyScene

extension AudioEngine {
  /// The voice `node`'s sound actions started last, if any. For the latency benchmark.
  @MainActor
  package func newestVoice(of node: Node) -> Voice? { NodeAudio.of(node)?.newest }
}

extension SceneAudioLink {
  /// Each followed voice's node and the placement it was last given (for tests: every update
  /// must leave each of them where its node is heard from the listener).
  package var followedPlacements: [(node: Node, placement: SpatialPlacement)] {
    slotState.indices.compactMap { slot in
      guard slotState[slot].isLive, let node = slotState[slot].node else { return nil }
      return (node.takeUnretainedValue(), slotState[slot].placement)
    }
  }
}
