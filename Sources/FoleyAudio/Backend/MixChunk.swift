internal import CFoleySDL2
internal import CFoleySDL2Mixer

/// A block of samples in the mix's format that a mixer channel plays: SDL_mixer's `Mix_Chunk`,
/// allocated with SDL's allocator so that `Mix_FreeChunk` (which first halts any channel still
/// playing it, under the audio lock) can free it.
///
/// Invariant behind `@unchecked Sendable`: the chunk's bytes are written once, before it is first
/// played, and only read (by the mix) after; the core frees it on its queue.
package struct MixChunk: @unchecked Sendable, Hashable {
  let pointer: UnsafeMutablePointer<Mix_Chunk>

  /// The samples.
  package var samples: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer.pointee.abuf) }
  package var byteCount: Int { Int(pointer.pointee.alen) }
  /// False for a view into another chunk's samples (a play resumed mid-sound).
  var ownsSamples: Bool { pointer.pointee.allocated != 0 }

  /// A chunk that takes ownership of `samples`, which must come from `SDL_malloc`.
  static func owning(_ samples: UnsafeMutableRawPointer, byteCount: Int) -> MixChunk? {
    make(samples, byteCount: byteCount, owns: true)
  }

  /// A chunk that plays bytes it does not own; they must outlive it.
  package static func view(of samples: UnsafeMutableRawPointer, byteCount: Int) -> MixChunk? {
    make(samples, byteCount: byteCount, owns: false)
  }

  private static func make(_ samples: UnsafeMutableRawPointer, byteCount: Int, owns: Bool) -> MixChunk? {
    guard byteCount > 0, byteCount <= Int(UInt32.max),
      let raw = SDL_malloc(MemoryLayout<Mix_Chunk>.size)
    else { return nil }
    let chunk = raw.bindMemory(to: Mix_Chunk.self, capacity: 1)
    chunk.initialize(
      to: Mix_Chunk(
        allocated: owns ? 1 : 0, abuf: samples.assumingMemoryBound(to: UInt8.self), alen: UInt32(byteCount),
        volume: UInt8(MIX_MAX_VOLUME)))
    return MixChunk(pointer: chunk)
  }

  /// Frees the chunk (and its samples, if it owns them) without SDL_mixer: for a mixer that is
  /// not SDL_mixer, or once SDL_mixer is closed.
  func freeWithoutMixer() {
    if ownsSamples { SDL_free(pointer.pointee.abuf) }
    SDL_free(pointer)
  }
}
