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
  let core: MixerCore
  let assets: AssetRoots
  let refillsByItself: Bool
  var streams: [MusicStream] = []
  var pcmStreams: [PCMStream] = []
  var timer: (any DispatchSourceTimer)?
  var isShutDown = false
  let readFrames = 4_096
  /// CPU time this queue has spent refilling (read by the benchmark: the decode thread's cost).
  let cpuNanoseconds = Atomic<UInt64>(0)
  var decoded: [Float] = []
  var scratch = [UInt8](repeating: 0, count: 65_536)

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

  func seekOnQueue(_ stream: MusicStream, to seconds: Double) -> Bool {
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

  func service(_ stream: MusicStream, waitingForChecks: Bool) {
    guard !stream.isCancelled.load(ordering: .acquiring) else { return }
    if stream.opening != nil {
      open(stream, waitingForChecks: waitingForChecks)
    } else {
      fill(stream)
      handOverIfEnding(stream, waitingForChecks: waitingForChecks)
    }
    if stream.hasNews { stream.notify() }
  }

  func updateTimer() {
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

  func fill(_ stream: PCMStream) {
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

}
