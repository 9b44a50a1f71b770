import Dispatch
@_spi(FoleyStreams) public import FoleyAudio
import FoleyCore
import Foundation
import Synchronization

/// Streams music through an `AudioEngine`: a queue of tracks played gaplessly or with
/// overlapping equal-power crossfades, loop points and loop counts, shuffle and repeat, pause,
/// exact seeking, now-playing and events.
///
/// Each track plays on its own streamed voice of the player's category (`SoundCategory/music`
/// by default), so the category's bus volume and session policy apply: by default the music
/// pauses when the window loses focus and resumes at the sample it reached. A crossfade is two
/// voices heard at once, the outgoing one fading out on a cosine and the incoming one fading in on
/// a sine, so their summed power stays level. Only about half a second of each track is decoded
/// ahead, on the engine's music thread, whatever the track's length. Before a track is streamed,
/// a child process decodes it once to check that it cannot crash the game (see
/// `AudioConfiguration.isolatesDecoders`).
///
/// ```swift
/// let music = engine.music                                   // or MusicPlayer(engine: engine)
/// music.play([Track(named: "Music/title.ogg"), Track(named: "Music/level1.ogg")])
/// music.crossfadeDuration = 3                                // queued tracks overlap by 3 s
/// music.repeatMode = .all
/// music.observe { event in
///   if case .trackChanged(let now) = event { hud.title = now.title }
/// }
/// music.play(Track(named: "Music/boss.ogg", loopCount: -1), tween: 2)   // a two-second crossfade
/// music.seek(to: 30)
/// print(music.nowPlaying?.title ?? "-", music.currentTime ?? 0)
/// music.stop(tween: 1.5)
/// ```
///
/// Events arrive on the game thread through the session's `GameThreadMailbox`: at the next update
/// of a scene the engine is attached to, the next `EventPump.poll()`, or when the main queue
/// runs, whichever comes first.
@MainActor
public final class MusicPlayer {
  /// What plays when a track ends.
  public enum RepeatMode: Sendable, Hashable {
    /// The queue plays once.
    case off
    /// The current track plays again and again (skipping still moves on).
    case one
    /// The queue starts again from its first track.
    case all
  }

  /// The category the music plays in: its bus and session policy apply.
  public let category: SoundCategory
  // Not the engine itself: the engine keeps its own player, and neither should keep the other
  // alive. After the engine closes, the player's calls do nothing.
  let filler: StreamFiller
  let checker: TrackChecker
  let mailbox: GameThreadMailbox
  let sampleRate: Int
  /// For stingers (weak: the engine keeps its own player).
  weak var engine: AudioEngine?
  /// Where the last beat delivered was: its stream and ring frame.
  var beatCursor: (stream: ObjectIdentifier, ringFrame: Int)?
  /// The mailbox poller that delivers beats every game frame while music keeps time.
  var beatPoller: Int?
  let playQueue = MusicQueue()
  /// The stream heard as the current track (a crossfade's incoming one).
  var current: MusicStream?
  /// Streams on their way out: a crossfade's outgoing half, a stop with a fade.
  var outgoing: [MusicStream] = []
  /// The current track's other stems (the first is `current`), their levels (the first's too)
  /// and the fades under way.
  var stemStreams: [MusicStream] = []
  var stemLevels: [Double] = [1]
  /// Tracks play at the category's loudness target (see `normalizesLoudness`).
  var normalizes = false
  var observers = ObserverList<MusicEvent>()
  /// Events collected and not yet handed to the observers.
  var pendingEvents: [MusicEvent] = []
  let delivery = DeliveryFlag()
  /// Whether `.finished` was delivered for what last played.
  var hasReportedFinish = true
  public internal(set) var isPaused = false

  /// A player on `engine` whose music plays in `category`.
  public init(engine: AudioEngine, category: SoundCategory = .music) {
    self.category = category
    filler = engine.streamFiller
    checker = engine.musicState.checker
    mailbox = engine.session.mailbox
    sampleRate = engine.deviceFormat.sampleRate
    self.engine = engine
  }

  // MARK: - Settings

  /// The music's own volume, in 0...1 (under its category's bus volume). Setting it moves there
  /// over the de-click time; ``setVolume(_:tween:)`` eases.
  public var volume: Double {
    get { playQueue.settings.volume }
    set { setVolume(newValue) }
  }

  /// Moves the music's volume to `volume` (0...1, clamped; NaN is 1) along `tween`, sample by
  /// sample on the mixing thread: every track heard, its stems and a crossfade's outgoing half.
  ///
  /// ```swift
  /// music.setVolume(0.4, tween: Tween(duration: 1, easing: .easeOut))   // under the dialogue
  /// ```
  public func setVolume(_ volume: Double, tween: Tween = .immediate) {
    let volume = volume.clamped(to: 0...1, or: 1)
    playQueue.update { $0.volume = volume }
    applyStemLevels(tween: tween)
  }

  /// Seconds by which each queued track overlaps the end of the one before (both heard at
  /// once); 0 plays them gaplessly, the next track's first sample right after the last one's.
  public var crossfadeDuration: Double {
    get { playQueue.settings.crossfade }
    set {
      let seconds = newValue.clamped(to: 0...60, or: 0)
      playQueue.update { $0.crossfade = seconds }
    }
  }

  public var repeatMode: RepeatMode {
    get { playQueue.settings.repeatMode }
    set { playQueue.update { $0.repeatMode = newValue } }
  }

  /// Whether the queue plays in a random order (the tracks played so far keep their place).
  public var isShuffled: Bool {
    get { playQueue.isShuffled }
    set { playQueue.setShuffled(newValue, keepingThrough: heardSegment?.queuePosition) }
  }

  // MARK: - What is playing

  /// The tracks in the queue, in the order they were given.
  public var queue: [Track] { playQueue.tracks }

  /// The index in ``queue`` of the track being heard.
  public var currentIndex: Int? {
    heardSegment?.queuePosition.flatMap { playQueue.index(at: $0) }
  }

  /// The track being heard and what its file says about it; nil when nothing plays.
  public var nowPlaying: NowPlaying? { heardStream?.position?.segment.nowPlaying }

  /// Seconds into the track being heard (the sample the mix has reached).
  public var currentTime: Double? { heardStream?.position?.time }

  /// The stream being heard: the current one once it has begun to play, before that (a
  /// transition waiting for its bar line) the one it replaces.
  var heardStream: MusicStream? {
    followSuccessors()
    if let current, current.hasStarted { return current }
    return outgoing.last { $0.hasStarted && !$0.voice.isFinished } ?? current
  }

  /// The length of the track being heard, when its file says.
  public var duration: Double? { nowPlaying?.duration }

  /// Whether music is playing or about to (not paused, not stopped).
  public var isPlaying: Bool {
    followSuccessors()
    guard !isPaused, let current else { return false }
    return current.voice.state != .finished
  }

  /// Frames of silence the music's streams put out because decoding fell behind (should stay 0).
  public var underrunFrames: Int {
    liveStreams.reduce(0) { $0 + $1.effect.underrunFrames.load(ordering: .relaxed) }
  }

  // MARK: - Playing

  /// Plays `track` in place of whatever plays, crossfading along `tween` (equal-power curves,
  /// their progress along its easing; from its start, a frame of the engine's clock, or now) or
  /// cutting with a de-click ramp; the queue becomes this one track.
  ///
  /// ```swift
  /// music.play(Track(named: "Music/boss.ogg", loopCount: -1), tween: 2)
  /// ```
  public func play(_ track: Track, from time: Double = 0, tween: Tween = .immediate) {
    play([track], from: time, tween: tween)
  }

  /// Replaces the queue with `tracks` and plays them from the one at `index`, `time` seconds
  /// into it, crossfading along `tween` as ``play(_:from:tween:)`` does.
  public func play(
    _ tracks: [Track], startingAt index: Int = 0, from time: Double = 0, tween: Tween = .immediate
  ) {
    guard !tracks.isEmpty else {
      playQueue.replace(with: [])
      stop(tween: tween)
      return
    }
    // When shuffling, the track asked for plays first and the rest in a random order after it.
    let position = playQueue.replace(with: tracks, first: min(max(0, index), tracks.count - 1))
    start(position: position, tween: tween, from: time.clamped(to: 0...1e9, or: 0))
  }

  /// Adds `tracks` to the end of the queue (at random places still to come when shuffling).
  /// When nothing plays, they wait for ``play()``.
  public func enqueue(_ tracks: [Track]) {
    playQueue.append(tracks, after: heardSegment?.queuePosition)
  }

  /// Adds one track to the end of the queue.
  public func enqueue(_ track: Track) {
    enqueue([track])
  }

  /// Empties the queue (what plays finishes, and nothing follows it).
  public func clearQueue() {
    playQueue.replace(with: [])
  }

  /// Resumes paused music, or starts the queue from its first track when nothing plays.
  public func play() {
    if isPaused {
      resume()
    } else if !isPlaying, playQueue.count > 0 {
      start(position: 0, tween: .immediate)
    }
  }

  /// Goes on to the next track of the queue (even in ``RepeatMode/one``), crossfading along
  /// `tween`; stops when there is none.
  public func skipToNext(tween: Tween = .immediate) {
    let position = heardSegment?.queuePosition
    guard let next = playQueue.entry(after: position, skipping: true) else {
      stop(tween: tween)
      return
    }
    start(position: next.position, tween: tween)
  }

  /// Goes back to the previous track of the queue (the last one in ``RepeatMode/all``); at the
  /// first track, starts it again.
  public func skipToPrevious(tween: Tween = .immediate) {
    let position = heardSegment?.queuePosition ?? 0
    start(position: playQueue.entry(before: position)?.position ?? position, tween: tween)
  }

  /// Pauses the music where it is (with a de-click ramp); ``resume()`` continues at that sample.
  public func pause() {
    guard !isPaused else { return }
    isPaused = true
    let streams = liveStreams
    filler.setStartsPaused(true, for: streams)
    for stream in streams { stream.voice.pause() }
  }

  public func resume() {
    guard isPaused else { return }
    isPaused = false
    let streams = liveStreams
    filler.setStartsPaused(false, for: streams)
    for stream in streams { stream.voice.resume() }
  }

  /// Stops the music, fading out along `tween` (a cosine, as a crossfade's outgoing half, its
  /// progress along the tween's easing, from the tween's start) or at once with a de-click
  /// ramp. The queue stays; ``play()`` starts it again.
  public func stop(tween: Tween = .immediate) {
    followSuccessors()
    for stream in liveStreams { letGo(stream, tween: isPaused ? .immediate : tween) }
    current = nil
    stemStreams = []
    isPaused = false
  }

  /// Moves to `seconds` into the track being heard: the old audio fades out over the de-click
  /// time and the new fades in, with every sample from there on exactly the track's.
  /// `completion`, if given, learns on the game thread whether the track could seek.
  public func seek(to seconds: Double, completion: (@MainActor @Sendable (Bool) -> Void)? = nil) {
    followSuccessors()
    guard let current, seconds.isFinite else {
      completion?(false)
      return
    }
    filler.seek(current, to: seconds) { [mailbox] done in
      guard let completion else { return }
      mailbox.post { completion(done) }
    }
  }

  /// Checks `track` now, on this thread: that it exists, that a child process can decode it to
  /// its end, and what it says about itself. For loading screens and tools; playing needs no
  /// check first (the player does the same before streaming).
  public func check(_ track: Track) throws(SoundError) -> NowPlaying {
    let url = try filler.resolve(track)
    switch checker.check(track, at: url) {
    case .failed(let error): throw error
    case .passed(let bytes):
      return try TrackReader(
        track, bytes: bytes, in: checker.isolated ? filler.streamingService : nil
      ).nowPlaying
    }
  }

  // MARK: - Inside

  var liveStreams: [MusicStream] {
    followSuccessors()
    return outgoing + stemStreams + (current.map { [$0] } ?? [])
  }

  private var heardSegment: MusicStream.Segment? {
    followSuccessors()
    return current?.position?.segment
  }

  /// The filler starts a queue's crossfades by itself: the player follows it to the new stream.
  func followSuccessors() {
    while let stream = current, let next = stream.successor.withLock({ $0 }) {
      collectNews(of: stream)
      outgoing.append(stream)
      current = next
    }
  }

  /// Starts the queue's track at `position` on a new stream, replacing what plays; with
  /// `schedule`, on a frame of output (what plays fades or cuts there: see `transition`).
  func start(
    position: Int, tween: Tween, from time: Double = 0, schedule given: ScheduledStart? = nil,
    stems: [Track] = []
  ) {
    guard let track = playQueue.track(at: position) else { return }
    followSuccessors()
    let fade = min(tween.usableDuration, 60)
    var schedule = given
    if schedule == nil, case .frame(let frame) = tween.start {
      // A tween that starts on a frame: the new track starts there, and what plays fades from it.
      var scheduled = ScheduledStart(frame: UInt64(max(0, frame.index)))
      let outgoing = liveStreams.map(\.effect)
      let frames = max(1, Int(fade * Double(sampleRate)))
      for effect in outgoing { effect.setFadeEasing(tween.easing) }
      scheduled.willStart = { frame in
        for effect in outgoing { effect.requestFade(.fadeOut, frames: frames, atMixFrame: frame) }
      }
      schedule = scheduled
    }
    let flag = delivery
    let mailbox = self.mailbox
    let stream = filler.makeStream(volume: volume, category: category, queue: playQueue, checker: checker) {
      [weak self] in
      // On the stream thread: one delivery to the game thread for however much news there is.
      guard !flag.isScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
      mailbox.post { self?.deliverEvents() }
    }
    let rate = playQueue.settings.rate
    if rate != 1 { stream.voice.setPlaybackRate(rate) }
    stream.loudnessTarget = loudnessTarget
    if let schedule {
      stream.voice.schedule.set(schedule)
      // What plays goes on until the new track's frame, where the schedule fades or cuts it.
      for old in liveStreams {
        old.isLetGo.store(true, ordering: .releasing)
        if !outgoing.contains(where: { $0 === old }) { outgoing.append(old) }
      }
      if let playing = current { collectNews(of: playing) }
    } else if isPaused {
      // Paused music cannot fade: it all stops, and the new track plays.
      for old in liveStreams { letGo(old, tween: .immediate, replacedBy: stream) }
    } else if let playing = current {
      letGo(playing, tween: tween, replacedBy: stream)
      for stem in stemStreams { letGo(stem, tween: tween, replacedBy: stream) }
    }
    stream.effect.setFadeEasing(tween.easing)
    isPaused = false
    current = stream
    hasReportedFinish = false
    startStems(stems, with: stream, from: time, fadeIn: fade, schedule: schedule)
    filler.start(stream, track: track, queuePosition: position, at: time, fadeIn: fade)
  }

}

/// Whether a delivery to the game thread is already on its way.
final class DeliveryFlag: Sendable {
  package let isScheduled = Atomic<Bool>(false)
}
