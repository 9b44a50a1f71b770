package import Dispatch
import FoleyCore
import Foundation
import Synchronization

/// A stream the engine's stream filler keeps fed: a music track's stream (FoleyMusic), a
/// generator's ``PCMStream`` (speech). Every method runs on the filler's queue.
package protocol FilledStream: AnyObject {
  /// Tops the stream's ring up (or opens what it plays first). Returns false once the stream is
  /// over or cancelled, and the filler lets it go; `waitingForChecks` says the filler may block
  /// on a file's check (the embedded mixer's deterministic refills).
  func refill(on filler: StreamFiller, waitingForChecks: Bool) -> Bool
  /// The engine is closing: stop the voice.
  func shutDown()
}

/// The engine's stream thread: one serial queue that keeps every streamed voice's ring topped up
/// (music tracks, speech, any generator), each stream saying how through ``FilledStream``. It
/// never calls the mixer; SDL's thread only copies from the rings.
///
/// With SDL it refills every 20 ms while any stream exists (a ring keeps half a second buffered,
/// so the decoder can fall behind by most of that before anything is heard) and not at all
/// otherwise. With the embedded mixer it refills before each mixed buffer instead, waiting for
/// track checks, so tests are deterministic.
///
/// Invariant behind `@unchecked Sendable`: the queue-owned state (the streams, the timer, the
/// scratch buffers) is in ``QueueBound`` boxes that check the queue in debug builds; the rest is
/// immutable or atomic.
package final class StreamFiller: @unchecked Sendable {
  /// Seconds of audio each stream keeps decoded ahead.
  package static let bufferedSeconds = 0.5
  package let queue = DispatchQueue(label: "foley.streams", qos: .userInitiated)
  package let core: MixerCore
  /// Where named files are (music tracks by name).
  package let assets: AssetRoots
  /// True on SDL (a timer refills); false on a backend that calls ``fillAll(waitingForChecks:)``
  /// before each buffer it mixes.
  package let refillsByItself: Bool
  private var streams: QueueBound<[any FilledStream]>
  private var timer: QueueBound<(any DispatchSourceTimer)?>
  private var shutDownFlag: QueueBound<Bool>
  /// Frames a stream reads from its source at a time.
  package let readFrames = 4_096
  /// The engine's own streaming service (music decodes there).
  package let streamingService = StreamingService()
  /// CPU time this queue has spent refilling (read by the benchmark: the decode thread's cost).
  let cpuNanoseconds = Atomic<UInt64>(0)
  /// Scratch for decoded float frames and converted bytes, reused by every stream's refill.
  private var decodedScratch: QueueBound<[Float]>
  private var byteScratch: QueueBound<[UInt8]>

  package init(core: MixerCore, assets: AssetRoots, refillsByItself: Bool) {
    self.core = core
    self.assets = assets
    self.refillsByItself = refillsByItself
    streams = QueueBound([], on: queue)
    timer = QueueBound(nil, on: queue)
    shutDownFlag = QueueBound(false, on: queue)
    decodedScratch = QueueBound([], on: queue)
    byteScratch = QueueBound([UInt8](repeating: 0, count: 65_536), on: queue)
  }

  /// Whether the engine closed (queue-owned).
  var isShutDown: Bool { shutDownFlag.value }

  /// What a new stream's pipe is built from: the mix's format, the buffering, the de-click time,
  /// the engine's wake, and a new streamed voice.
  package func pipeSetup(volume: Double, category: SoundCategory) -> StreamPipe.Setup {
    StreamPipe.Setup(
      format: core.format, bufferedSeconds: Self.bufferedSeconds,
      declickFrames: max(1, Int(core.configuration.declickDuration * Double(core.format.sampleRate))),
      wake: core.inbox.wake, voice: core.makeStreamVoice(volume: volume), category: category)
  }

  /// Starts feeding `stream` (on the queue): it is refilled now and from then on. A stream added
  /// after the engine closed is shut down at once.
  package func add(_ stream: any FilledStream) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard !isShutDown else {
      stream.shutDown()
      return
    }
    streams.value.append(stream)
    if !stream.refill(on: self, waitingForChecks: !refillsByItself) {
      streams.value.removeAll { $0 === stream }
    }
    updateTimer()
  }

  /// Refills every stream now: the timer's work, and the embedded mixer's before each buffer.
  func fillAll(waitingForChecks: Bool = false) {
    dispatchPrecondition(condition: .onQueue(queue))
    let started = Self.threadCPUNanoseconds
    defer { cpuNanoseconds.add(Self.threadCPUNanoseconds &- started, ordering: .relaxed) }
    // Refilled one at a time from a copy: a refill may add a stream (a crossfade's next track).
    let current = streams.value
    var finished: [ObjectIdentifier] = []
    for stream in current where !stream.refill(on: self, waitingForChecks: waitingForChecks) {
      finished.append(ObjectIdentifier(stream))
    }
    if !finished.isEmpty { streams.value.removeAll { finished.contains(ObjectIdentifier($0)) } }
    updateTimer()
  }

  /// Stops every stream and the timer: the engine is closing.
  package func shutDown() {
    // A read stuck in the streaming service holds the queue: it gives up first.
    streamingService.cancel()
    queue.sync {
      shutDownFlag.value = true
      for stream in streams.value { stream.shutDown() }
      streams.value.removeAll()
      updateTimer()
    }
    streamingService.stop()
  }

  private func updateTimer() {
    guard refillsByItself else { return }
    if streams.value.isEmpty {
      timer.value?.cancel()
      timer.value = nil
    } else if timer.value == nil {
      let made = DispatchSource.makeTimerSource(queue: queue)
      made.schedule(
        deadline: .now() + .milliseconds(20), repeating: .milliseconds(20), leeway: .milliseconds(5))
      made.setEventHandler { [unowned self] in fillAll() }
      made.resume()
      timer.value = made
    }
  }

  // MARK: - Moving frames

  /// Moves converted audio into `stream`'s ring while it has room, up to what it keeps
  /// buffered, reading more from `read` (frames into a float buffer of `channels`; 0 when the
  /// source has nothing now) as the converter runs dry. Returns when the ring is full or `read`
  /// gives nothing.
  package func pump(
    _ stream: StreamPipe, channels: Int, read: (UnsafeMutablePointer<Float>, Int) -> Int
  ) -> Bool {
    let frameBytes = stream.format.bytesPerFrame
    let target = Int(Self.bufferedSeconds * Double(stream.format.sampleRate))
    while true {
      let room = min(stream.ring.freeSpace / frameBytes, target - stream.framesBuffered) * frameBytes
      if stream.converted > 0, room > 0, stream.moveConverted(room: room, scratch: &byteScratch.value) > 0 {
        continue
      }
      guard room > 0, !stream.isDrainedOfSource else { return true }
      let needed = readFrames * channels
      if decodedScratch.value.count < needed { decodedScratch.value = [Float](repeating: 0, count: needed) }
      let frames = decodedScratch.value.withUnsafeMutableBufferPointer { read($0.baseAddress!, readFrames) }
      guard frames > 0 else { return false }
      decodedScratch.value.withUnsafeBufferPointer { stream.convert($0.baseAddress!, frames: frames) }
    }
  }

  /// Moves what `stream`'s converter still holds into the ring (a resampler's tail, a few
  /// milliseconds, before a converter for another rate takes over).
  package func drainConverter(_ stream: StreamPipe) {
    let frameBytes = stream.format.bytesPerFrame
    while stream.converted > 0 {
      let room = stream.ring.freeSpace / frameBytes * frameBytes
      guard room > 0, stream.moveConverted(room: room, scratch: &byteScratch.value) > 0 else { return }
    }
  }

  /// CPU time of the calling thread.
  package static var threadCPUNanoseconds: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  // MARK: - PCM streams

  /// A stream of `source` in `category`, started once its ring is filled.
  package func makeStream(
    source: any PCMSource, name: String, category: SoundCategory, volume: Double
  )
    -> PCMStream
  {
    PCMStream(source: source, name: name, pipe: pipeSetup(volume: volume, category: category))
  }

  /// Fills `stream` and starts its voice; from any thread.
  package func start(_ stream: PCMStream) {
    core.noteUncaptured("streams")
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
      add(stream)
    }
  }
}

extension PCMStream: FilledStream {
  package func refill(on filler: StreamFiller, waitingForChecks: Bool) -> Bool {
    if isCancelled.load(ordering: .acquiring) || (isStarted && voice.isFinished) { return false }
    let source = self.source
    let more = filler.pump(self, channels: source.channels) {
      source.read(into: $0, count: $1, waiting: waitingForChecks)
    }
    if !more {
      flushConverter()
      isDrainedOfSource = true
      _ = filler.pump(self, channels: source.channels) { _, _ in 0 }
    }
    if isDrainedOfSource, converted == 0 { effect.markEnded() }
    if !isStarted {
      isStarted = true
      filler.core.startStream(voice, effect: effect, category: category, paused: false)
    }
    return true
  }

  package func shutDown() {
    voice.stop()
  }
}
