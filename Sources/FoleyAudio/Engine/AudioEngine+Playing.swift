public import Foundation

extension AudioEngine {
  /// Plays `sound` on a channel of its own and returns its voice at once.
  /// - Parameters:
  ///   - sound: what to play, decoded for this engine.
  ///   - volume: this play's gain in 0...1 (multiplied with the sound's own volume).
  ///   - pan: this play's stereo position in -1 (left) ... 1 (right), added to the sound's own.
  ///   - loops: extra passes after the first; -1 loops until the voice is stopped.
  ///   - rate: the playback rate it starts at (0.25…4; see ``Voice/setPlaybackRate(_:tween:)``).
  @discardableResult
  public func play(
    _ sound: Sound, volume: Double = 1, pan: Double = 0, loops: Int = 0, rate: Double = 1
  ) -> Voice {
    _ = refusesUseAfterClose("play(\(sound.name))")
    return core.requestPlay(.sound(sound), volume: volume, pan: pan, groupVolume: 1, loops: loops, rate: rate)
  }

  /// Plays the sound decoded from `data`, decoding it (off the audio queue) only the first time
  /// these bytes are seen; the voice is pending until then. The same options as
  /// ``play(_:volume:pan:loops:rate:)``.
  ///
  /// ```swift
  /// engine.play(data: engineHum, name: "hum.ogg", volume: 0.4, loops: -1, rate: 0.9)
  /// ```
  @discardableResult
  public func play(
    data: Data, name: String? = nil, volume: Double = 1, pan: Double = 0, loops: Int = 0, rate: Double = 1
  ) -> Voice {
    _ = refusesUseAfterClose("play(data: \(name ?? "sound data"))")
    return core.requestPlay(
      .data(SoundDataReference(data: data, name: name)), volume: volume, pan: pan, groupVolume: 1,
      loops: loops,
      rate: rate)
  }

  package func play(_ source: SoundSource, volume: Double, pan: Double, groupVolume: Double) -> Voice {
    core.requestPlay(source, volume: volume, pan: pan, groupVolume: groupVolume)
  }

  /// Stops every voice (of `category`, or of every category), ramping out over `fadeOut`
  /// seconds. This reaches the voices that actions started, which have no handle in the game's
  /// hands; a `playSound(…, waitForCompletion: true)` waiting on one of them then finishes.
  public func stopAllVoices(of category: SoundCategory? = nil, fadeOut: Double = 0) {
    core.stopAll(category: category, fadeOut: fadeOut)
  }

  /// Resumes every voice (of `category`, or of every category) that is paused, for instance
  /// after `endInterruption(shouldResume: false)` left them for the game to decide.
  public func resumeAllVoices(of category: SoundCategory? = nil) {
    core.resumeAll(category: category)
  }
}
