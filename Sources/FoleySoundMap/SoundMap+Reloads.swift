import FoleyAudio
public import FoleyCore
import Foundation

/// What one reload of a sound map's file did: the events it added, removed and changed, or every
/// problem that kept the previous map in place.
///
/// A reload is logged (at `info`, or `error` when it fails), kept in ``SoundMap/reloads``, sent to
/// the observers added with ``SoundMap/observeReloads(_:)`` at the game thread's next mailbox
/// drain, and shown by the browser inspector.
///
/// ```swift
/// map.observeReloads { reload in
///   if reload.outcome == .failed { print(reload.errors.joined(separator: "\n")) }
/// }
/// ```
public struct SoundMapReload: Sendable, Hashable, Codable, CustomStringConvertible {
  public enum Outcome: String, Sendable, Hashable, Codable {
    /// The new map is in use.
    case loaded
    /// The file (or a file it names) was wrong: the previous map plays on.
    case failed
  }

  /// Where a change came from.
  public enum Origin: String, Sendable, Hashable, Codable {
    /// The map's file was read again.
    case file
    /// An edit made while the game ran (``SoundMap/replaceEvent(_:with:expecting:)``).
    case edit
  }

  /// The map's file name.
  public var file: String
  public var origin = Origin.file
  /// When it was reloaded, in seconds since 1970.
  public var time: Double
  public var outcome: Outcome
  /// Events the new map has and the previous did not, by name.
  public var added: [String] = []
  /// Events the previous map had and the new one does not.
  public var removed: [String] = []
  /// Events whose entry changed, or one of whose files changed on disk.
  public var changed: [String] = []
  /// Every problem found, each with its JSON path (and a suggestion where one is close). A map
  /// that loaded may list here the buses of its `mix` it could not set up.
  public var errors: [String] = []

  public var description: String {
    guard outcome == .loaded else {
      return "\(file) not reloaded (the previous map plays on): " + errors.joined(separator: "; ")
    }
    let parts = [("added", added), ("removed", removed), ("changed", changed)]
      .filter { !$0.1.isEmpty }
      .map { "\($0.0) \($0.1.joined(separator: ", "))" }
    return "\(file) \(origin == .edit ? "edited" : "reloaded"): "
      + (parts.isEmpty ? "no event changed" : parts.joined(separator: "; "))
      + (errors.isEmpty ? "" : "; " + errors.joined(separator: "; "))
  }
}

extension SoundMap {
  /// How many reloads ``reloads`` keeps.
  public static let keptReloads = 16

  /// Calls `body` on the game thread after every reload of the map's file, good or bad (at the
  /// mailbox's next drain), until the observation is cancelled.
  @discardableResult
  public func observeReloads(_ body: @escaping @MainActor (SoundMapReload) -> Void) -> Observation {
    let token = reloadObservers.add(body)
    return Observation { [weak self] in self?.reloadObservers.remove(token) }
  }

  /// Puts a map that loaded in use in place of the one playing, with `text` as its text, and
  /// records what changed: the one way a reload of the file and an edit take effect.
  func adopt(
    _ loaded: (definition: SoundMapDefinition, sounds: [String: Sound], signatures: [String: FileSignature]),
    text: SoundMapDocument, origin: SoundMapReload.Origin
  ) {
    var entry = change(.loaded, origin: origin)
    (entry.added, entry.removed, entry.changed) = differences(
      to: loaded.definition, signatures: loaded.signatures)
    lastErrors = []
    apply(loaded.definition, sounds: loaded.sounds, signatures: loaded.signatures)
    document = text
    version += 1
    hasUnsavedEdits = origin == .edit
    entry.errors = lastErrors  // a bus of the mix that could not be set up
    record(entry)
  }

  /// A change to the map, now.
  func change(
    _ outcome: SoundMapReload.Outcome, origin: SoundMapReload.Origin = .file, errors: [String] = []
  ) -> SoundMapReload {
    SoundMapReload(
      file: url?.lastPathComponent ?? "sound map", origin: origin, time: Date().timeIntervalSince1970,
      outcome: outcome, errors: errors)
  }

  /// Keeps, logs and posts what a reload did.
  func record(_ reload: SoundMapReload) {
    reloads.append(reload)
    if reloads.count > Self.keptReloads { reloads.removeFirst(reloads.count - Self.keptReloads) }
    switch reload.outcome {
    case .loaded: engine.core.logger.info("sound map \(reload)")
    case .failed: engine.core.logger.error("sound map \(reload)")
    }
    engine.session.mailbox.post { [weak self] in self?.reloadObservers.send(reload) }
  }

  /// The differences between the map in use and `loaded`, which is about to replace it.
  func differences(
    to loaded: SoundMapDefinition, signatures: [String: FileSignature]
  ) -> (added: [String], removed: [String], changed: [String]) {
    let old = Set(definition.events.keys)
    let new = Set(loaded.events.keys)
    let changedFiles = Set(signatures.keys.filter { self.signatures[$0] != signatures[$0] })
    let changed = new.intersection(old).filter { name in
      definition.sources[name] != loaded.sources[name]
        || !changedFiles.isDisjoint(with: Self.files(of: loaded.events[name]!))
    }
    return (new.subtracting(old).sorted(), old.subtracting(new).sorted(), changed.sorted())
  }

  /// The files an event's entry may play.
  static func files(of entry: EventEntry) -> Set<String> {
    guard case .play(let item) = entry.effect else { return [] }
    var names: Set<String> = []
    item.forEachItem { if case .file(let name) = $0.kind { names.insert(name) } }
    return names
  }
}
