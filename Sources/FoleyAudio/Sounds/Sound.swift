public import Foundation

/// Sound bytes decoded once, in the mix's format, and shared by every play of them.
///
/// Whatever Foley decodes works: WAV (PCM, float, ADPCM, A-law, µ-law), AIFF, OGG Vorbis, Opus,
/// FLAC and MP3, each through the library made for it. Empty, corrupt, truncated, unsupported or
/// over-long bytes throw a ``SoundError`` naming the asset; nothing is decoded while SDL's audio
/// lock is held, so loading never stalls what is playing.
///
/// ```swift
/// let engine = try AudioEngine()
/// let laser = try Sound(contentsOf: URL(fileURLWithPath: "Assets/laser.wav"), engine: engine)
/// let voice = engine.play(laser)       // overlaps any earlier play of `laser`
/// voice.pan = -0.5
/// var quiet = SoundSettings()
/// quiet.volume = 0.3
/// let soft = try Sound(contentsOf: laserURL, engine: engine, settings: quiet)  // same samples, decoded once
/// ```
public final class Sound: Sendable {
  /// The asset's name, used in errors and logs.
  public let name: String
  /// Level, pan, priority and anti-spam limits for every play of this sound.
  public let settings: SoundSettings
  package let buffer: SoundBuffer

  package init(name: String, settings: SoundSettings, buffer: SoundBuffer) {
    self.name = name
    self.settings = settings
    self.buffer = buffer
  }

  /// Length in seconds.
  public var duration: Double { buffer.duration }
  /// What the file declared: format, rate, channels (1 for mono), loop points and tags.
  public var source: SourceDescription { buffer.source }
  /// Its loudness (BS.1770 / EBU R128, with libebur128), measured the first time it is asked for
  /// and kept with the decoded samples.
  public var loudness: Loudness { buffer.loudness }

  /// Decodes `data` for `engine` (or reuses the samples already decoded from the same bytes).
  /// - Parameters:
  ///   - data: the file's bytes (WAV, AIFF, Ogg Vorbis, Opus, FLAC or MP3).
  ///   - name: the asset's name for errors and logs.
  ///   - engine: the engine whose format the sound is decoded for.
  ///   - settings: level, pan, priority and limits for every play of it.
  /// - Throws: ``SoundError`` when the bytes are empty, cannot be decoded or are too long.
  public convenience init(
    data: Data, name: String = "sound data", engine: AudioEngine, settings: SoundSettings = SoundSettings()
  ) throws(SoundError) {
    let decoded = try engine.library.sound(for: data, name: name)
    self.init(name: name, settings: settings, buffer: decoded.buffer)
  }

  /// Reads and decodes the file at `url` for `engine`. Any path is allowed here (it is the
  /// program's own choice); names given to ``AudioEngine/sound(named:)`` must stay inside the
  /// asset roots.
  /// - Throws: ``SoundError`` when the file cannot be read or decoded.
  public convenience init(
    contentsOf url: URL, engine: AudioEngine, settings: SoundSettings = SoundSettings()
  ) throws(SoundError) {
    let data = try BoundedFile.read(
      url, limit: engine.core.configuration.maximumSoundFileSize, asset: url.lastPathComponent)
    try self.init(data: data, name: url.lastPathComponent, engine: engine, settings: settings)
  }
}
