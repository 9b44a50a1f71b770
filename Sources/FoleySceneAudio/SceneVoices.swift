package import FoleyAudio
package import FoleyScene

/// The one entry point from the scene bridge into the engine: sound actions, audio nodes and the
/// sound map all start their voices here, so a node's volume and pan, the scene's positional
/// placement and the frame's batching apply the same way to each.
@MainActor
package enum SceneVoices {
  /// Starts `source` for `node` and returns its voice (finished at once if the session
  /// suppressed it), or nil when there is no engine to play it.
  ///
  /// - Parameters:
  ///   - node: where the sound happens; nil for an event from no node (centred, not batched).
  ///   - engine: the engine to play through; nil: the one attached to the node's scene.
  ///   - positional: whether the voice follows the node; nil: as the scene was attached
  ///     (`positional:` of `attach`). Only a node in a scene attached to that engine is placed.
  package static func start(
    _ source: SoundSource, for node: Node?, engine: AudioEngine? = nil, volume: Double = 1, loops: Int = 0,
    positional: Bool? = nil
  ) -> Voice? {
    // `if let`, not `Optional.map` or `flatMap` with a closure: main-actor code handing a closure
    // to the standard library (a Swift 5 module) checks its executor on every call, three per
    // trigger here before.
    var link: SceneAudioLink?
    if let scene = node?.scene { link = SceneAudioLink.of(scene) }
    guard let core = engine?.core ?? link?.core else { return nil }
    // The scene's link plays through this engine: the frame's plays go to the queue in one hop
    // after the actions ran, and the voice may follow its node.
    let attached = link?.core === core
    let placed = attached && (positional ?? link!.positionalActions)
    var audio: NodeAudio?
    if let node { audio = NodeAudio.of(node) }
    let voice = core.requestPlay(
      source, volume: volume, pan: audio?.pan ?? 0, groupVolume: audio?.effectiveVolume ?? 1, loops: loops,
      deferred: attached, placement: placed ? link!.placement(for: node!) : nil,
      rate: audio?.playbackRate ?? 1)
    if let audio, !voice.isFinished { audio.shapeNew(voice) }
    if let node, !voice.isFinished {
      (audio ?? NodeAudio.ensure(node)).started(voice)
      if placed { link!.follow(voice, of: node) }
    }
    return voice
  }
}
