internal import CFoleySDL2
import Dispatch
import Synchronization

/// Decoded samples in the mix's format, shared by every ``Sound`` made from the same bytes and
/// by every play of them. Freed (on the audio queue, through the mixer, which first halts any
/// channel still playing it) when the last sound and voice let go.
final class SoundBuffer: Sendable {
  let chunk: MixChunk
  let frames: Int
  /// The format the samples are in.
  let format: AudioDeviceFormat
  let source: SourceDescription
  /// Voices playing from these samples right now; a cache keeps buffers with live voices.
  let liveVoices = Atomic<Int>(0)
  private let releaser: ChunkReleaser

  init(
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
  static func silence(
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

  var byteCount: Int { chunk.byteCount }
  var duration: Double { Double(frames) / Double(format.sampleRate) }

  deinit { releaser.free(chunk) }
}

/// Frees chunks through the engine's mixer on its audio queue: the one place mixer calls are made.
final class ChunkReleaser: Sendable {
  private let queue: DispatchQueue
  private let backend: any MixerBackend

  init(queue: DispatchQueue, backend: any MixerBackend) {
    self.queue = queue
    self.backend = backend
  }

  func free(_ chunk: MixChunk) {
    queue.async { [backend] in backend.freeChunk(chunk) }
  }
}
