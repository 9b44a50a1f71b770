import FlyingFox
import FoleyAudio
import FoleyCore
import FoleySoundMap
import Foundation

/// The sound map as the page reads and edits it (`GET /map.json`).
///
/// ```swift
/// let map = try JSONDecoder().decode(InspectorMapState.self, from: data)
/// print(map.version, map.events["ball.hit"] ?? "-")
/// ```
public struct InspectorMapState: Sendable, Codable, Hashable {
  /// The map's file name, nil for a map made from bytes.
  public var file: String?
  /// The version an edit names (`SoundMap.version`).
  public var version: Int
  public var hasUnsavedEdits: Bool
  /// Each event's entry, as the map's text has it.
  public var events: [String: String]
  /// The buses an event may play on: the engine's own four, those the map's `mix.buses` declares
  /// (listed before anything plays on them), and any other category with a bus now.
  public var buses: [String]
  /// The files the map may name: the sounds in its folder and below it.
  public var files: [String]
  /// The music states the map names, and the one it is in.
  public var musicStates: [String]
  public var musicState: String?
  /// The parameters that bring the music's stems in, with their values now (0…1).
  public var intensities: [String: Double]
  /// The parameters the map's switches read, with the values their cases name.
  public var switches: [String: [String]]
  public var editingAllowed: Bool
  public var savingAllowed: Bool
}

/// The routes that read, edit and save the inspected sound map. Every map call runs on the game
/// thread, at its next mailbox drain; a game that does not drain within ``mapTimeout`` seconds
/// gets 503, and nothing is changed.
extension InspectorServer {
  static let mapTimeout = 10.0

  func mapState(_ request: HTTPRequest) async -> HTTPResponse {
    guard let soundMap else { return Self.reply(404, ["error": "no sound map is inspected"]) }
    let editing = options.allowsControl
    let saving = options.allowsSaving
    // The categories with a bus now (a lock read: no wait on the audio queue from the server's
    // shared threads); the engine's own four come with the map's declared buses.
    let buses = engine.core.busIndices.withLock { Set($0.keys.map(\.name)) }
    // The game thread only takes the map's text and its small facts; the entries are listed here,
    // on the server's threads, once per version of the map.
    let taken = await onGameThread {
      (
        soundMap.listing,
        InspectorMapState(
          file: soundMap.url?.lastPathComponent, version: soundMap.version,
          hasUnsavedEdits: soundMap.hasUnsavedEdits, events: [:],
          buses: buses.union(soundMap.declaredBuses).sorted(), files: [],
          musicStates: soundMap.musicStates, musicState: soundMap.musicState,
          intensities: soundMap.intensityParameters, switches: soundMap.switchParameters,
          editingAllowed: editing, savingAllowed: saving),
        soundMap.folder
      )
    }
    guard let (listing, partial, folder) = taken else { return Self.gameThreadTimeout }
    var state = partial
    state.events = listedEntries(listing)
    state.files = Self.soundFiles(in: folder)
    return Self.reply(200, state)
  }

  /// `POST /map/event?name=NAME&version=N`, the entry's JSON as the body: 200 with the new
  /// version, 409 if the map changed since N (with its version), 400 with the parser's errors.
  func editEvent(_ request: HTTPRequest) async throws -> HTTPResponse {
    guard options.allowsControl else {
      return Self.reply(403, ["error": InspectorError.controlsDisabled.description])
    }
    guard let soundMap else { return Self.reply(404, ["error": "no sound map is inspected"]) }
    guard let name = request.query["name"], InspectorCommand.isName(name),
      let version = request.query["version"].flatMap({ Int($0) })
    else {
      return Self.reply(400, ["error": "an edit names the event (name=) and the map's version (version=)"])
    }
    let body = try await request.bodyData
    guard body.count <= Self.maximumEntrySize else {
      return Self.reply(413, ["error": "an entry is at most \(Self.maximumEntrySize) bytes"])
    }
    let outcome = await onGameThread { () -> Result<Int, SoundMapEditError> in
      do throws(SoundMapEditError) {
        return .success(try soundMap.replaceEvent(name, with: body, expecting: version))
      } catch {
        return .failure(error)
      }
    }
    return Self.editReply(outcome)
  }

  private static func editReply(_ outcome: Result<Int, SoundMapEditError>?) -> HTTPResponse {
    switch outcome {
    case nil: return gameThreadTimeout
    case .success(let version): return reply(200, ["version": version])
    case .failure(.conflict(let current)):
      return reply(
        409, EditRefusal(error: SoundMapEditError.conflict(current: current).description, version: current))
    case .failure(.invalid(let errors)):
      return reply(400, EditRefusal(error: "the map would not load", errors: errors))
    case .failure(let other): return reply(400, EditRefusal(error: other.description))
    }
  }

  /// `POST /map/mix?version=N`, the buses' levels in dB as the body (`{"music": -6}`): written into
  /// the map's `mix` section as an edit (saved with the map). Answers as an event's edit does.
  func editMix(_ request: HTTPRequest) async throws -> HTTPResponse {
    guard options.allowsControl else {
      return Self.reply(403, ["error": InspectorError.controlsDisabled.description])
    }
    guard let soundMap else { return Self.reply(404, ["error": "no sound map is inspected"]) }
    guard let version = request.query["version"].flatMap({ Int($0) }) else {
      return Self.reply(400, ["error": "an edit names the map's version (version=)"])
    }
    let body = try await request.bodyData
    guard body.count <= Self.maximumEntrySize,
      let levels = try? JSONDecoder().decode([String: Double].self, from: body), levels.count <= 64,
      levels.keys.allSatisfy(InspectorCommand.isName)
    else { return Self.reply(400, ["error": "the body is an object of bus names and levels in dB"]) }
    let outcome = await onGameThread { () -> Result<Int, SoundMapEditError> in
      do throws(SoundMapEditError) {
        let byBus = Dictionary(uniqueKeysWithValues: levels.map { (SoundCategory($0.key), $0.value) })
        return .success(try soundMap.setBusLevels(byBus, expecting: version))
      } catch {
        return .failure(error)
      }
    }
    return Self.editReply(outcome)
  }

  /// `POST /map/save` (`?overwrite=1` to save over a file changed on disk): 200, 409 when the
  /// file changed on disk, 403 unless the game allows saving.
  func saveMap(_ request: HTTPRequest) async -> HTTPResponse {
    guard options.allowsSaving else {
      return Self.reply(403, ["error": "the game has not enabled saving the sound map from the inspector"])
    }
    guard let soundMap else { return Self.reply(404, ["error": "no sound map is inspected"]) }
    let overwrite = request.query["overwrite"] == "1"
    let outcome = await onGameThread { () -> SoundMapEditError? in
      do throws(SoundMapEditError) {
        try soundMap.save(overwritingChanges: overwrite)
        return nil
      } catch {
        return error
      }
    }
    switch outcome {
    case nil: return Self.gameThreadTimeout
    case .some(nil): return Self.reply(200, ["saved": soundMap.url?.lastPathComponent ?? ""])
    case .some(.some(.changedOnDisk)):
      return Self.reply(409, EditRefusal(error: SoundMapEditError.changedOnDisk.description))
    case .some(.some(let error)):
      return Self.reply(error == .noFile ? 400 : 500, EditRefusal(error: error.description))
    }
  }

  /// `POST /map/reload`: reads the file again, dropping unsaved edits (what a designer chooses
  /// when the file changed on disk and theirs should go).
  func reloadMap(_ request: HTTPRequest) async -> HTTPResponse {
    guard options.allowsControl else {
      return Self.reply(403, ["error": InspectorError.controlsDisabled.description])
    }
    guard let soundMap else { return Self.reply(404, ["error": "no sound map is inspected"]) }
    let errors = await onGameThread { () -> [String] in
      do throws(SoundMapError) {
        try soundMap.reload()
        return []
      } catch {
        return error.errors
      }
    }
    guard let errors else { return Self.gameThreadTimeout }
    return errors.isEmpty
      ? Self.reply(200, ["reloaded": soundMap.url?.lastPathComponent ?? ""])
      : Self.reply(
        400, EditRefusal(error: "the file does not load; the map in use is unchanged", errors: errors))
  }

  /// The longest entry an edit may send.
  static let maximumEntrySize = 32 * 1_024

  private struct EditRefusal: Encodable {
    var error: String
    var errors: [String]? = nil
    var version: Int? = nil
  }

  private static var gameThreadTimeout: HTTPResponse {
    reply(
      503, ["error": "the game did not read its mailbox within \(Int(mapTimeout)) s; nothing was changed"])
  }

  private static func reply(_ status: Int, _ body: some Encodable) -> HTTPResponse {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return HTTPResponse(
      statusCode: HTTPStatusCode(status, phrase: status == 200 ? "OK" : "Refused"),
      headers: [.contentType: "application/json", .init("Cache-Control"): "no-store"],
      body: (try? encoder.encode(body)) ?? Data("{}".utf8))
  }

  /// Runs `body` on the game thread at the mailbox's next drain; nil if that does not come within
  /// ``mapTimeout`` seconds (then `body` never runs).
  func onGameThread<T: Sendable>(_ body: @escaping @MainActor @Sendable () -> T) async -> T? {
    // Whoever comes first, the drain or the timeout, takes the continuation; the other finds it gone.
    let waiting = Locked<CheckedContinuation<T?, Never>?>(nil)
    return await withCheckedContinuation { continuation in
      waiting.withLock { $0 = continuation }
      engine.session.mailbox.post {
        guard let continuation = waiting.withLock({ $0.take() }) else { return }
        continuation.resume(returning: body())
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + Self.mapTimeout) {
        waiting.withLock { $0.take() }?.resume(returning: nil)
      }
    }
  }

  /// The entries of `listing`'s version: listed once, then kept until the map's version moves.
  private func listedEntries(_ listing: SoundMapListing) -> [String: String] {
    if let kept = listingCache.withLock({ $0 }), kept.version == listing.version { return kept.entries }
    let entries = listing.entries()
    listingCache.withLock { $0 = (listing.version, entries) }
    return entries
  }

  /// The sound files below `folder` a map may name (relative paths, sorted; at most 2,000).
  static func soundFiles(in folder: URL) -> [String] {
    let extensions: Set<String> = ["wav", "ogg", "opus", "flac", "mp3"]
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
      return []
    }
    var found: [String] = []
    let base = folder.standardizedFileURL.path + "/"
    for case let url as URL in walker where extensions.contains(url.pathExtension.lowercased()) {
      let path = url.standardizedFileURL.path
      if path.hasPrefix(base) { found.append(String(path.dropFirst(base.count))) }
      if found.count >= 2_000 { break }
    }
    return found.sorted()
  }
}
