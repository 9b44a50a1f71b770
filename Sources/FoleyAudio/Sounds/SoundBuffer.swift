internal import CFoleyCodecs
internal import CFoleyDSP
internal import CFoleySDL2
package import Dispatch
import FoleyCore
package import Synchronization

/// Decoded samples in the mix's format, shared by every ``Sound`` made from the same bytes and
/// by every play of them. Freed (on the audio queue, through the mixer, which first halts any
/// channel still playing it) when the last sound and voice let go.
package final class SoundBuffer: Sendable {
  package let chunk: MixChunk
  package let frames: Int
  /// The format the samples are in.
  package let format: AudioDeviceFormat
  package let source: SourceDescription
  /// For a pitched copy of another sound's samples (``SoundLibrary/pitched(_:semitones:)``), the
  /// semitones it was moved by: what a capture names it by, beside its source's name.
  package let semitones: Double?
  /// Voices playing from these samples right now; a cache keeps buffers with live voices.
  package let liveVoices = Atomic<Int>(0)
  /// The loudness, once measured (see `loudness`).
  let measuredLoudness = Locked<Loudness?>(nil)
  let measuredEnvelope = Locked<HapticEnvelope?>(nil)
  private let releaser: ChunkReleaser

  package init(
    chunk: MixChunk, frames: Int, format: AudioDeviceFormat, source: SourceDescription,
    releaser: ChunkReleaser, semitones: Double? = nil
  ) {
    self.chunk = chunk
    self.frames = frames
    self.format = format
    self.source = source
    self.semitones = semitones
    self.releaser = releaser
  }

  /// `frames` of silence (a streamed voice's carrier).
  package static func silence(
    frames: Int, format: AudioDeviceFormat, source: SourceDescription, releaser: ChunkReleaser
  )
    -> SoundBuffer?
  {
    let bytes = frames * format.bytesPerFrame
    guard let samples = SDL_calloc(1, bytes) else { return nil }
    guard let chunk = MixChunk.owning(samples, byteCount: bytes) else {
      SDL_free(samples)
      return nil
    }
    return SoundBuffer(chunk: chunk, frames: frames, format: format, source: source, releaser: releaser)
  }

  package var byteCount: Int { chunk.byteCount }
  package var duration: Double { Double(frames) / Double(format.sampleRate) }

  deinit { releaser.free(chunk) }
}

/// Frees chunks through the engine's mixer on its audio queue: the one place mixer calls are made.
///
/// Freed samples go back to the system, not only to the allocator: sounds are mostly smaller
/// than glibc's mmap threshold (a quarter second of stereo float is 94 KiB, and the threshold
/// rises to the largest block freed), so a cache that turns over keeps their pages resident in
/// the heap. Once `trimThreshold` bytes have been freed, `malloc_trim` hands free pages back, on
/// a utility queue (it walks the heap under the allocator's locks; the audio thread never
/// allocates, so it never waits for it), at most one at a time.
package final class ChunkReleaser: Sendable {
  private let queue: DispatchQueue
  private let backend: any MixerBackend
  /// Bytes freed since the last trim was asked for.
  private let freedSinceTrim = Atomic<Int>(0)
  private let trimming = Atomic<Bool>(false)
  /// Trims done, and those that handed pages back to the system.
  let trimsDone = Atomic<Int>(0)
  let trimsReleasing = Atomic<Int>(0)
  /// How many freed bytes ask for a trim.
  static let trimThreshold = 8 << 20

  package init(queue: DispatchQueue, backend: any MixerBackend) {
    self.queue = queue
    self.backend = backend
  }

  package func free(_ chunk: MixChunk) {
    queue.async { [self] in
      let bytes = chunk.byteCount
      backend.freeChunk(chunk)
      noteFreed(bytes)
    }
  }

  private func noteFreed(_ bytes: Int) {
    let freed = freedSinceTrim.add(bytes, ordering: .relaxed).newValue
    guard freed >= Self.trimThreshold,
      trimming.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    else { return }
    freedSinceTrim.store(0, ordering: .relaxed)
    DispatchQueue.global(qos: .utility).async { [self] in
      if foley_trim_heap() != 0 { trimsReleasing.add(1, ordering: .relaxed) }
      trimsDone.add(1, ordering: .releasing)
      trimming.store(false, ordering: .releasing)
    }
  }
}
