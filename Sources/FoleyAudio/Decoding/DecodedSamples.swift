internal import CFoleySDL2

/// Samples decoded and converted to the mix's format, in memory from `SDL_malloc` (so a
/// ``MixChunk`` can take them over), with what the file said about itself.
package final class DecodedSamples {
  private var bytes: UnsafeMutableRawPointer?
  package let byteCount: Int
  package let frames: Int
  package let source: SourceDescription

  package init(bytes: UnsafeMutableRawPointer, byteCount: Int, frames: Int, source: SourceDescription) {
    self.bytes = bytes
    self.byteCount = byteCount
    self.frames = frames
    self.source = source
  }

  /// Hands the samples to a chunk, once; nil if the chunk cannot be made (then they are freed).
  func intoChunk() -> MixChunk? {
    guard let bytes else { return nil }
    self.bytes = nil
    guard let chunk = MixChunk.owning(bytes, byteCount: byteCount) else {
      SDL_free(bytes)
      return nil
    }
    return chunk
  }

  deinit {
    if let bytes { SDL_free(bytes) }
  }
}

/// What a sound file declares: its format, rate and channel count as decoded (before conversion
/// to the mix's format), its loop points and tags.
public struct SourceDescription: Sendable, Hashable {
  /// "WAV", "AIFF", "OGG Vorbis", "Opus", "FLAC" or "MP3".
  public var format: String
  public var sampleRate: Int
  /// 1 for a mono source: positional sound pans mono and stereo sources differently.
  public var channels: Int
  /// Loop points in source frames, from tags (`LOOPSTART`/`LOOPEND`/`LOOPLENGTH`) or a WAV
  /// sampler chunk; nil when the file has none.
  public var loopStart: Int?
  public var loopEnd: Int?
  public var title: String?
  public var artist: String?
  public var album: String?
}
