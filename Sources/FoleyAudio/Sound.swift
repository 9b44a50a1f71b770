internal import CSDL2
internal import CSDL2Mixer
public import Foundation

/// Sound bytes decoded once, in the device's format, and shared by every play of them.
///
/// Decoding happens on the engine's audio queue (it is a mixer call). Whatever the installed
/// SDL_mixer decodes works: WAV, OGG Vorbis, MP3, FLAC and more (``AudioEngine/chunkDecoders``
/// lists them). Empty, corrupt, truncated or unsupported bytes throw a ``SoundError`` naming the
/// asset and carrying SDL's message.
///
/// ```swift
/// let engine = try AudioEngine()
/// let laser = try Sound(contentsOf: URL(fileURLWithPath: "Assets/laser.wav"), engine: engine)
/// let voice = engine.play(laser)       // overlaps any earlier play of `laser`
/// voice.pan = -0.5
/// ```
///
/// Invariant behind `@unchecked Sendable`: `chunk` is written once, by the audio queue during
/// decoding, never changed, passed to `Mix_*` only on that queue, and freed on it when the sound
/// is released; voices keep their sound alive while they play.
public final class Sound: @unchecked Sendable {
  /// The asset's name, used in errors and logs.
  public let name: String
  /// Level, pan, priority and anti-spam limits for every play of this sound.
  public let settings: SoundSettings
  /// Length in seconds at the device's rate.
  public let duration: Double
  let chunk: UnsafeMutablePointer<Mix_Chunk>
  let core: MixerCore

  init(chunk: UnsafeMutablePointer<Mix_Chunk>, name: String, settings: SoundSettings, core: MixerCore) {
    self.chunk = chunk
    self.name = name
    self.settings = settings
    self.core = core
    let frameBytes = core.bytesPerFrame
    self.duration = frameBytes > 0 ? Double(chunk.pointee.alen) / Double(frameBytes * core.sampleRate) : 0
  }

  /// Decodes `data` for `engine`.
  /// - Parameter name: the asset's name for errors and logs.
  /// - Throws: ``SoundError`` when the bytes are empty or cannot be decoded.
  public convenience init(
    data: Data, name: String = "sound data", engine: AudioEngine, settings: SoundSettings = SoundSettings()
  ) throws {
    let core = engine.core
    let chunk = try core.syncOnQueue { try core.decode(data, name: name) }
    self.init(chunk: chunk, name: name, settings: settings, core: core)
  }

  /// Reads and decodes the file at `url` for `engine`.
  /// - Throws: ``SoundError`` when the file cannot be read or decoded.
  public convenience init(
    contentsOf url: URL, engine: AudioEngine, settings: SoundSettings = SoundSettings()
  )
    throws
  {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw SoundError(.unreadable, asset: url.lastPathComponent, message: error.localizedDescription)
    }
    try self.init(data: data, name: url.lastPathComponent, engine: engine, settings: settings)
  }

  deinit {
    nonisolated(unsafe) let chunk = chunk
    core.queue.async { Mix_FreeChunk(chunk) }
  }
}
