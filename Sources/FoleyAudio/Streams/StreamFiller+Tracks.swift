import Dispatch
import FoleySession
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

// Opening tracks, filling the rings from them, and handing over to the next track.
extension StreamFiller {
  // MARK: - Opening tracks

  /// Where `track` is on disk (nil for bytes in memory). Reads only immutable state: any thread.
  func resolve(_ track: Track) throws(SoundError) -> URL? {
    switch track.origin {
    case .file(let url): url
    case .named(let name): try assets.locate(name)
    case .data: nil
    }
  }

  /// The reader for `track` once its check passed; nil while the check runs. A failure is
  /// thrown.
  func reader(for track: Track, waitingForChecks: Bool) throws(SoundError) -> TrackReader? {
    let url = try resolve(track)
    switch checker.verdict(for: track, at: url, waiting: waitingForChecks) {
    case nil: return nil
    case .failed(let error): throw error
    case .passed: return try TrackReader(track, url: url)
    }
  }

  /// Opens the stream's first track (or, when it fails, the queue's next ones) and starts the
  /// voice once the ring is full.
  func open(_ stream: MusicStream, waitingForChecks: Bool) {
    while var opening = stream.opening {
      let reader: TrackReader
      do {
        guard let opened = try self.reader(for: opening.track, waitingForChecks: waitingForChecks) else {
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
        return
      }
      if opening.startTime > 0 { _ = reader.seek(to: Int(opening.startTime * Double(reader.sampleRate))) }
      stream.opening = nil
      stream.take(reader, queuePosition: opening.queuePosition, as: .start)
      if opening.fadeIn > 0 {
        stream.effect.requestFade(.fadeIn, frames: Int(opening.fadeIn * Double(stream.format.sampleRate)))
      }
      fill(stream)
      stream.isStarted = true
      core.startStream(
        stream.voice, effect: stream.effect, category: stream.category, paused: stream.startsPaused,
        onStart: stream.startFadeOuts)
    }
  }

  // MARK: - Filling

  /// Fills `stream`'s ring up to what it keeps buffered.
  func fill(_ stream: MusicStream) {
    let frameBytes = stream.format.bytesPerFrame
    let target = Int(Self.bufferedSeconds * Double(stream.format.sampleRate))
    while true {
      // Converted audio first, as far as the ring has room.
      let room = min(stream.ring.freeSpace / frameBytes, target - stream.framesBuffered) * frameBytes
      if stream.converted > 0, room > 0, stream.moveConverted(room: room, scratch: &scratch) > 0 {
        continue
      }
      guard room > 0, !stream.isDrainedOfSource, let reader = stream.reader else { break }
      let needed = readFrames * reader.channels
      if decoded.count < needed { decoded = [Float](repeating: 0, count: needed) }
      let (frames, loops) = decoded.withUnsafeMutableBufferPointer {
        reader.read(into: $0.baseAddress!, count: readFrames)
      }
      for loop in loops {
        stream.addSegment(
          MusicStream.Segment(
            startFrame: stream.outputFrame(afterSourceFrames: stream.sourceFramesConverted + loop.at),
            trackTime: reader.nowPlaying.loopRegion?.lowerBound ?? 0, nowPlaying: reader.nowPlaying,
            kind: .loop(pass: loop.pass), queuePosition: stream.queuePosition))
      }
      if frames > 0 {
        decoded.withUnsafeBufferPointer { stream.convert($0.baseAddress!, frames: frames) }
        continue
      }
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
        guard let reader = try reader(for: next.track, waitingForChecks: !refillsByItself) else {
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

  func drainConverter(_ stream: MusicStream) {
    // Only ever a few milliseconds of the resampler's tail, and the ring has room for it.
    let frameBytes = stream.format.bytesPerFrame
    while stream.converted > 0 {
      let room = stream.ring.freeSpace / frameBytes * frameBytes
      guard room > 0, stream.moveConverted(room: room, scratch: &scratch) > 0 else { return }
    }
  }

  // MARK: - Crossfading into the next track

  /// With a crossfade set on the queue: once the stream's track has no more than that left to be
  /// heard, the next track starts on a new stream, fading in while this one fades out, so both
  /// are heard at once and the outgoing one ends with its last sample.
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
    guard remaining <= crossfade else { return }
    // A next track that fails is left to `nextTrack`, which reports it and plays on gaplessly.
    guard let next = queue.entry(after: stream.queuePosition) else { return }
    do {
      guard let nextReader = try self.reader(for: next.track, waitingForChecks: waitingForChecks) else {
        return
      }
      let successor = makeStream(
        volume: queue.settings.volume, category: stream.category, queue: queue, notify: stream.notify)
      try successor.prepareConverter(for: nextReader)
      successor.reader = nextReader
      successor.queuePosition = next.position
      successor.addSegment(
        MusicStream.Segment(
          startFrame: 0, trackTime: 0, nowPlaying: nextReader.nowPlaying, kind: .start,
          queuePosition: next.position))
      let fadeFrames = max(1, Int(remaining * rate))
      successor.effect.requestFade(.fadeIn, frames: fadeFrames)
      successor.fadeOutOnStart(stream.effect, frames: fadeFrames)
      stream.isHandedOver = true
      stream.successor.withLock { $0 = successor }
      streams.append(successor)
      fill(successor)
      successor.isStarted = true
      successor.startsPaused = stream.startsPaused
      core.startStream(
        successor.voice, effect: successor.effect, category: successor.category, paused: stream.startsPaused,
        onStart: successor.startFadeOuts)
    } catch {
      stream.skipsCrossfade = true
    }
  }

  static var threadCPUNanoseconds: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
