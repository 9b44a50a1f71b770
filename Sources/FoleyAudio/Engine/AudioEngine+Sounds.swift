public import Foundation

extension AudioEngine {
  /// Decodes `data` (or returns the sound already decoded from the same bytes). Decoding runs on
  /// the calling thread; nothing that plays is held up.
  /// - Throws: ``SoundError`` for empty, undecodable, unsupported or over-long bytes.
  public func sound(data: Data, name: String? = nil) throws(SoundError) -> Sound {
    guard !isClosed else { throw SoundError(.engineClosed, asset: name ?? "sound data") }
    return try library.sound(for: data, name: name)
  }

  /// Loads `name` from the asset roots (or returns the sound already loaded under that name).
  /// A name that failed is tried again later if its file has changed.
  /// - Throws: ``SoundError``: `.invalidName` for names that are not inside a root, `.unreadable`
  ///   for missing files, and the decoding errors.
  public func sound(named name: String) throws(SoundError) -> Sound {
    guard !isClosed else { throw SoundError(.engineClosed, asset: name) }
    return try library.sound(named: name)
  }

  /// Loads named sounds ahead of time so their first play does not wait for a decode.
  /// - Returns: the errors of the ones that failed (the others are ready).
  @discardableResult
  public func preload(_ names: [String]) -> [SoundError] {
    names.compactMap { name -> SoundError? in
      do throws(SoundError) {
        _ = try sound(named: name)
        return nil
      } catch {
        return error
      }
    }
  }

  /// Forgets every cached sound (sounds still playing, or held by the game, live on; the cache
  /// only drops its reference). The next play of the same bytes or name decodes again.
  public func removeCachedSounds() {
    library.removeAll()
  }

  /// Forgets the sound loaded under `name`: the next play reads and decodes the file again.
  public func removeCachedSound(named name: String) {
    library.remove(named: name)
  }

  /// Bytes of decoded samples the cache holds (at most `AudioConfiguration.soundCacheLimit`,
  /// unless voices are playing more than that).
  public var cachedSoundBytes: Int { library.cachedBytes }
}
