@_spi(FoleyStreams) public import FoleyAudio
import Foundation

/// Stems: a piece made of several files of one length (drums, bass, strings…) that start on the
/// same sample and loop together, each at its own level, so a game can bring layers in and out
/// with the action.
extension MusicPlayer {
  /// Plays `stems` — files of one length — together in place of what plays: each is opened and
  /// filled, then all start on one frame of output and, looping as the first one's loop count
  /// says, stay sample-together. `levels` gives each stem's level (1 when missing); what plays
  /// crossfades along `tween` (equal-power curves, their progress along its easing), or changes
  /// on `moment` of the music (a moment other than `.now` is the start; the tween's own start is
  /// for `.now`).
  ///
  /// ```swift
  /// var drums = Track(named: "Music/drums.ogg", loopCount: -1)
  /// drums.tempo = try TempoMap(bpm: 96)
  /// music.play(stems: [drums, Track(named: "Music/strings.ogg", loopCount: -1)], levels: [1, 0])
  /// music.setLevel(1, ofStem: 1, tween: 2)       // the strings come in over two seconds
  /// ```
  /// - Throws: ``MusicTimingError`` when `moment` cannot be found in what plays.
  public func play(
    stems: [Track], levels: [Double] = [], tween: Tween = .immediate, at moment: MusicMoment = .now
  ) throws(MusicTimingError) {
    guard let first = stems.first else {
      stop(tween: tween)
      return
    }
    let rest = stems.dropFirst().map { stem in
      var stem = stem
      stem.loopCount = first.loopCount
      return stem
    }
    stemLevels = stems.indices.map { ($0 < levels.count ? levels[$0] : 1).clamped(to: 0...1, or: 1) }
    let pending = stemLevels
    if moment != .now, isPlaying, let engine {
      // A transition into the stems: the schedule is made against what plays now.
      try transition(to: first, at: moment, tween: tween, stems: Array(rest), engine: engine)
    } else {
      let position = playQueue.replace(with: [first], first: 0)
      start(position: position, tween: tween, stems: Array(rest))
    }
    stemLevels = pending
    applyStemLevels()
  }

  /// How many stems play (1 for a plain track, 0 when nothing plays).
  public var stemCount: Int { current == nil ? 0 : 1 + stemStreams.count }

  /// Each stem's level, in order (the target of a tween under way).
  public var levels: [Double] { current == nil ? [] : stemLevels }

  /// Moves stem `index`'s level to `level` (0...1) along `tween`, sample by sample on the mixing
  /// thread. A change of the music's ``volume`` takes over from a stem's tween under way.
  public func setLevel(_ level: Double, ofStem index: Int, tween: Tween = .immediate) {
    guard stemLevels.indices.contains(index) else { return }
    stemLevels[index] = level.clamped(to: 0...1, or: 1)
    applyStemLevels(tween: tween, only: index)
  }

  /// Moves every stem's voice (or stem `only`'s) to the music's volume × its level along
  /// `tween`; the ones on their way out keep the music's volume.
  func applyStemLevels(tween: Tween = .immediate, only: Int? = nil) {
    let streams = (current.map { [$0] } ?? []) + stemStreams
    for (index, stream) in streams.enumerated() where index < stemLevels.count && (only ?? index) == index {
      stream.voice.setVolume(volume * stemLevels[index], tween: tween)
    }
    guard only == nil else { return }
    for stream in outgoing { stream.voice.setVolume(volume, tween: tween) }
  }

  /// Opens `stems` beside `first` (the queue's stream) as one group that starts on one frame.
  func startStems(
    _ stems: [Track], with first: MusicStream, from time: Double, fadeIn: Double, schedule: ScheduledStart?
  ) {
    stemStreams = []
    guard !stems.isEmpty else {
      stemLevels = [1]
      return
    }
    let group = StemGroup(count: stems.count + 1, schedule: schedule)
    first.stemGroup = group
    for stem in stems {
      let stream = filler.makeStream(volume: volume, category: category, queue: nil, checker: checker) {
        [first] in
        first.notify()
      }
      let rate = playQueue.settings.rate
      if rate != 1 { stream.voice.setPlaybackRate(rate) }
      stream.stemGroup = group
      stemStreams.append(stream)
      filler.start(stream, track: stem, queuePosition: nil, at: time, fadeIn: fadeIn)
    }
  }
}

// Preparing tracks ahead, so a musical moment does not wait for a check.
extension MusicPlayer {
  /// Checks `tracks` ahead, off the game thread (each is read once and decoded to its end by
  /// the decoding service, as before any play), so that a later play, transition or stem set
  /// starts within a buffer or two instead of waiting for its check: a 70 s Vorbis track's
  /// check takes about 0.1 s, longer than a beat at 120 bpm. It also starts the engine's
  /// streaming service, if it is not running, so the first play does not wait for that either
  /// (about 20 ms). `completion` learns on the game thread which tracks failed, and why.
  ///
  /// ```swift
  /// music.prepare([combat, boss]) { failures in
  ///   for (track, error) in failures { log("\(track.name): \(error)") }
  /// }
  /// ```
  public func prepare(
    _ tracks: [Track], completion: (@MainActor @Sendable ([(Track, SoundError)]) -> Void)? = nil
  ) {
    let filler = self.filler
    let checker = self.checker
    let mailbox = self.mailbox
    // The engine's streaming service starts beside the checks (about 20 ms), so that the first
    // play of a prepared track does not wait for it.
    if checker.isolated, !tracks.isEmpty {
      DispatchQueue.global(qos: .utility).async { filler.streamingService.prewarm() }
    }
    DispatchQueue.global(qos: .utility).async {
      var failures: [(Track, SoundError)] = []
      for track in tracks {
        do throws(SoundError) {
          if case .failed(let error) = checker.check(track, at: try filler.resolve(track)) { throw error }
        } catch {
          failures.append((track, error))
        }
      }
      guard let completion else { return }
      mailbox.post { [failures] in completion(failures) }
    }
  }

  /// Whether `track` has been checked and passed (a play of it starts without waiting). Asking
  /// about a track never checked starts its check.
  public func isPrepared(_ track: Track) -> Bool {
    guard let url = try? filler.resolve(track),
      case .passed = checker.verdict(for: track, at: url, waiting: false)
    else { return false }
    return true
  }
}

// Loudness: tracks at the music's bus's loudness target.
extension MusicPlayer {
  /// Whether tracks play at the loudness target of the music's category
  /// (`AudioBus/setLoudnessTarget(_:)`), from the loudness their check measured (a gain,
  /// lowered to keep the true peak at or under -1 dBTP). Off by default. A track that starts a
  /// stream is normalised from its first sample; the next track of a queue (gapless or
  /// crossfaded by the queue) changes level when it begins to be heard, with a de-click ramp.
  ///
  /// ```swift
  /// try engine.bus(.music).setLoudnessTarget(-16)
  /// music.normalizesLoudness = true
  /// ```
  public var normalizesLoudness: Bool {
    get { normalizes }
    set {
      normalizes = newValue
      for stream in liveStreams {
        stream.loudnessTarget = loudnessTarget
        if let playing = stream.position?.segment.nowPlaying {
          applyNormalization(to: stream, playing: playing)
        }
      }
    }
  }

  /// The target tracks play at now (nil: as they are).
  var loudnessTarget: Double? { normalizes ? engine?.bus(category).loudnessTarget : nil }

  /// Sets `stream`'s gain for the track now heard on it.
  func applyNormalization(to stream: MusicStream, playing: NowPlaying) {
    let gain =
      loudnessTarget.flatMap { target in playing.loudness.map { pow(10, $0.gain(toReach: target) / 20) } }
      ?? 1
    guard abs(stream.voice.normalization - gain) > 1e-9 else { return }
    stream.voice.normalization = gain
    stream.voice.volume = stream.voice.volume  // the gain stage takes it up
  }
}
