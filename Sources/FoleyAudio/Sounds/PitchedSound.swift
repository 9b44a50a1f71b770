internal import CFoleySDL2
import Foundation

extension SoundLibrary {
  /// `sound` played `semitones` higher (or lower): its samples resampled as if they had been
  /// recorded at the mix's rate × 2^(semitones/12), so it is shorter and higher (or longer and
  /// lower), as a tape sped up. SDL_mixer has no per-channel pitch, so variants are rendered
  /// ahead like this. Nil if SDL cannot convert it or memory runs out.
  package func pitched(_ sound: Sound, semitones: Double) -> Sound? {
    let buffer = sound.buffer
    let format = buffer.format
    let ratio = pow(2, semitones / 12)
    let inputRate = Int32((Double(format.sampleRate) * ratio).rounded())
    let sdlFormat = format.sampleFormat == .float32 ? CFoleySDL2_AUDIO_F32SYS() : CFoleySDL2_AUDIO_S16SYS()
    guard inputRate > 0,
      let stream = SDL_NewAudioStream(
        sdlFormat, UInt8(format.channels), inputRate, sdlFormat, UInt8(format.channels),
        Int32(format.sampleRate))
    else { return nil }
    defer { SDL_FreeAudioStream(stream) }
    let frameBytes = format.bytesPerFrame
    // The samples, then silence to push out what the resampler holds back; exactly the frames
    // the new rate makes are kept.
    let silence = [UInt8](repeating: 0, count: 4_096 * frameBytes)
    guard SDL_AudioStreamPut(stream, buffer.chunk.samples, Int32(buffer.byteCount)) == 0,
      SDL_AudioStreamPut(stream, silence, Int32(silence.count)) == 0, SDL_AudioStreamFlush(stream) == 0
    else { return nil }
    let frames = Int((Double(buffer.frames) * Double(format.sampleRate) / Double(inputRate)).rounded())
    let bytes = max(1, frames) * frameBytes
    guard let samples = SDL_malloc(bytes) else { return nil }
    let got = Int(SDL_AudioStreamGet(stream, samples, Int32(bytes)))
    if got < bytes {
      (samples + max(0, got)).initializeMemory(as: UInt8.self, repeating: 0, count: bytes - max(0, got))
    }
    guard let chunk = MixChunk.owning(samples, byteCount: bytes) else {
      SDL_free(samples)
      return nil
    }
    let variant = SoundBuffer(
      chunk: chunk, frames: max(1, frames), format: format, source: buffer.source, releaser: releaser,
      semitones: semitones)
    return Sound(
      name: "\(sound.name) (\(semitones > 0 ? "+" : "")\(semitones) st)", settings: sound.settings,
      buffer: variant)
  }
}
