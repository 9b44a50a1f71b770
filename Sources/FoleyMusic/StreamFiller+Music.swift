import Dispatch
@_spi(FoleyStreams) package import FoleyAudio
import FoleyCore
import FoleySession
package import Foundation
import Synchronization

// Music on the engine's stream thread: starting, seeking and pausing music streams, opening
// tracks, filling the rings from them, and handing over to the next track.
extension StreamFiller {
  /// A stream for the game to start with ``start(_:track:queuePosition:at:fadeIn:paused:)``; its
  /// voice waits, pending, until the ring is filled.
  package func makeStream(
    volume: Double, category: SoundCategory, queue: MusicQueue?, checker: TrackChecker,
    notify: @escaping @Sendable () -> Void
  ) -> MusicStream {
    MusicStream(
      pipe: pipeSetup(volume: volume, category: category), queue: queue, checker: checker, notify: notify)
  }

  /// Opens `track` on `stream` (once its check has passed), fills the ring and starts the voice.
  /// From any thread; what goes wrong arrives as the stream's failures.
  package func start(
    _ stream: MusicStream, track: Track, queuePosition: Int?, at seconds: Double = 0, fadeIn: Double = 0,
    paused: Bool = false
  ) {
    queue.async { [self] in
      stream.opening = MusicStream.Opening(
        track: track, queuePosition: queuePosition, startTime: seconds, fadeIn: fadeIn)
      stream.startsPaused = paused
      add(stream)
    }
  }

  /// Seeks `stream` to `seconds` into the track being heard: the effect fades the old audio out,
  /// skips what is left of it, and fades the new in. False when the track cannot seek.
  package func seek(_ stream: MusicStream, to seconds: Double, completion: @escaping @Sendable (Bool) -> Void)
  {
    queue.async { [self] in
      completion(seekOnQueue(stream, to: seconds))
    }
  }

  func seekOnQueue(_ stream: MusicStream, to seconds: Double) -> Bool {
    guard !stream.isCancelled.load(ordering: .acquiring), stream.followsQueue,
      let heard = stream.position?.segment, stream.effect.reopen()
    else { return false }
    // The reader may already be on the next track of the queue: seeking means the heard one.
    var reader = stream.reader
    if reader == nil || reader!.track != heard.nowPlaying.track || stream.queuePosition != heard.queuePosition
    {
      // From the bytes the track was checked on, never its file again.
      reader = try? self.reader(for: heard.nowPlaying.track, checker: stream.checker, waitingForChecks: true)
    }
    guard let reader, reader.seek(to: Int((max(0, seconds) * Double(reader.sampleRate)).rounded())) else {
      return false
    }
    stream.startOver()
    do {
      try stream.prepareConverter(for: reader)
    } catch {
      return false
    }
    stream.take(reader, queuePosition: heard.queuePosition, as: .seek)
    fill(stream)
    return true
  }

  /// Whether the voices of `streams` start paused (the game paused the music before they began).
  func setStartsPaused(_ paused: Bool, for streams: [MusicStream]) {
    queue.async {
      for stream in streams { stream.startsPaused = paused }
    }
  }

  /// One refill of `stream`: opens its track while it has not started, otherwise fills it and
  /// starts the crossfade into the next track when this one is ending.
  package func service(_ stream: MusicStream, waitingForChecks: Bool) {
    guard !stream.isCancelled.load(ordering: .acquiring) else { return }
    if stream.opening != nil {
      open(stream, waitingForChecks: waitingForChecks)
    } else {
      fill(stream)
      handOverIfEnding(stream, waitingForChecks: waitingForChecks)
    }
    if stream.hasNews { stream.notify() }
  }

  // MARK: - Opening tracks

  /// Where `track` is on disk (nil for bytes in memory). Reads only immutable state: any thread.
  package func resolve(_ track: Track) throws(SoundError) -> URL? {
    switch track.origin {
    case .file(let url): url
    case .named(let name): try assets.locate(name)
    case .data: nil
    }
  }

  /// The reader for `track` once its check passed; nil while the check runs. A failure is
  /// thrown.
  package func reader(
    for track: Track, checker: TrackChecker, waitingForChecks: Bool
  ) throws(SoundError) -> TrackReader? {
    let url = try resolve(track)
    switch checker.verdict(for: track, at: url, waiting: waitingForChecks) {
    case nil: return nil
    case .failed(let error): throw error
    case .passed(let bytes):
      return try TrackReader(
        track, bytes: bytes, in: checker.isolated ? streamingService : nil)
    }
  }

  /// Opens the stream's first track (or, when it fails, the queue's next ones) and starts the
  /// voice once the ring is full.
  func open(_ stream: MusicStream, waitingForChecks: Bool) {
    while var opening = stream.opening {
      let reader: TrackReader
      do {
        guard
          let opened = try self.reader(
            for: opening.track, checker: stream.checker, waitingForChecks: waitingForChecks)
        else {
          return
        }
        try stream.prepareConverter(for: opened)
        reader = opened
      } catch {
        stream.addFailure(opening.track, error)
        opening.failuresInARow += 1
        if opening.failuresInARow < (stream.queue?.count ?? 1),
          let next = stream.queue?.entry(after: opening.queuePosition, skipping: true)
        {
          opening.track = next.track
          opening.queuePosition = next.position
          opening.startTime = 0
          stream.opening = opening
          continue
        }
        // Nothing left that plays: the stream ends without having started (what it was to
        // replace fades out all the same).
        stream.opening = nil
        stream.voice.stop()
        stream.startFadeOuts()
        if let group = stream.stemGroup { join(group, ready: nil) }
        return
      }
      if opening.startTime > 0 { _ = reader.seek(to: Int(opening.startTime * Double(reader.sampleRate))) }
      stream.opening = nil
      stream.take(reader, queuePosition: opening.queuePosition, as: .start)
      // Its first track's normalisation is in place before its first sample (later tracks of the
      // queue change it when they are heard: the player does that).
      if let target = stream.loudnessTarget, let loudness = reader.nowPlaying.loudness {
        stream.voice.normalization = pow(10, loudness.gain(toReach: target) / 20)
      }
      if opening.fadeIn > 0 {
        stream.effect.requestFade(.fadeIn, frames: Int(opening.fadeIn * Double(stream.format.sampleRate)))
      }
      fill(stream)
      stream.isStarted = true
      if let group = stream.stemGroup {
        join(group, ready: stream)
        return
      }
      core.startStream(
        stream.voice, effect: stream.effect, category: stream.category, paused: stream.startsPaused,
        onStart: stream.startFadeOuts)
    }
  }

  /// A stem is ready (or failed: nil); when none is pending, all the ready ones start on one
  /// frame: the player's moment, or a tenth of a second from now (time for the audio queue to
  /// put them all on their channels before it is mixed).
  private func join(_ group: StemGroup, ready stream: MusicStream?) {
    group.pending -= 1
    if let stream { group.ready.append(stream) }
    guard group.pending == 0 else { return }
    let frame =
      group.schedule?.frame
      ?? (core.mixer.framesMixed.load(ordering: .acquiring) + UInt64(core.format.sampleRate / 10))
    for member in group.ready {
      member.voice.schedule.set(group.schedule ?? ScheduledStart(frame: frame))
      core.startStream(
        member.voice, effect: member.effect, category: member.category, paused: member.startsPaused,
        onStart: member.startFadeOuts)
    }
    group.ready.removeAll()
  }

  // MARK: - Filling

  /// Fills `stream`'s ring up to what it keeps buffered, going on to the queue's next track
  /// as one ends.
  package func fill(_ stream: MusicStream) {
    while let reader = stream.reader {
      let ringIsFull = pump(stream, channels: reader.channels) { buffer, count in
        let (frames, loops) = reader.read(into: buffer, count: count)
        // Marked before the frames go into the converter: a loop's frame counts from there.
        for loop in loops {
          stream.addSegment(
            MusicStream.Segment(
              startFrame: stream.outputFrame(afterSourceFrames: stream.sourceFramesConverted + loop.at),
              trackTime: reader.nowPlaying.loopRegion?.lowerBound ?? 0, nowPlaying: reader.nowPlaying,
              kind: .loop(pass: loop.pass), queuePosition: stream.queuePosition))
        }
        return frames
      }
      if ringIsFull { break }
      if let failure = reader.failure {
        stream.addFailure(reader.track, SoundError(.undecodable, asset: reader.track.name, message: failure))
      }
      guard nextTrack(of: stream) else { break }
    }
    if stream.isDrainedOfSource, stream.converted == 0 { stream.effect.markEnded() }
  }

  /// The stream's track ended: go on to the queue's next in the same ring, without a gap, or
  /// end the stream. False while the next track's check runs (it is tried again next time).
  func nextTrack(of stream: MusicStream) -> Bool {
    // Where the search for a track that opens had got to, if it waited for a check last time.
    var (position, failures) = stream.nextTrackSearch ?? (stream.queuePosition, 0)
    stream.nextTrackSearch = nil
    while stream.followsQueue, failures < (stream.queue?.count ?? 0),
      let next = stream.queue?.entry(after: position, skipping: failures > 0)
    {
      do {
        guard
          let reader = try reader(
            for: next.track, checker: stream.checker, waitingForChecks: !refillsByItself)
        else {
          stream.nextTrackSearch = (position, failures)
          return false
        }
        if !stream.converterFits(reader) {
          // Another rate or channel count: the old converter's tail goes into the ring first.
          stream.flushConverter()
          drainConverter(stream)
        }
        try stream.prepareConverter(for: reader)
        stream.addSegment(
          MusicStream.Segment(
            startFrame: stream.outputFrame(afterSourceFrames: stream.sourceFramesConverted), trackTime: 0,
            nowPlaying: reader.nowPlaying, kind: .start, queuePosition: next.position))
        stream.reader = reader
        stream.queuePosition = next.position
        return true
      } catch {
        stream.addFailure(next.track, error)
        position = next.position
        failures += 1
      }
    }
    stream.flushConverter()
    stream.isDrainedOfSource = true
    return true
  }

  // MARK: - Crossfading into the next track

  /// With a crossfade set on the queue: once the stream's track has no more than that left to be
  /// heard, the next track starts on a new stream, fading in while this one fades out, so both
  /// are heard at once and the outgoing one ends with its last sample.
  ///
  /// The hand-over happens up to ``crossfadeLead`` early, with the successor's start scheduled on
  /// the mix frame where the crossfade is due: a filler serviced late (a busy machine) still
  /// gives the whole crossfade. Only when it is later than the lead, or the stream's place in the
  /// mix is not known yet, does the fade start at once over what is left.
  /// How long before a crossfade is due the next track is opened and its start scheduled.
  static let crossfadeLead = 0.5

  func handOverIfEnding(_ stream: MusicStream, waitingForChecks: Bool) {
    guard let queue = stream.queue, stream.followsQueue, !stream.skipsCrossfade, let reader = stream.reader,
      !stream.isDrainedOfSource,
      reader.isInLastPass, let length = reader.frames
    else { return }
    let crossfade = queue.settings.crossfade
    guard crossfade > 0 else { return }
    let rate = Double(stream.format.sampleRate)
    let undecoded = Double(max(0, length - reader.position)) / Double(reader.sampleRate)
    let remaining =
      undecoded + Double(stream.framesBuffered) / rate
      + Double(stream.converted / stream.format.bytesPerFrame) / rate
    guard remaining <= crossfade + Self.crossfadeLead else { return }
    // A next track that fails is left to `nextTrack`, which reports it and plays on gaplessly.
    guard let next = queue.entry(after: stream.queuePosition) else { return }
    do {
      guard
        let nextReader = try self.reader(
          for: next.track, checker: stream.checker, waitingForChecks: waitingForChecks)
      else {
        return
      }
      let successor = makeStream(
        volume: queue.settings.volume, category: stream.category, queue: queue, checker: stream.checker,
        notify: stream.notify)
      try successor.prepareConverter(for: nextReader)
      successor.reader = nextReader
      successor.queuePosition = next.position
      successor.addSegment(
        MusicStream.Segment(
          startFrame: 0, trackTime: 0, nowPlaying: nextReader.nowPlaying, kind: .start,
          queuePosition: next.position))
      let crossfadeFrames = max(1, Int(crossfade * rate))
      let remainingFrames = Int(remaining * rate)
      let origin = stream.effect.ringOrigin.load(ordering: .acquiring)
      if origin != Int.min, queue.settings.rate == 1, remainingFrames > crossfadeFrames {
        // The mix frame the outgoing track's last sample is heard on; both fades start together
        // when the successor goes on (its frame, or the frame it reached if it was late) and end
        // there.
        let endFrame = origin + stream.framesRead + remainingFrames
        let outgoing = stream.effect
        let incoming = successor.effect
        successor.voice.schedule.set(
          ScheduledStart(
            frame: UInt64(max(0, endFrame - crossfadeFrames)),
            willStart: { frame in
              let frames = max(1, min(crossfadeFrames, endFrame - Int(truncatingIfNeeded: frame)))
              incoming.requestFade(.fadeIn, frames: frames)
              outgoing.requestFade(.fadeOut, frames: frames, atMixFrame: frame)
            }))
      } else {
        let fadeFrames = max(1, min(crossfadeFrames, remainingFrames))
        successor.effect.requestFade(.fadeIn, frames: fadeFrames)
        successor.fadeOutOnStart(stream.effect, frames: fadeFrames)
      }
      stream.isHandedOver = true
      stream.successor.withLock { $0 = successor }
      // Marked started before it is added: `add` refills at once, and a stream that has not
      // started and has nothing to open is over (its voice would be stopped before it played).
      successor.isStarted = true
      successor.startsPaused = stream.startsPaused
      add(successor)
      core.startStream(
        successor.voice, effect: successor.effect, category: successor.category, paused: stream.startsPaused,
        onStart: successor.startFadeOuts)
    } catch {
      stream.skipsCrossfade = true
    }
  }
}

extension MusicStream: FilledStream {
  package func refill(on filler: StreamFiller, waitingForChecks: Bool) -> Bool {
    let cancelled = isCancelled.load(ordering: .acquiring)
    let over = isStarted ? voice.state == .finished : opening == nil
    guard cancelled || over else {
      filler.service(self, waitingForChecks: waitingForChecks)
      return true
    }
    if !isStarted {
      voice.stop()
      startFadeOuts()
    }
    // The stream's end is news in itself: the player learns that its music finished.
    notify()
    return false
  }

  package func shutDown() {
    voice.stop()
  }
}
