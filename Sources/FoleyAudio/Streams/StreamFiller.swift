import Dispatch
import FoleySession
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The engine's music decoder: one serial queue that keeps every stream's ring topped up,
/// reading and decoding tracks, following loop points, going on to the queue's next track without
/// a gap (or starting it early on a second stream, for a crossfade), and converting to the mix's
/// format. It never calls the mixer; SDL's thread only copies from the rings.
///
/// With SDL it refills every 20 ms while any stream exists (a ring keeps half a second buffered,
/// so the decoder can fall behind by most of that before anything is heard) and not at all
/// otherwise. With the embedded mixer it refills before each mixed buffer instead, waiting for
/// track checks, so tests are deterministic.
///
/// Invariant behind `@unchecked Sendable`: `streams`, `timer` and the scratch buffers are touched
/// only on `queue`.
final class StreamFiller: @unchecked Sendable {
  /// Seconds of music each stream keeps decoded ahead.
  static let bufferedSeconds = 0.5
  let queue = DispatchQueue(label: "foley.music", qos: .userInitiated)
  let checker: TrackChecker
  private let core: MixerCore
  private let assets: AssetRoots
  private let refillsByItself: Bool
  private var streams: [MusicStream] = []
  private var pcmStreams: [PCMStream] = []
  private var timer: (any DispatchSourceTimer)?
  private var isShutDown = false
  private let readFrames = 4_096
  /// CPU time this queue has spent refilling (read by the benchmark: the decode thread's cost).
  let cpuNanoseconds = Atomic<UInt64>(0)
  private var decoded: [Float] = []
  private var scratch = [UInt8](repeating: 0, count: 65_536)

  init(core: MixerCore, checker: TrackChecker, assets: AssetRoots, refillsByItself: Bool) {
    self.core = core
    self.checker = checker
    self.assets = assets
    self.refillsByItself = refillsByItself
  }

  /// A stream for the game to start with ``start(_:track:queuePosition:at:fadeIn:)``; its voice
  /// waits, pending, until the ring is filled.
  func makeStream(
    volume: Double, category: SoundCategory, queue: MusicQueue?, notify: @escaping @Sendable () -> Void
  ) -> MusicStream {
    MusicStream(
      format: core.format, bufferedSeconds: Self.bufferedSeconds,
      declickFrames: max(1, Int(core.configuration.declickDuration * Double(core.format.sampleRate))),
      wake: core.inbox.wake, voice: core.makeStreamVoice(volume: volume), category: category, queue: queue,
      notify: notify)
  }

  /// Opens `track` on `stream` (once its check has passed), fills the ring and starts the voice.
  /// From any thread; what goes wrong arrives as the stream's failures.
  func start(
    _ stream: MusicStream, track: Track, queuePosition: Int?, at seconds: Double = 0, fadeIn: Double = 0,
    paused: Bool = false
  ) {
    queue.async { [self] in
      guard !isShutDown else {
        stream.voice.stop()
        return
      }
      stream.opening = MusicStream.Opening(
        track: track, queuePosition: queuePosition, startTime: seconds, fadeIn: fadeIn)
      stream.startsPaused = paused
      streams.append(stream)
      service(stream, waitingForChecks: !refillsByItself)
      updateTimer()
    }
  }

  /// Seeks `stream` to `seconds` into the track being heard: the effect fades the old audio out,
  /// skips what is left of it, and fades the new in. False when the track cannot seek.
  func seek(_ stream: MusicStream, to seconds: Double, completion: @escaping @Sendable (Bool) -> Void) {
    queue.async { [self] in
      completion(seekOnQueue(stream, to: seconds))
    }
  }

  private func seekOnQueue(_ stream: MusicStream, to seconds: Double) -> Bool {
    guard !stream.isCancelled.load(ordering: .acquiring), stream.followsQueue,
      let heard = stream.position?.segment, stream.effect.reopen()
    else { return false }
    // The reader may already be on the next track of the queue: seeking means the heard one.
    var reader = stream.reader
    if reader == nil || reader!.track != heard.nowPlaying.track || stream.queuePosition != heard.queuePosition
    {
      reader = try? TrackReader(heard.nowPlaying.track, url: try? resolve(heard.nowPlaying.track))
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

  /// Refills every stream now: the timer's work, and the embedded mixer's before each buffer.
  func fillAll(waitingForChecks: Bool = false) {
    dispatchPrecondition(condition: .onQueue(queue))
    let started = Self.threadCPUNanoseconds
    defer { cpuNanoseconds.add(Self.threadCPUNanoseconds &- started, ordering: .relaxed) }
    streams.removeAll { stream in
      let cancelled = stream.isCancelled.load(ordering: .acquiring)
      let over = stream.isStarted ? stream.voice.state == .finished : stream.opening == nil
      guard cancelled || over else { return false }
      if !stream.isStarted {
        stream.voice.stop()
        stream.startFadeOuts()
      }
      if stream.hasNews { stream.notify() }
      return true
    }
    for stream in streams { service(stream, waitingForChecks: waitingForChecks) }
    pcmStreams.removeAll {
      $0.isCancelled.load(ordering: .acquiring) || ($0.isStarted && $0.voice.isFinished)
    }
    for stream in pcmStreams { fill(stream) }
    updateTimer()
  }

  /// Whether the voices of `streams` start paused (the game paused the music before they began).
  func setStartsPaused(_ paused: Bool, for streams: [MusicStream]) {
    queue.async {
      for stream in streams { stream.startsPaused = paused }
    }
  }

  /// Stops every stream and the timer: the engine is closing.
  func shutDown() {
    queue.sync {
      isShutDown = true
      for stream in streams { stream.voice.stop() }
      streams.removeAll()
      for stream in pcmStreams { stream.voice.stop() }
      pcmStreams.removeAll()
      updateTimer()
    }
  }

  private func service(_ stream: MusicStream, waitingForChecks: Bool) {
    guard !stream.isCancelled.load(ordering: .acquiring) else { return }
    if stream.opening != nil {
      open(stream, waitingForChecks: waitingForChecks)
    } else {
      fill(stream)
      handOverIfEnding(stream, waitingForChecks: waitingForChecks)
    }
    if stream.hasNews { stream.notify() }
  }

  private func updateTimer() {
    guard refillsByItself else { return }
    if streams.isEmpty && pcmStreams.isEmpty {
      timer?.cancel()
      timer = nil
    } else if timer == nil {
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(
        deadline: .now() + .milliseconds(20), repeating: .milliseconds(20), leeway: .milliseconds(5))
      timer.setEventHandler { [unowned self] in fillAll() }
      timer.resume()
      self.timer = timer
    }
  }

  // MARK: - PCM streams

  /// A stream of `source` in `category`, started once its ring is filled.
  func makeStream(source: any PCMSource, name: String, category: SoundCategory, volume: Double) -> PCMStream {
    PCMStream(
      source: source, name: name,
      pipe: (
        core.format, Self.bufferedSeconds,
        max(1, Int(core.configuration.declickDuration * Double(core.format.sampleRate))), core.inbox.wake,
        core.makeStreamVoice(volume: volume), category
      ))
  }

  /// Fills `stream` and starts its voice; from any thread.
  func start(_ stream: PCMStream) {
    queue.async { [self] in
      guard !isShutDown, !stream.isCancelled.load(ordering: .acquiring) else {
        stream.voice.stop()
        return
      }
      do {
        try stream.prepareConverter(
          rate: stream.source.sampleRate, channels: stream.source.channels, name: stream.name)
      } catch {
        core.logger.error("\(error)")
        stream.voice.stop()
        return
      }
      pcmStreams.append(stream)
      fill(stream)
      stream.isStarted = true
      core.startStream(stream.voice, effect: stream.effect, category: stream.category, paused: false)
      updateTimer()
    }
  }

  private func fill(_ stream: PCMStream) {
    let frameBytes = stream.format.bytesPerFrame
    let target = Int(Self.bufferedSeconds * Double(stream.format.sampleRate))
    while true {
      let room = min(stream.ring.freeSpace / frameBytes, target - stream.framesBuffered) * frameBytes
      if stream.converted > 0, room > 0, stream.moveConverted(room: room, scratch: &scratch) > 0 { continue }
      guard room > 0, !stream.isDrainedOfSource else { break }
      let needed = readFrames * stream.source.channels
      if decoded.count < needed { decoded = [Float](repeating: 0, count: needed) }
      let frames = decoded.withUnsafeMutableBufferPointer {
        stream.source.read(into: $0.baseAddress!, count: readFrames)
      }
      if frames > 0 {
        decoded.withUnsafeBufferPointer { stream.convert($0.baseAddress!, frames: frames) }
      } else {
        stream.flushConverter()
        stream.isDrainedOfSource = true
      }
    }
    if stream.isDrainedOfSource, stream.converted == 0 { stream.effect.markEnded() }
  }

  // MARK: - Opening tracks

  private func resolve(_ track: Track) throws(SoundError) -> URL? {
    switch track.origin {
    case .file(let url): url
    case .named(let name): try assets.locate(name)
    case .data: nil
    }
  }

  /// The reader for `track` once its check passed; nil while the check runs. A failure is
  /// thrown.
  private func reader(for track: Track, waitingForChecks: Bool) throws(SoundError) -> TrackReader? {
    let url = try resolve(track)
    switch checker.verdict(for: track, at: url, waiting: waitingForChecks) {
    case nil: return nil
    case .failed(let error): throw error
    case .passed: return try TrackReader(track, url: url)
    }
  }

  /// Opens the stream's first track (or, when it fails, the queue's next ones) and starts the
  /// voice once the ring is full.
  private func open(_ stream: MusicStream, waitingForChecks: Bool) {
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
  private func fill(_ stream: MusicStream) {
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
  private func nextTrack(of stream: MusicStream) -> Bool {
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

  private func drainConverter(_ stream: MusicStream) {
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
  private func handOverIfEnding(_ stream: MusicStream, waitingForChecks: Bool) {
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

  private static var threadCPUNanoseconds: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
