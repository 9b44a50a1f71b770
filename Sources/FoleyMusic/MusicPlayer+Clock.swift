@_spi(FoleyStreams) public import FoleyAudio
import Foundation

/// The music in time: where in bars and beats it is, beat events, and stingers and transitions
/// on its next beat, bar or cue, to the sample.
extension MusicPlayer {
  /// The bar and beat being heard (the frame mixed last, less one device buffer), when what
  /// plays has a ``TempoMap``; nil otherwise.
  public var musicalTime: MusicalTime? {
    guard let engine, let clock = clock() else { return nil }
    return clock.musicalTime(atMix: (engine.audioFrame - engine.deviceFormat.bufferFrames).index)
  }

  /// The frame of output `moment` falls on next, counting from the frame about to be mixed;
  /// nil when nothing with such a moment plays (no tempo map, no such cue, no known end).
  public func frame(of moment: MusicMoment) -> AudioFrame? {
    guard let engine, let clock = clock() else { return nil }
    return clock.frame(of: moment, atOrAfter: engine.audioFrame.index).map { AudioFrame($0) }
  }

  /// The frame beat `beat` of the track being heard falls on (counted from its first downbeat, as
  /// ``MusicalTime/absoluteBeat`` counts; negative in a pickup), in the pass being heard, past or
  /// to come: what a rhythm game judges a tap against. Nil when nothing with a ``TempoMap`` plays.
  ///
  /// ```swift
  /// let beat = music.frame(ofBeat: 16)!                  // the fifth bar's downbeat in 4/4
  /// let offBy = engine.heardFrame(at: tap.time)! - engine.heardFrame(of: beat)
  /// ```
  public func frame(ofBeat beat: Int) -> AudioFrame? {
    clock()?.frameHeard { $0.seconds(ofBeat: beat) }.map { AudioFrame($0) }
  }

  /// The frame bar `bar` of the track being heard starts on (from 1), in the pass being heard,
  /// past or to come; nil when nothing with a ``TempoMap`` plays.
  ///
  /// ```swift
  /// let chorus = music.frame(ofBar: 17)!
  /// ```
  public func frame(ofBar bar: Int) -> AudioFrame? {
    clock()?.frameHeard { $0.seconds(ofBeat: $0.firstBeat(ofBar: bar)) }.map { AudioFrame($0) }
  }

  /// Plays `sound` over the music on its next `moment` (``MusicMoment/nextBeat``,
  /// ``MusicMoment/nextBar``, a cue…), starting on that very sample. A request that reaches the
  /// mixer after the moment was mixed moves to the moment's next occurrence and the music says
  /// so (``MusicEvent/momentMoved(_:from:to:)``).
  ///
  /// ```swift
  /// music.observe { event in if case .beat(let beat) = event, beat.isDownbeat { flash() } }
  /// try music.playStinger(fanfare, at: .nextBar)       // lands on the next bar line
  /// ```
  /// - Throws: ``MusicTimingError`` when the moment cannot be found in what plays.
  @discardableResult
  public func playStinger(
    _ sound: Sound, at moment: MusicMoment, volume: Double = 1
  ) throws(MusicTimingError) -> Voice {
    guard let engine else { throw .noMusic }
    let schedule = try schedule(for: moment, engine: engine)
    return engine.play(sound, volume: volume, schedule: schedule)
  }

  /// Moves to `track` on the music's next `moment`: at that frame the new track starts (from its
  /// `entry` cue, or its start) and what plays fades out along `tween` while the new one fades
  /// in, on equal-power curves (their progress along its easing; the moment is the start), or is
  /// cut there when the tween has no duration. The new track is opened
  /// and checked at once and starts sample-exactly on the moment if it is ready by then;
  /// otherwise it starts on the moment's next occurrence and the music says so
  /// (``MusicEvent/momentMoved(_:from:to:)``). The queue becomes this one track.
  ///
  /// ```swift
  /// try music.transition(to: combat, at: .nextBar, tween: 0.5)
  /// try music.transition(to: boss, at: .cue("drop"), entry: "intro-end")
  /// ```
  /// - Throws: ``MusicTimingError`` when the moment cannot be found in what plays, or `entry`
  ///   is not a cue of `track`'s tempo map. With nothing playing, `track` simply plays.
  public func transition(
    to track: Track, at moment: MusicMoment, tween: Tween = .immediate, entry: String? = nil
  ) throws(MusicTimingError) {
    var from = 0.0
    if let entry {
      guard let seconds = track.tempo?.cues[entry] else { throw .noSuchCue(entry, track.name) }
      from = seconds
    }
    guard let engine, isPlaying, moment != .now else {
      play(track, from: from, tween: tween)
      return
    }
    try transition(to: track, at: moment, tween: tween, from: from, stems: [], engine: engine)
  }

  /// The transition, with the stems that start beside `track`.
  func transition(
    to track: Track, at moment: MusicMoment, tween: Tween, from: Double = 0, stems: [Track],
    engine: AudioEngine
  ) throws(MusicTimingError) {
    var schedule = try schedule(for: moment, engine: engine)
    let outgoing = liveStreams.map(\.effect)
    let frames = max(1, Int(min(tween.usableDuration, 60) * Double(sampleRate)))
    for effect in outgoing { effect.setFadeEasing(tween.easing) }
    schedule.willStart = { frame in
      for effect in outgoing { effect.requestFade(.fadeOut, frames: frames, atMixFrame: frame) }
    }
    let position = playQueue.replace(with: [track], first: 0)
    start(
      position: position, tween: Tween(duration: tween.duration, easing: tween.easing), from: from,
      schedule: schedule, stems: stems)
  }

  /// The start on the music's next `moment`, moving to its next occurrence (and saying so) when
  /// the request comes late: what a sound map's quantised post plays on.
  package func scheduledStart(on moment: MusicMoment) throws(MusicTimingError) -> ScheduledStart {
    guard let engine else { throw .noMusic }
    return try schedule(for: moment, engine: engine)
  }

  /// The start on `moment`, moving to its next occurrence (and saying so) when late.
  private func schedule(
    for moment: MusicMoment, engine: AudioEngine
  ) throws(MusicTimingError) -> ScheduledStart {
    guard let clock = clock() else { throw isPlaying ? .notStarted : .noMusic }
    guard let frame = clock.frame(of: moment, atOrAfter: engine.audioFrame.index) else {
      if case .cue(let name) = moment {
        throw .noSuchCue(name, clock.stream.position?.segment.nowPlaying.track.name ?? "")
      }
      throw moment == .end ? .noKnownEnd : .noTempo
    }
    let mailbox = self.mailbox
    let scheduledRing = clock.ringFrame(ofMix: frame)
    return ScheduledStart(
      frame: UInt64(frame),
      whenLate: { [weak self] reached in
        guard let moved = clock.frame(of: moment, atOrAfter: Int(reached)) else { return nil }
        mailbox.post {
          self?.pendingEvents.append(.momentMoved(moment, from: AudioFrame(frame), to: AudioFrame(moved)))
          self?.deliverEvents()
        }
        return UInt64(moved)
      },
      whenHeld: { due in
        // Held by a pause: after the resume it starts where the music then has that moment. The
        // moment's place in the stream is read now, while the music plays (by the time a start
        // reaches a paused session, the music's own pause has moved its clock).
        guard
          let ring = due == UInt64(frame)
            ? scheduledRing : clock.ringFrame(ofMix: Int(truncatingIfNeeded: due))
        else { return nil }
        return { reached in
          guard let frame = clock.mixFrame(ofRing: ring), frame >= Int(truncatingIfNeeded: reached) else {
            return nil
          }
          return UInt64(frame)
        }
      })
  }

  /// The clock of the stream being heard: the newest one that has started playing.
  func clock() -> MusicClock? {
    followSuccessors()
    let candidates = (current.map { [$0] } ?? []) + outgoing.reversed()
    guard
      let stream = candidates.first(where: {
        $0.effect.ringOrigin.load(ordering: .acquiring) != Int.min && !$0.voice.isFinished
      })
    else { return nil }
    guard let engine else { return nil }
    return MusicClock(
      stream: stream, sampleRate: Double(sampleRate), rate: playQueue.settings.rate, mixer: engine.core.mixer)
  }

  /// Turns the beats and cues mixed since the last look into events.
  func collectBeats() {
    guard let clock = clock() else { return }
    let identity = ObjectIdentifier(clock.stream)
    // A stream heard for the first time is looked at from its first frame.
    let after = beatCursor?.stream == identity ? beatCursor!.ringFrame : -1
    let (beats, cues, through) = clock.beats(after: after, limit: 256)
    beatCursor = (identity, through)
    var events = beats.map { MusicEvent.beat($0) }
    for (name, frame) in cues {
      let index = events.firstIndex {
        if case .beat(let beat) = $0 { beat.frame.index > frame } else { false }
      }
      events.insert(.cue(name, frame: AudioFrame(frame)), at: index ?? events.endIndex)
    }
    pendingEvents += events
  }

  /// Delivers beats every game frame while something with a tempo map plays (the mailbox's
  /// poller); the music thread's own news covers games that drain the mailbox less often.
  func updateBeatPoller() {
    let keepsTime =
      (!liveStreams.isEmpty
        && (playQueue.tracks.contains { $0.tempo != nil }
          || heardStream?.position?.segment.nowPlaying.tempo != nil))
    if keepsTime, beatPoller == nil {
      beatPoller = mailbox.addPoller { [weak self] in self?.deliverEvents() }
    } else if !keepsTime, let poller = beatPoller {
      mailbox.removePoller(poller)
      beatPoller = nil
    }
  }
}

/// Why a musical moment could not be scheduled.
public enum MusicTimingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No music plays (or the engine is closed).
  case noMusic
  /// What plays has no ``TempoMap``: it has no beats or bars.
  case noTempo
  /// The music was asked for but has not begun to play yet (its track is still being checked
  /// and opened): its beats are not on the output's clock yet.
  case notStarted
  /// No cue of that name in the track's tempo map (or it has passed and the track does not loop).
  case noSuchCue(String, String)
  /// The track declares no length, so its end is not known ahead.
  case noKnownEnd

  public var description: String {
    switch self {
    case .noMusic: "no music plays"
    case .noTempo: "the music that plays has no tempo map: it has no beats or bars"
    case .notStarted: "the music has not begun to play yet: its beats are not on the clock yet"
    case .noSuchCue(let cue, let track): "'\(track)' has no cue '\(cue)' ahead"
    case .noKnownEnd: "the music that plays does not say how long it is"
    }
  }
}
