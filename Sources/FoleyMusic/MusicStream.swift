@_spi(FoleyStreams) package import FoleyAudio
import FoleyCore
import Foundation
import Synchronization

/// One streamed voice of music: the ring its effect plays from, the reader and converter that
/// fill it, and the segments that tell which track (and where in it) each frame of the ring came
/// from, so "now playing" and the events change at the sample that is heard.
///
/// Invariant behind `@unchecked Sendable`: the `var`s belong to the stream filler's queue; the
/// segments and failures are behind a lock (the game thread takes them); the rest is the pipe's.
package final class MusicStream: StreamPipe, @unchecked Sendable {
  /// Where a stretch of the ring's frames comes from.
  package struct Segment: Sendable {
    package enum Kind: Sendable, Equatable {
      case start
      case loop(pass: Int)
      case seek
    }

    /// The first frame (of everything written to the ring) of this stretch.
    package let startFrame: Int
    /// Where in its track that frame is, in seconds.
    let trackTime: Double
    package let nowPlaying: NowPlaying
    package let kind: Kind
    /// The track's place in the player's queue, if it came from there.
    let queuePosition: Int?
  }

  /// A track waiting to be opened (its check in a child process may still be running).
  struct Opening {
    package var track: Track
    var queuePosition: Int?
    var startTime: Double
    package var fadeIn: Double
    /// Tracks of the queue that failed one after another; a queue of only bad tracks stops.
    var failuresInARow = 0
  }

  /// Where the next track comes from when this one ends; nil for a single track.
  package let queue: MusicQueue?
  /// Set by the player when the stream fades out under another (a crossfade, a stop with a
  /// fade): the filler keeps it fed but goes on to no next track.
  let isLetGo = Atomic<Bool>(false)
  /// The stream the filler started to crossfade into as this one ends (the player follows it).
  let successor = Locked<MusicStream?>(nil)
  /// Streams to fade out (effect, frames) the moment this one starts, so a crossfade's halves
  /// begin in the same mix buffer however long this one took to open; applied even if it never
  /// starts.
  private let fadeOutsOnStart = Locked<[(StreamEffect, Int)]>([])
  /// Called on the filler's queue when there is something for the game thread.
  package let notify: @Sendable () -> Void
  private let shared = Locked(Shared())

  private struct Shared {
    package var segments: [Segment] = []
    var delivered = 0
    package var failures: [(Track, SoundError)] = []
  }

  // The filler's own.
  var opening: Opening?
  package var reader: TrackReader?
  /// The queue position of the track being decoded.
  var queuePosition: Int?
  /// The filler already started the next track on a successor (a crossfade): this one just ends.
  var isHandedOver = false
  /// Where the search for the next track stopped to wait for a check: the position searched
  /// after and the tracks that failed on the way (already reported).
  var nextTrackSearch: (position: Int?, failures: Int)?
  /// The next track could not be opened early for a crossfade: it follows gaplessly instead.
  var skipsCrossfade = false
  /// Whether the stream goes on to the queue's next track when its own ends.
  var followsQueue: Bool { !isHandedOver && !isLetGo.load(ordering: .acquiring) }
  /// The game paused the music: a successor starts paused too.
  var startsPaused = false
  /// The loudness its tracks play at (nil: as they are): the player sets it, the filler reads it.
  package var loudnessTarget: Double? {
    get { target.withLock { $0 } }
    set { target.withLock { $0 = newValue } }
  }
  private let target = Locked<Double?>(nil)
  /// The stems it starts sample-together with (the filler's).
  var stemGroup: StemGroup?
  /// The check every track passes before it streams (the engine's, shared by its players).
  package let checker: TrackChecker

  package init(
    pipe: Setup, queue: MusicQueue?, checker: TrackChecker, notify: @escaping @Sendable () -> Void
  ) {
    self.queue = queue
    self.checker = checker
    self.notify = notify
    super.init(pipe)
  }

  /// Fills the ring from `reader` from now on (from where it is in its track), the frames marked
  /// as `kind`.
  package func take(_ reader: TrackReader, queuePosition: Int?, as kind: Segment.Kind) {
    self.reader = reader
    self.queuePosition = queuePosition
    addSegment(
      Segment(
        startFrame: framesWritten, trackTime: Double(reader.position) / Double(reader.sampleRate),
        nowPlaying: reader.nowPlaying, kind: kind, queuePosition: queuePosition))
  }

  /// Makes the converter fit `reader`.
  package func prepareConverter(for reader: TrackReader) throws(SoundError) {
    try prepareConverter(rate: reader.sampleRate, channels: reader.channels, name: reader.track.name)
  }

  /// Whether the converter takes `reader`'s frames as they are.
  package func converterFits(_ reader: TrackReader) -> Bool {
    converterFits(rate: reader.sampleRate, channels: reader.channels)
  }

  /// Fades `effect` out over `frames` when this stream starts.
  func fadeOutOnStart(_ effect: StreamEffect, frames: Int) {
    fadeOutsOnStart.withLock { $0.append((effect, frames)) }
  }

  /// Hands over the fades still waiting for this stream's start (it was dropped before starting).
  func takeFadeOutsOnStart() -> [(StreamEffect, Int)] {
    fadeOutsOnStart.withLock { fades in
      defer { fades.removeAll() }
      return fades
    }
  }

  /// Starts the fades waiting for this stream's start.
  func startFadeOuts() {
    for (effect, frames) in takeFadeOutsOnStart() { effect.requestFade(.fadeOut, frames: frames) }
  }

  // MARK: - What the game thread reads

  func addSegment(_ segment: Segment) {
    let frame = framesRead
    shared.withLock { state in
      state.segments.append(segment)
      // A game that never collects its events (no scene, no main queue, no `deliverEvents`)
      // must not grow this without end: past 512, heard segments before the current one go,
      // events and all.
      guard state.segments.count > 512 else { return }
      let current = state.segments.lastIndex { $0.startFrame <= frame } ?? 0
      guard current > 0 else { return }
      state.segments.removeFirst(current)
      state.delivered = max(0, state.delivered - current)
    }
  }

  /// Segments kept (bounded: see ``addSegment(_:)``).
  var keptSegments: Int { shared.withLock { $0.segments.count } }

  func addFailure(_ track: Track, _ error: SoundError) {
    shared.withLock { $0.failures.append((track, error)) }
  }

  /// The segment being heard and the time in its track.
  package var position: (segment: Segment, time: Double)? {
    let frame = framesRead
    let rate = Double(format.sampleRate)
    return shared.withLock { state in
      guard let segment = state.segments.last(where: { $0.startFrame <= frame }) ?? state.segments.first
      else {
        return nil
      }
      return (segment, segment.trackTime + Double(max(0, frame - segment.startFrame)) / rate)
    }
  }

  /// The segments from the one ring frame `frame` is in (the first, if it is before them all)
  /// to the last written.
  package func segments(from frame: Int) -> ArraySlice<Segment> {
    shared.withLock { state in
      let first = state.segments.lastIndex { $0.startFrame <= frame } ?? 0
      return state.segments[first...]
    }
  }

  /// Whether its voice has played (a scheduled one waits for its frame).
  package var hasStarted: Bool { effect.ringOrigin.load(ordering: .acquiring) != Int.min }

  /// Whether segments have begun being heard, or tracks failed, since the game thread last looked.
  var hasNews: Bool {
    let frame = framesRead
    let started = hasStarted
    let segmentNews = shared.withLock { state -> (Bool, Segment?) in
      let news =
        !state.failures.isEmpty
        || (started && state.delivered < state.segments.count
          && state.segments[state.delivered].startFrame <= frame)
      return (news, state.segments.last { $0.startFrame <= frame })
    }
    guard !segmentNews.0 else { return true }
    // A beat mixed since the last look is news too (for games that drain the mailbox rarely).
    guard let segment = segmentNews.1, let tempo = segment.nowPlaying.tempo else { return false }
    let beat = tempo.beat(
      at: segment.trackTime + Double(frame - segment.startFrame) / Double(format.sampleRate)
    ).beat
    return lastBeatSeen.exchange(beat, ordering: .relaxed) != beat
  }

  /// The beat ``hasNews`` last saw being mixed.
  private let lastBeatSeen = Atomic<Int>(Int.min)

  /// The failures, and the segments that have begun being heard, since the last call.
  func takeNews() -> (failures: [(Track, SoundError)], segments: [Segment]) {
    let frame = framesRead
    let started = hasStarted
    return shared.withLock { state in
      var heard: [Segment] = []
      while started, state.delivered < state.segments.count,
        state.segments[state.delivered].startFrame <= frame
      {
        heard.append(state.segments[state.delivered])
        state.delivered += 1
      }
      // Segments delivered before the one being heard are done with.
      if let current = state.segments.lastIndex(where: { $0.startFrame <= frame }), current > 0,
        state.delivered >= current
      {
        state.segments.removeFirst(current)
        state.delivered -= current
      }
      defer { state.failures.removeAll() }
      return (state.failures, heard)
    }
  }
}

/// Streams that start on one frame (a track's stems): each waits, filled, until every other one is
/// ready or has failed, then all start on the same frame of output. The filler's queue owns it.
final class StemGroup: @unchecked Sendable {
  /// Members not yet ready.
  var pending: Int
  /// Members filled and waiting for the others.
  var ready: [MusicStream] = []
  /// The start the player asked for (a transition's moment); nil: as soon as all are ready.
  let schedule: ScheduledStart?

  package init(count: Int, schedule: ScheduledStart?) {
    pending = count
    self.schedule = schedule
  }
}
