import FoleyCore
package import Foundation

/// Applies a capture's commands to an engine on an embedded mixer, each when the mixer has made
/// the frames before it: what `OfflineRenderer.replay` drives.
@MainActor
package final class CaptureReplayer {
  private let engine: AudioEngine
  private var sounds: [Int: Sound] = [:]
  private var voices: [UInt64: Voice] = [:]
  /// What the replay could not do as the live engine did, for its report.
  package private(set) var warnings: [String] = []
  package private(set) var commands = 0
  private var unknownVoices = 0
  /// Shaping requests made of a voice before the queue started it (a scene sets a new voice's
  /// doppler in the update that asks for it): its start takes them, as it did live.
  private var earlyShapes: [UInt64: [(ShapingKind, RampRequest)]] = [:]
  private var missingPlays = 0
  /// The voices whose plays were left out (their sound is missing), and the commands for them.
  private var leftOut: Set<UInt64> = []
  private var leftOutCommands = 0

  /// Loads every sound `capture` names from the engine's asset roots and checks its samples.
  /// - Throws: ``CaptureError/missingSound(_:)`` or ``CaptureError/changedSound(_:)`` unless
  ///   `allowingChangedSounds`, which replays without a missing sound and with a changed one,
  ///   naming each in ``warnings``.
  package init(
    engine: AudioEngine, capture: CaptureFile, sounds given: [String: Data], allowingChangedSounds: Bool
  ) throws(CaptureError) {
    self.engine = engine
    engine.core.beginReplay()
    for identity in capture.sounds.values.sorted(by: { $0.id < $1.id }) {
      let loaded: Sound
      do {
        // A sound the game made in code comes from the bytes the replay is given for its name.
        let named =
          try given[identity.name].map { try engine.sound(data: $0, name: identity.name) }
          ?? engine.sound(named: identity.name)
        // A pitched copy is made again from its source, as the live engine made it (when that
        // fails, the source plays, and its samples are found changed below).
        loaded = identity.semitones.flatMap { engine.library.pitched(named, semitones: $0) } ?? named
      } catch {
        guard allowingChangedSounds else { throw .missingSound(identity.name) }
        warnings.append("\"\(identity.name)\" is not in the asset roots: its plays are left out")
        continue
      }
      if CommandCapture.contentHash(of: loaded.buffer) != identity.contentHash {
        guard allowingChangedSounds else { throw .changedSound(identity.name) }
        warnings.append("\"\(identity.name)\" has changed since it was captured: it plays as it is now")
      }
      var settings = SoundSettings()
      settings.volume = identity.volume
      settings.pan = identity.pan
      settings.priority = identity.priority
      settings.category = SoundCategory(identity.category)
      settings.maximumInstances = identity.maximumInstances
      settings.policy = ChannelPolicy(captureName: identity.policy) ?? .stealOldest
      settings.isCritical = identity.isCritical
      sounds[identity.id] = Sound(name: identity.name, settings: settings, buffer: loaded.buffer)
    }
    if capture.header.voicesAtStart > 0 {
      warnings.append(
        "\(capture.header.voicesAtStart) voices were already sounding when the capture began: they are not in it"
      )
    }
    // One warning per sound, however many of its variants (a map's pitched copies) the capture names.
    var seen: Set<String> = []
    warnings = warnings.filter { seen.insert($0).inserted }
    for (kind, count) in capture.unsupported.sorted(by: { $0.key < $1.key }) {
      warnings.append("the capture holds \(kind) it cannot replay (noted in \(count) seconds)")
    }
    apply(.mix(capture.header.mix, tween: CapturedTween(duration: 0, easing: "linear", start: nil)))
  }

  /// Applies one command, as the live engine's audio queue did on the frame the mixer is at.
  package func apply(_ command: CaptureCommand) {
    commands += 1
    switch command {
    case .sound, .mark, .end, .unsupported: commands -= 1
    case .play(let play): start(play)
    case .volume(let id, let volume, let tween):
      voice(id)?.setVolume(volume, tween: Self.tween(tween))
    case .pan(let id, let pan, let tween):
      voice(id)?.setPan(pan, tween: Self.tween(tween))
    case .gain(let id, let pan, let groupVolume):
      guard let voice = voice(id) else { return }
      if voice.pan != pan { voice.pan = pan }
      if voice.groupVolume != groupVolume { voice.groupVolume = groupVolume }
    case .place(let id, let gain, let pan, let glide):
      guard let voice = voice(id) else { return }
      engine.core.replayPlacement(of: voice, at: SpatialPlacement(gain: gain, pan: pan), glide: glide)
    case .shape(let id, let kind, let target, let frames, let easing, let start):
      guard let kind = ShapingKind(rawValue: kind) else {
        warnings.append("a shaping request of an unknown kind (\"\(kind)\") was left out")
        return
      }
      let request = RampRequest(
        target: Float(target), frames: UInt32(clamping: frames),
        easing: Easing(captureName: easing) ?? .linear,
        start: start)
      guard let voice = voices[id] else {
        earlyShapes[id, default: []].append((kind, request))
        return
      }
      engine.core.replayShaping(kind, request, of: voice)
    case .stop(let id, let tween): voice(id)?.stop(tween: Self.tween(tween))
    case .pause(let id): voice(id)?.pause()
    case .resume(let id): voice(id)?.resume()
    case .mix(let mix, let tween):
      engine.core.buses.withLock { $0 = $0.applying(mix) }
      engine.applyBuses(tween: Self.tween(tween))
    case .session(let reasons, let resumes):
      engine.core.replaySession(inactive: reasons, resumesPausedVoices: resumes)
    }
  }

  /// Waits until the engine has applied what was given it: before the mixer moves on.
  package func settle() { engine.waitUntilIdle() }

  /// Adds what the replay met on its way to ``warnings``; call once, at its end.
  package func finish() {
    if missingPlays > 0 {
      warnings.append(
        "\(missingPlays) plays of sounds the replay does not have were left out, and \(leftOutCommands) commands for them"
      )
    }
    if unknownVoices > 0 {
      warnings.append("\(unknownVoices) commands were for voices that started before the capture")
    }
  }

  private func start(_ play: CapturedPlay) {
    guard let sound = sounds[play.sound] else {
      missingPlays += 1
      leftOut.insert(play.voice)
      return
    }
    let placement = play.placementGain.map { SpatialPlacement(gain: $0, pan: play.placementPan ?? 0) }
    // Held, so that the queue admits it with its start tween already on it.
    let voice = engine.holdingRequests {
      let voice = engine.core.requestPlay(
        .sound(sound), volume: play.volume, pan: play.pan, groupVolume: play.groupVolume, loops: play.loops,
        placement: placement, rate: play.rate,
        schedule: play.start.map { frame in
          var schedule = ScheduledStart(frame: frame)
          schedule.joinsLate = play.joinsLate == true
          return schedule
        })
      if let level = play.level {
        voice.keepLevelTween(
          from: level.from, frames: level.frames, easing: Easing(captureName: level.easing) ?? .linear,
          start: level.start ?? .max)
      }
      if play.normalization != 1 { voice.normalization = play.normalization }
      for (kind, request) in earlyShapes.removeValue(forKey: play.voice) ?? [] {
        voice.store(kind, request)
        if MixerCore.needsShaper(kind, request.target) { voice.needsShaper.store(true, ordering: .relaxed) }
      }
      return voice
    }
    voices[play.voice] = voice
    // Admitted now, on this frame, before the commands after it (which may be for this voice).
    engine.waitUntilIdle()
  }

  private func voice(_ id: UInt64) -> Voice? {
    guard let voice = voices[id] else {
      if leftOut.contains(id) { leftOutCommands += 1 } else { unknownVoices += 1 }
      return nil
    }
    return voice
  }

  private static func tween(_ tween: CapturedTween) -> Tween {
    Tween(
      duration: tween.duration, easing: Easing(captureName: tween.easing) ?? .linear,
      start: tween.start.map { .frame(AudioFrame(Int(clamping: $0))) } ?? .now)
  }
}
