import FoleyCore
import Foundation

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
  private var missingPlays = 0

  /// Loads every sound `capture` names from the engine's asset roots and checks its samples.
  /// - Throws: ``CaptureError/missingSound(_:)`` or ``CaptureError/changedSound(_:)`` unless
  ///   `allowingChangedSounds`, which replays without a missing sound and with a changed one,
  ///   naming each in ``warnings``.
  package init(engine: AudioEngine, capture: CaptureFile, allowingChangedSounds: Bool) throws(CaptureError) {
    self.engine = engine
    for identity in capture.sounds.values.sorted(by: { $0.id < $1.id }) {
      let loaded: Sound
      do {
        loaded = try engine.sound(named: identity.name)
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
    case .gain(let id, let pan, let groupVolume):
      guard let voice = voice(id) else { return }
      if voice.pan != pan { voice.pan = pan }
      if voice.groupVolume != groupVolume { voice.groupVolume = groupVolume }
    case .stop(let id, let tween): voice(id)?.stop(tween: Self.tween(tween))
    case .pause(let id): voice(id)?.pause()
    case .resume(let id): voice(id)?.resume()
    case .mix(let mix, let tween):
      engine.core.buses.withLock { $0 = $0.applying(mix) }
      engine.applyBuses(tween: Self.tween(tween))
    case .session(let reasons, let resumes):
      engine.core.replaySession(inactive: reasons, resumesPausedVoices: resumes)
    }
    engine.waitUntilIdle()
  }

  /// Adds what the replay met on its way to ``warnings``; call once, at its end.
  package func finish() {
    if missingPlays > 0 {
      warnings.append("\(missingPlays) plays of sounds the replay does not have were left out")
    }
    if unknownVoices > 0 {
      warnings.append("\(unknownVoices) commands were for voices that started before the capture")
    }
  }

  private func start(_ play: CapturedPlay) {
    guard let sound = sounds[play.sound] else {
      missingPlays += 1
      return
    }
    let placement = play.placementGain.map { SpatialPlacement(gain: $0, pan: play.placementPan ?? 0) }
    // Held, so that the queue admits it with its start tween already on it.
    let voice = engine.holdingRequests {
      let voice = engine.core.requestPlay(
        .sound(sound), volume: play.volume, pan: play.pan, groupVolume: play.groupVolume, loops: play.loops,
        placement: placement, rate: play.rate, schedule: play.start.map { ScheduledStart(frame: $0) })
      if let level = play.level {
        voice.keepLevelTween(
          from: level.from, frames: level.frames, easing: Easing(captureName: level.easing) ?? .linear,
          start: level.start ?? .max)
      }
      if play.normalization != 1 { voice.normalization = play.normalization }
      return voice
    }
    voices[play.voice] = voice
  }

  private func voice(_ id: UInt64) -> Voice? {
    guard let voice = voices[id] else {
      unknownVoices += 1
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
