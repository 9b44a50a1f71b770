internal import CFoleySDL2
package import Dispatch
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
  /// Voices playing from these samples right now; a cache keeps buffers with live voices.
  package let liveVoices = Atomic<Int>(0)
  /// The loudness, once measured (see `loudness`).
  let measuredLoudness = Mutex<Loudness?>(nil)
  private let releaser: ChunkReleaser

  package init(
    chunk: MixChunk, frames: Int, format: AudioDeviceFormat, source: SourceDescription,
    releaser: ChunkReleaser
  ) {
    self.chunk = chunk
    self.frames = frames
    self.format = format
    self.source = source
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
package final class ChunkReleaser: Sendable {
  private let queue: DispatchQueue
  private let backend: any MixerBackend

  package init(queue: DispatchQueue, backend: any MixerBackend) {
    self.queue = queue
    self.backend = backend
  }

  package func free(_ chunk: MixChunk) {
    queue.async { [backend] in backend.freeChunk(chunk) }
  }
}
