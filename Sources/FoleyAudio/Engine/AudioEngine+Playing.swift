public import Foundation

extension AudioEngine {
  /// Plays `sound` on a channel of its own and returns its voice at once. Every way to start a
  /// sound takes these options (``play(data:name:volume:pan:loops:rate:start:fadeIn:)``,
  /// `Action.playSound`, `SoundMap.post`).
  ///
  /// ```swift
  /// engine.play(hit)
  /// engine.play(hum, volume: 0.4, loops: -1, fadeIn: Tween(duration: 2, easing: .easeOut))
  /// let downbeat = engine.audioFrame + engine.frames(forSeconds: 0.5)
  /// engine.play(kick, start: .frame(downbeat))
  /// engine.play(crash, volume: 0.7, start: .frame(downbeat))   // sample-together with the kick
  /// ```
  /// - Parameters:
  ///   - sound: what to play, decoded for this engine.
  ///   - volume: this play's gain in 0...1 (multiplied with the sound's own volume).
  ///   - pan: this play's stereo position in -1 (left) ... 1 (right), added to the sound's own.
  ///   - loops: extra passes after the first; -1 loops until the voice is stopped.
  ///   - rate: the playback rate it starts at (0.25…4; see ``Voice/setPlaybackRate(_:tween:)``).
  ///   - start: when it starts: now, or exactly on a frame of the output, mid-buffer if need be
  ///     (pending until the audio queue starts it, then playing and silent until its frame). A
  ///     request that reaches the mixer after its frame was mixed starts at once, late; it is
  ///     counted in ``AudioStatistics/lateStarts`` and ``Voice/startFrame`` says where it
  ///     started. Schedule a buffer or two ahead (``AudioDeviceFormat/bufferFrames``).
  ///   - fadeIn: how it comes in: from silence to `volume` along the tween, from the tween's start
  ///     (or the voice's own); at once unless given.
  @discardableResult
  public func play(
    _ sound: Sound, volume: Double = 1, pan: Double = 0, loops: Int = 0, rate: Double = 1,
    start: Tween.Start = .now, fadeIn: Tween = .immediate
  ) -> Voice {
    _ = refusesUseAfterClose("play(\(sound.name))")
    return core.requestPlay(
      .sound(sound), volume: volume, pan: pan, groupVolume: 1, loops: loops, rate: rate,
      schedule: Self.schedule(start), fadeIn: fadeIn.usableDuration > 0 ? fadeIn : nil)
  }

  /// Plays the sound decoded from `data`, decoding it (off the audio queue) only the first time
  /// these bytes are seen; the voice is pending until then. The same options as
  /// ``play(_:volume:pan:loops:rate:start:fadeIn:)``.
  ///
  /// ```swift
  /// engine.play(data: engineHum, name: "hum.ogg", volume: 0.4, loops: -1, rate: 0.9)
  /// ```
  @discardableResult
  public func play(
    data: Data, name: String? = nil, volume: Double = 1, pan: Double = 0, loops: Int = 0, rate: Double = 1,
    start: Tween.Start = .now, fadeIn: Tween = .immediate
  ) -> Voice {
    _ = refusesUseAfterClose("play(data: \(name ?? "sound data"))")
    return core.requestPlay(
      .data(SoundDataReference(data: data, name: name)), volume: volume, pan: pan, groupVolume: 1,
      loops: loops, rate: rate, schedule: Self.schedule(start),
      fadeIn: fadeIn.usableDuration > 0 ? fadeIn : nil)
  }

  /// The schedule of a play that starts on `start` (nil: now).
  package static func schedule(_ start: Tween.Start) -> ScheduledStart? {
    guard case .frame(let frame) = start else { return nil }
    return ScheduledStart(frame: UInt64(max(0, frame.index)))
  }

  package func play(_ source: SoundSource, volume: Double, pan: Double, groupVolume: Double) -> Voice {
    core.requestPlay(source, volume: volume, pan: pan, groupVolume: groupVolume)
  }

  /// Stops every voice (of `category`, or of every category), each fading out along `tween`
  /// (``Voice/stop(tween:)``). This reaches the voices that actions started, which have no
  /// handle in the game's hands; a `playSound(…, waitForCompletion: true)` waiting on one of
  /// them then finishes.
  public func stopAllVoices(of category: SoundCategory? = nil, tween: Tween = .immediate) {
    core.stopAll(category: category, tween: tween)
  }

  /// Resumes every voice (of `category`, or of every category) that is paused, for instance
  /// after `endInterruption(shouldResume: false)` left them for the game to decide.
  public func resumeAllVoices(of category: SoundCategory? = nil) {
    core.resumeAll(category: category)
  }
}

/// What every way to start a sound adds to a play beyond its volume and loops, carried from the
/// scene's actions and the sound map to the engine: its pan (added to the node's), its rate
/// (times the node's), when it starts and how it comes in.
package struct PlayOptions: Sendable {
  package var pan: Double
  package var rate: Double
  package var start: Tween.Start
  package var fadeIn: Tween
  /// What moves the voice's volume from its first frame (a map event's modulators): set on the
  /// voice before the queue sees it, so an envelope's attack is its start.
  package var modulators: [Modulator] = []
  /// A start that overrides `start`: on a musical moment, moving to its next occurrence when the
  /// request comes late (a sound map's quantised post).
  package var schedule: ScheduledStart?
  /// The start to ask the mixer for.
  package var scheduledStart: ScheduledStart? { schedule ?? AudioEngine.schedule(start) }

  package init(pan: Double = 0, rate: Double = 1, start: Tween.Start = .now, fadeIn: Tween = .immediate) {
    self.pan = pan.isFinite ? pan : 0
    self.rate = rate.isFinite && rate > 0 ? rate : 1
    self.start = start
    self.fadeIn = fadeIn
  }

  /// The options of a play that asks for none (nil): what a trigger carries, so the common play
  /// pays one check for them.
  package static func given(pan: Double, rate: Double, start: Tween.Start, fadeIn: Tween) -> PlayOptions? {
    guard pan != 0 || rate != 1 || start != .now || fadeIn.duration != 0 else { return nil }
    return PlayOptions(pan: pan, rate: rate, start: start, fadeIn: fadeIn)
  }

  /// Nothing to set on the voice but what its request carries.
  package var isPlain: Bool { start == .now && schedule == nil && fadeIn.usableDuration == 0 }
}
