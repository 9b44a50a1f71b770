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
  ///   - options: the play's own pan (added to the node's), rate (times the node's), start frame
  ///     and fade-in.
  package static func start(
    _ source: SoundSource, for node: Node?, engine: AudioEngine? = nil, volume: Double = 1, loops: Int = 0,
    positional: Bool? = nil, options: PlayOptions? = nil
  ) -> Voice? {
    // `if let`, not `Optional.map` or `flatMap` with a closure: main-actor code handing a closure
    // to the standard library (a Swift 5 module) checks its executor on every call, three per
    // trigger here before. The scene's link and the node's audio state are borrowed (the scene
    // and the node hold them): retaining and releasing them, the scene and the core cost more
    // than reading them.
    var linkPointer: UnsafeRawPointer?
    if let scene = node?.unretainedScene {
      linkPointer = scene.borrow { $0.unretainedStorage(SceneAudioLink.storageKey) }
    }
    let audioPointer = node?.unretainedStorage(NodeAudio.storageKey)
    guard let linkPointer else {
      guard let engine else { return nil }
      return start(
        source, for: node, core: engine.core, link: nil, audio: audioPointer, volume: volume, loops: loops,
        options: options)
    }
    return Unmanaged<SceneAudioLink>.fromOpaque(linkPointer).borrow { link in
      // The scene's link plays through this engine: the frame's plays go to the queue in one hop
      // after the actions ran, and the voice may follow its node.
      if let engine, engine.core !== link.core {
        return start(
          source, for: node, core: engine.core, link: nil, audio: audioPointer, volume: volume, loops: loops,
          options: options)
      }
      return start(
        source, for: node, core: link.core, link: link, audio: audioPointer, volume: volume, loops: loops,
        positional: positional ?? link.positionalActions, options: options)
    }
  }

  /// `start`'s work once the core is known: `link` when the scene's link plays through it (the
  /// play is batched with the frame's, and placed when `positional`), `audio` the node's state.
  @inline(__always)
  private static func start(
    _ source: SoundSource, for node: Node?, core: MixerCore, link: SceneAudioLink?, audio: UnsafeRawPointer?,
    volume: Double, loops: Int, positional: Bool = false, options: PlayOptions?
  ) -> Voice {
    var held: Unmanaged<NodeAudio>?
    if let audio { held = Unmanaged<NodeAudio>.fromOpaque(audio) }
    let audio = held
    let placed = link != nil && positional && node != nil
    var pan = 0.0
    var groupVolume = 1.0
    var rate = 1.0
    audio?.borrow { audio in
      pan = audio.pan
      groupVolume = audio.effectiveVolume
      rate = audio.playbackRate
    }
    if let options {
      pan += options.pan
      rate *= options.rate
    }
    // Reckoned once: the voice's first placement, and where the link follows it from.
    var place: ScenePlace?
    if placed { place = link!.place(of: node!) }
    // Through the scene's link, into the frame's batch (no lock; the link hands it over once
    // after the update); otherwise straight to the queue.
    let voice: Voice
    if link != nil {
      voice = core.requestPlay(
        source, volume: volume, pan: pan, groupVolume: groupVolume, loops: loops, placement: place?.placement,
        rate: rate, into: &link!.batch)
      // Still the batch's until the update ends: its start and fade-in are set before the queue sees it.
      if let options, !options.isPlain {
        core.prepareStart(of: voice, schedule: options.scheduledStart, fadeIn: options.fadeIn)
      }
      if let options, !options.modulators.isEmpty, !voice.isFinished {
        core.presetModulators(options.modulators, on: voice)
      }
    } else if let options {
      voice = core.requestPlay(
        source, volume: volume, pan: pan, groupVolume: groupVolume, loops: loops, placement: place?.placement,
        rate: rate, schedule: options.scheduledStart,
        fadeIn: options.fadeIn.usableDuration > 0 ? options.fadeIn : nil, modulators: options.modulators)
    } else {
      voice = core.requestPlay(
        source, volume: volume, pan: pan, groupVolume: groupVolume, loops: loops, placement: place?.placement,
        rate: rate)
    }
    guard let node, !voice.isFinished else { return voice }
    if let audio {
      audio.borrow { audio in
        audio.shapeNew(voice)
        audio.started(voice)
      }
    } else {
      NodeAudio.ensure(node).started(voice)
    }
    if let place {
      if let path = place.path {
        voice.setAcoustics(
          cutoff: path.cutoff, send: path.send, occlusion: path.occlusionDecibels, portal: path.portal,
          over: 0)
      }
      link!.follow(voice, of: node, at: place)
      if case .sound(let sound) = source, sound.settings.caption != nil || sound.settings.rumble != nil {
        link!.followForAccessibility(voice, at: node)
      }
    }
    return voice
  }
}
