import Dispatch
import FoleyCore
package import Foundation
package import Logging

/// The engine's decoded sounds, found by their bytes or their asset name, within a memory budget.
///
/// - Bytes are found first by their storage (the same `Data` passed again is one pointer
///   comparison), then by a hash of their whole content (equal bytes in another `Data` are
///   compared once and then found by storage too). Foundation's own `Data` hash reads only the
///   first 80 bytes, so equal-length WAVs with the same header would all collide on it.
/// - Decoded samples count against ``limit``; past it, the least recently used sounds that no voice
///   is playing are dropped (a sound the game still holds lives on; it is only forgotten here).
/// - A decode that failed is remembered for the same bytes (they will not decode differently).
///   A named file that failed is tried again when asked for later if the file has changed (it
///   may have appeared).
///
/// Decoding runs on the caller's thread for the synchronous API and on the library's own queue
/// for actions; never on the audio queue, never under the mixer's lock.
package final class SoundLibrary: Sendable {
  let decoder: SoundDecoder
  package let assets: AssetRoots
  /// Bytes of decoded samples kept for reuse.
  package let limit: Int
  let decodeQueue = DispatchQueue(label: "foley.decode", qos: .userInitiated)
  package let releaser: ChunkReleaser
  private let logger: Logger
  private let state = Locked(State())

  /// A `Data`'s storage: its first byte's address and its length.
  private struct Identity: Hashable {
    package let address: UInt
    package let count: Int
  }

  private struct ContentKey: Hashable {
    package let count: Int
    package let hash: Int
  }

  private struct Entry {
    /// The bytes, and any other `Data` storage found equal to them: kept alive so an address in
    /// `byIdentity` can never be reused by other bytes while it is listed. They count against
    /// the budget.
    var retained: [Data]
    package let result: Result<Sound, SoundError>
    package var lastUse: UInt64
    package var data: Data { retained[0] }
    var identities: [Identity] { retained.compactMap(SoundLibrary.identity(of:)) }
    package var bytes: Int {
      ((try? result.get())?.buffer.byteCount ?? 0) + retained.reduce(0) { $0 + $1.count }
    }
  }

  /// At most this many `Data` storages are remembered for one entry.
  static let aliasesPerEntry = 4

  private struct NamedEntry {
    package let result: Result<Sound, SoundError>
    /// The file as it was when it failed (nil if it did not exist), to tell when to try again.
    package let signature: FileSignature?
    package var lastUse: UInt64
    package var bytes: Int { (try? result.get())?.buffer.byteCount ?? 0 }
  }

  private struct State {
    var byContent: [ContentKey: [Entry]] = [:]
    var byIdentity: [Identity: ContentKey] = [:]
    var byName: [String: NamedEntry] = [:]
    package var bytes = 0
    package var clock: UInt64 = 0
    package var failures = 0
    package var decodes = 0
  }

  /// At most this many failed decodes are remembered; past it the oldest are forgotten.
  static let rememberedFailures = 1_024

  /// The largest sound file read whole (`AudioConfiguration.maximumSoundFileSize`).
  package let maximumFileSize: Int

  package init(
    decoder: SoundDecoder, assets: AssetRoots, limit: Int, maximumFileSize: Int = 64 << 20,
    releaser: ChunkReleaser,
    logger: Logger
  ) {
    self.decoder = decoder
    self.assets = assets
    self.limit = limit
    self.maximumFileSize = maximumFileSize
    self.releaser = releaser
    self.logger = logger
  }

  /// Bytes of decoded samples the cache holds.
  var cachedBytes: Int { state.withLock { $0.bytes } }
  /// Times bytes were decoded (successfully or not).
  package var decodes: Int { state.withLock { $0.decodes } }

  // MARK: - By bytes

  /// The sound for `data`, decoded the first time only.
  package func sound(for data: Data, name: String?) throws(SoundError) -> Sound {
    let label = name ?? "sound data (\(data.count) bytes)"
    if let cached = lookUp(data) { return try remembered(cached) }
    let result = Result { () throws(SoundError) in try makeSound(from: data, name: label) }
    return try remembered(insert(data, result: result))
  }

  /// The sound a `playSound(data:)` reference plays, resolved once and remembered on it.
  package func sound(for reference: SoundDataReference) throws(SoundError) -> Sound {
    if let sound = reference.sound(in: self) { return sound }
    let sound = try sound(for: reference.data, name: reference.name)
    reference.remember(sound, in: self)
    return sound
  }

  /// What the cache already knows about `data` (found or failed), without decoding.
  func cachedResult(for reference: SoundDataReference) -> Result<Sound, SoundError>? {
    if let sound = reference.sound(in: self) { return .success(sound) }
    guard let result = lookUp(reference.data) else { return nil }
    if case .success(let sound) = result { reference.remember(sound, in: self) }
    return result
  }

  private func lookUp(_ data: Data) -> Result<Sound, SoundError>? {
    let identity = Self.identity(of: data)
    if let identity,
      let found = state.withLock({ state -> Result<Sound, SoundError>? in
        guard let key = state.byIdentity[identity], var entries = state.byContent[key],
          let index = entries.firstIndex(where: { $0.identities.contains(identity) })
        else { return nil }
        state.clock += 1
        entries[index].lastUse = state.clock
        state.byContent[key] = entries
        return entries[index].result
      })
    {
      return found
    }
    let key = Self.contentKey(of: data)
    return state.withLock { state in
      guard var entries = state.byContent[key], let index = entries.firstIndex(where: { $0.data == data })
      else {
        return nil
      }
      state.clock += 1
      entries[index].lastUse = state.clock
      if let identity, entries[index].retained.count < Self.aliasesPerEntry {
        entries[index].retained.append(data)
        state.byIdentity[identity] = key
        state.bytes += data.count
      }
      state.byContent[key] = entries
      return entries[index].result
    }
  }

  private func insert(_ data: Data, result: Result<Sound, SoundError>) -> Result<Sound, SoundError> {
    let key = Self.contentKey(of: data)
    let identity = Self.identity(of: data)
    let (kept, evicted) = state.withLock { state -> (Result<Sound, SoundError>, [Sound]) in
      state.decodes += 1
      // Another thread may have decoded the same bytes meanwhile: keep the first.
      if let existing = state.byContent[key]?.first(where: { $0.data == data }) {
        return (existing.result, [])
      }
      state.clock += 1
      let entry = Entry(retained: [data], result: result, lastUse: state.clock)
      if let identity { state.byIdentity[identity] = key }
      state.byContent[key, default: []].append(entry)
      state.bytes += entry.bytes
      if case .failure = result { state.failures += 1 }
      return (result, evict(&state))
    }
    _ = evicted  // released here, outside the lock
    return kept
  }

  // MARK: - By name

  /// The sound in the asset `name`, read and decoded the first time only.
  package func sound(named name: String) throws(SoundError) -> Sound {
    let cached = state.withLock { state -> NamedEntry? in
      guard var entry = state.byName[name] else { return nil }
      state.clock += 1
      entry.lastUse = state.clock
      state.byName[name] = entry
      return entry
    }
    if let cached {
      switch cached.result {
      case .success(let sound): return sound
      case .failure(let error):
        // A failure stands until the file changes (it may have appeared, or been fixed).
        if error.code == .invalidName || FileSignature(of: try? assets.locate(name)) == cached.signature {
          throw error
        }
      }
    }
    var signature: FileSignature?
    let result = Result { () throws(SoundError) -> Sound in
      let url = try assets.locate(name)
      signature = FileSignature(of: url)
      let data = try BoundedFile.read(url, limit: maximumFileSize, asset: name)
      return try makeSound(from: data, name: name)
    }
    let evicted = state.withLock { state -> [Sound] in
      state.decodes += 1
      if let old = state.byName[name] { state.bytes -= old.bytes }
      state.clock += 1
      let entry = NamedEntry(result: result, signature: signature, lastUse: state.clock)
      state.byName[name] = entry
      state.bytes += entry.bytes
      return evict(&state)
    }
    _ = evicted
    if case .failure(let error) = result { logger.error("\(error)") }
    return try result.get()
  }

  /// The sound loaded under `name`, if it is in the cache (no file is read).
  func cachedSound(named name: String) -> Sound? {
    state.withLock { state in
      guard var entry = state.byName[name], case .success(let sound) = entry.result else { return nil }
      state.clock += 1
      entry.lastUse = state.clock
      state.byName[name] = entry
      return sound
    }
  }

  /// Logs a failed decode of bytes (once: the failure is then remembered).
  func logFailure(_ error: SoundError) {
    logger.error("\(error)")
  }

  // MARK: - Budget

  /// Drops everything the cache holds (voices keep what they play; sounds the game holds live on).
  package func removeAll() {
    let dropped = state.withLock { state -> State in
      defer { state = State(clock: state.clock, decodes: state.decodes) }
      return state
    }
    _ = dropped
  }

  /// Forgets the sound loaded under `name` (the next play reads the file again).
  package func remove(named name: String) {
    let dropped = state.withLock { state -> NamedEntry? in
      guard let entry = state.byName.removeValue(forKey: name) else { return nil }
      state.bytes -= entry.bytes
      return entry
    }
    _ = dropped
  }

  /// Removes least recently used sounds no voice plays until the cache fits its limit, and old
  /// failures past ``rememberedFailures``. Returns the sounds dropped, to be released outside
  /// the lock.
  private func evict(_ state: inout State) -> [Sound] {
    var dropped: [Sound] = []
    while state.bytes > limit || state.failures > Self.rememberedFailures {
      let overBudget = state.bytes > limit
      var victim: (lastUse: UInt64, content: (ContentKey, Int)?, name: String?)?
      for (key, entries) in state.byContent {
        for (index, entry) in entries.enumerated() where victim == nil || entry.lastUse < victim!.lastUse {
          switch entry.result {
          case .success(let sound) where overBudget && sound.buffer.liveVoices.load(ordering: .relaxed) == 0:
            victim = (entry.lastUse, (key, index), nil)
          case .failure where !overBudget:
            victim = (entry.lastUse, (key, index), nil)
          default: continue
          }
        }
      }
      if overBudget {
        for (name, entry) in state.byName where victim == nil || entry.lastUse < victim!.lastUse {
          if case .success(let sound) = entry.result, sound.buffer.liveVoices.load(ordering: .relaxed) == 0 {
            victim = (entry.lastUse, nil, name)
          }
        }
      }
      guard let victim else { break }  // everything left is playing
      if let (key, index) = victim.content {
        let entry = state.byContent[key]!.remove(at: index)
        if state.byContent[key]!.isEmpty { state.byContent[key] = nil }
        for identity in entry.identities { state.byIdentity[identity] = nil }
        state.bytes -= entry.bytes
        switch entry.result {
        case .success(let sound): dropped.append(sound)
        case .failure: state.failures -= 1
        }
      } else if let name = victim.name, let entry = state.byName.removeValue(forKey: name) {
        state.bytes -= entry.bytes
        if case .success(let sound) = entry.result { dropped.append(sound) }
      }
    }
    return dropped
  }

  // MARK: - Decoding

  private func makeSound(from data: Data, name: String) throws(SoundError) -> Sound {
    let decoded = try decoder.decode(data, name: name)
    let frames = decoded.frames
    let source = decoded.source
    guard let chunk = decoded.intoChunk() else {
      throw SoundError(.undecodable, asset: name, message: "out of memory")
    }
    let buffer = SoundBuffer(
      chunk: chunk, frames: frames, format: decoder.format, source: source, releaser: releaser)
    return Sound(name: name, settings: SoundSettings(), buffer: buffer)
  }

  /// A sound of silence in `category`, not cached: the carrier a streamed voice loops.
  func silentSound(frames: Int, category: SoundCategory) -> Sound? {
    guard
      let buffer = SoundBuffer.silence(
        frames: frames, format: decoder.format,
        source: SourceDescription(
          format: "stream", sampleRate: decoder.format.sampleRate, channels: decoder.format.channels),
        releaser: releaser)
    else { return nil }
    var settings = SoundSettings()
    settings.category = category
    settings.policy = .reject
    return Sound(name: "\(category) stream", settings: settings, buffer: buffer)
  }

  private func remembered(_ result: Result<Sound, SoundError>) throws(SoundError) -> Sound {
    try result.get()
  }

  private static func identity(of data: Data) -> Identity? {
    // Small `Data` values live inline and have no lasting address; they are cheap to hash anyway.
    guard data.count >= 64 else { return nil }
    return data.withUnsafeBytes { bytes in
      bytes.baseAddress.map { Identity(address: UInt(bitPattern: $0), count: bytes.count) }
    }
  }

  private static func contentKey(of data: Data) -> ContentKey {
    var hasher = Hasher()
    data.withUnsafeBytes { hasher.combine(bytes: $0) }
    return ContentKey(count: data.count, hash: hasher.finalize())
  }
}

/// A file's size and modification time, to tell whether it changed since a load failed.
package struct FileSignature: Hashable {
  package let size: Int
  let modified: Date

  package init?(of url: URL?) {
    guard let url, let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
      let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
    else { return nil }
    self.size = size
    self.modified = modified
  }
}
