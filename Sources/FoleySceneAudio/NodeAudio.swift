import FoleyAudio
import FoleyScene

/// What the scene bridge keeps per node, in the node's storage under its own key: the volume
/// `Action.changeVolume(to:duration:)` gave it, and the voices it started (so a volume change
/// reaches them). A field read per trigger, no table to search; it goes when the node does.
/// Not main-actor isolated itself (each call would then carry an executor check): it is only ever
/// reached through a node, on the game thread. For the same reason its fields skip the runtime's
/// exclusivity checks (one thread, never touched twice at once: a trigger read four of them).
final class NodeAudio: SceneMembershipObserver {
  @exclusivity(unchecked) package var volume: Double = 1
  /// The stereo pan `Action.stereoPan(to:duration:)` gave the node (added to its voices' own).
  @exclusivity(unchecked) package var pan: Double = 0
  /// The playback rate `.changePlaybackRate` gave the node's voices (see `NodeAudio+Shaping`).
  @exclusivity(unchecked) package var playbackRate: Double = 1
  /// The node's send to the engine's reverb (`.changeReverb`), 0…1.
  @exclusivity(unchecked) package var reverbSend: Double = 0
  /// `.changeObstruction` and `.changeOcclusion`, in decibels (-100…0, 0: none), as
  /// AVAudio3DMixing measures them.
  @exclusivity(unchecked) var obstruction: Double = 0
  @exclusivity(unchecked) var occlusion: Double = 0
  @exclusivity(unchecked) private var voices: [Voice] = []
  /// The slots of the node's positional voices in the scene links that place them (usually one
  /// link, one or two slots): an update that finds the node moved marks them without a search.
  @exclusivity(unchecked) var positionalSlots: [PositionalSlot] = []
  /// The list's length at which finished voices are next dropped: twice what was left last time
  /// (at least 4), so a node that keeps many voices playing is not scanned on every trigger, and
  /// one that plays every frame lets its finished voices go within a few frames (for the engine
  /// to reuse: a thousand such nodes must not hold 16,000 voices).
  @exclusivity(unchecked) private var pruneAt = 4

  /// The node's slot for it (the scene's engine link has a slot of its own).
  static let storageKey = NodeStorageKey<NodeAudio>()

  /// The node's audio state, if it has any yet.
  @MainActor package static func of(_ node: Node) -> NodeAudio? { node[storage: storageKey] }

  /// The node's audio state, made on first use.
  @MainActor static func ensure(_ node: Node) -> NodeAudio {
    if let state = of(node) { return state }
    let state = NodeAudio()
    node[storage: storageKey] = state
    return state
  }

  /// Drops the node's entry for `slot` in `link`'s table (there is at most one).
  ///
  /// Found from the front and removed where it lies: voices finish about in the order they
  /// started, so the entry is usually among the first. Filtering the whole list compared every
  /// entry, and a node that keeps hundreds of positional voices (a sound map posting a hundred
  /// a frame from one node) spent most of its scene's update doing so.
  func forgetPositionalSlot(_ slot: Int, of link: ObjectIdentifier) {
    // By index: an iterator or a closure would retain the list (and the closure check its
    // executor per entry).
    var index = 0
    while index < positionalSlots.count {
      let entry = positionalSlots[index]
      if entry.link == link && entry.slot == slot {
        positionalSlots.remove(at: index)
        return
      }
      index += 1
    }
  }

  /// The voice the node started last.
  package var newest: Voice? { voices.last }

  /// Remembers that the node started `voice`. Finished voices are dropped now and then, so a node
  /// that plays every frame keeps a short list.
  package func started(_ voice: Voice) {
    if voices.count >= pruneAt {
      pruneFinished()
      pruneAt = max(4, voices.count * 2)
    }
    voices.append(voice)
  }

  /// Drops the finished voices, keeping the others in order: compacted in place, each voice
  /// read where it lies (`removeAll(where:)` retained and released every voice it looked at).
  private func pruneFinished() {
    let kept = voices.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return 0 }
      let references = UnsafeRawPointer(base)
      let stride = MemoryLayout<Unmanaged<Voice>>.stride
      var kept = 0
      for index in buffer.indices {
        // Borrowed where it lies: reading `buffer[index]` retained it for the call.
        let voice = references.load(fromByteOffset: index &* stride, as: Unmanaged<Voice>.self)
        guard !voice._withUnsafeGuaranteedRef({ $0.isFinished }) else { continue }
        if kept != index { buffer.swapAt(kept, index) }
        kept += 1
      }
      return kept
    }
    voices.removeLast(voices.count - kept)
  }

  /// The node's voices that have not finished.
  package var liveVoices: [Voice] {
    pruneFinished()
    return voices
  }

  /// Sets the node's pan and applies it to its voices still playing.
  func setPan(_ newPan: Double) {
    pan = newPan.clamped(to: -1...1, or: pan, member: "Action.stereoPan")
    for voice in liveVoices { voice.pan = pan }
  }

  @MainActor package func node(_ node: Node, didEnter scene: Scene) {
    (node as? AudioNode)?.didEnter(scene)
    (node as? AcousticNode)?.didEnter(scene)
  }

  @MainActor package func node(_ node: Node, willLeave scene: Scene) {
    (node as? AudioNode)?.willLeave(scene)
    (node as? AcousticNode)?.willLeave(scene)
  }

  /// Sets the node's volume and applies it to its voices still playing.
  package func setVolume(_ newVolume: Double) {
    volume = newVolume.clamped(to: 0...1, or: volume, member: "Action.changeVolume")
    pruneFinished()
    for voice in voices { voice.groupVolume = effectiveVolume }
  }
}

/// One positional voice's slot in a scene link's table.
struct PositionalSlot {
  /// The link (`SceneAudioLink`) whose table the slot is in.
  package let link: ObjectIdentifier
  package let slot: Int
}
