public import FoleyAudio
import FoleyCore
public import Foundation

/// Why an edit or a save of a sound map was refused. Nothing was changed, and nothing written.
public enum SoundMapEditError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The map changed since the version the edit names (another edit, or a reload): `current` is
  /// its version now. Read the entry again and edit that.
  case conflict(current: Int)
  /// The file changed on disk since it was loaded or saved; saving would lose that change.
  /// ``SoundMap/reload()`` takes the file's version (and drops the edits), or
  /// ``SoundMap/save(overwritingChanges:)`` with `true` keeps the edits.
  case changedOnDisk
  /// The map the edit would make is one the parser refuses: every error, with its JSON path.
  case invalid([String])
  /// The map was made from bytes, not a file: there is nothing to save it to.
  case noFile
  /// The file could not be written (the reason); the file on disk is as it was.
  case cannotWrite(String)

  public var description: String {
    switch self {
    case .conflict(let current): "the map changed since that version (it is at version \(current) now)"
    case .changedOnDisk:
      "the map's file changed on disk since it was loaded; saving would overwrite that change"
    case .invalid(let errors): errors.joined(separator: "\n")
    case .noFile: "the map was not loaded from a file"
    case .cannotWrite(let why): "cannot write the map: \(why)"
    }
  }
}

/// A map's text at one version, whose events' entries can be listed on any thread.
package struct SoundMapListing: Sendable {
  package let version: Int
  let document: SoundMapDocument

  /// Each event's entry, as the map's text has it: one pass over the text, however many events.
  package func entries() -> [String: String] {
    guard let events = document.members(at: ["events"])?.members else { return [:] }
    return events.mapValues { String(decoding: document.text[$0.value], as: UTF8.self) }
  }
}

/// Editing a running map, one event entry at a time, and saving it back to its file: what a
/// sound designer does from the browser inspector.
///
/// ```swift
/// let version = map.version
/// try map.replaceEvent("ball.hit", with: Data(#"{ "play": "thud.wav", "volumeDb": -12 }"#.utf8), expecting: version)
/// try map.save()  // sounds.json rewritten (only that entry changed), the old one kept as sounds.json.bak
/// ```
extension SoundMap {
  /// The entry of event `name` as the map's text has it (the designer's own bytes); nil if the map
  /// has no such event.
  public func entryText(_ name: String) -> String? {
    guard let span = document.members(at: ["events"])?.members[name] else { return nil }
    return String(decoding: document.text[span.value], as: UTF8.self)
  }

  /// The map's text at this ``version``, to list every event's entry away from the game thread
  /// (the inspector's page): taking it copies nothing, and ``SoundMapListing/entries()`` reads
  /// the text once.
  package var listing: SoundMapListing { SoundMapListing(version: version, document: document) }

  /// The map's whole JSON text, as loaded and edited.
  public var text: String { String(decoding: document.text, as: UTF8.self) }

  /// Puts `entry` (a JSON object, as a map's `events` holds) in place of event `name`'s entry, or
  /// adds the event; the next post plays the new entry. The map's text changes only there, written
  /// with its keys in a fixed order. Returns the map's new ``version``.
  /// - Parameters:
  ///   - name: the event, as the game posts it.
  ///   - entry: the event's entry, a JSON object.
  ///   - version: the ``version`` the edit was made against.
  /// - Throws: ``SoundMapEditError/conflict(current:)`` if the map changed since `version`,
  ///   ``SoundMapEditError/invalid(_:)`` with the parser's errors if the new map would be refused
  ///   (or `entry` is not a JSON object); the map is unchanged either way.
  @discardableResult
  public func replaceEvent(
    _ name: String, with entry: Data, expecting version: Int
  ) throws(SoundMapEditError) -> Int {
    guard version == self.version else { throw .conflict(current: self.version) }
    guard !name.isEmpty else { throw .invalid(["an event needs a name"]) }
    guard let object = try? JSONSerialization.jsonObject(with: entry) as? [String: Any] else {
      throw .invalid(["events[\(SoundMapDocument.quoted(name))]: the entry is not a JSON object"])
    }
    guard let edited = document.replacing(event: name, with: object) else {
      throw .invalid(["the map's text has no \"events\" object to edit"])
    }
    return try use(edited)
  }

  /// Writes each bus's level, in dB, into the map's `mix` section (`mix.buses[NAME].volumeDb`,
  /// made where missing) as an edit: in use at once, in the file at the next ``save(overwritingChanges:)``.
  /// Returns the map's new ``version``.
  /// - Throws: as ``replaceEvent(_:with:expecting:)`` does; the parser's rules hold (the master
  ///   and the reverb return are not the map's to set: ``SoundMapEditError/invalid(_:)``).
  @discardableResult
  public func setBusLevels(
    _ levels: [SoundCategory: Double], expecting version: Int
  ) throws(SoundMapEditError) -> Int {
    guard version == self.version else { throw .conflict(current: self.version) }
    var edited = document
    for (category, decibels) in levels.sorted(by: { $0.key.name < $1.key.name }) {
      let level = decibels.isFinite ? min(max((decibels * 10).rounded() / 10, -100), 12) : -100
      guard let next = edited.setting(["mix", "buses", category.name, "volumeDb"], to: level) else {
        throw .invalid(["mix.buses[\"\(category)\"]: not an object in the map's text"])
      }
      edited = next
    }
    return try use(edited)
  }

  /// Loads `edited` as a reload would and puts it in use, or changes nothing and throws.
  private func use(_ edited: SoundMapDocument) throws(SoundMapEditError) -> Int {
    do throws(SoundMapError) {
      adopt(try load(edited.data), text: edited, origin: .edit)
    } catch {
      throw .invalid(error.errors)
    }
    return version
  }

  /// Writes the map, as edited, back to its file: through a temporary file and an atomic rename,
  /// so the file is always either the old map or the new one. The version it replaces is kept
  /// beside it twice: as `NAME.bak` (the previous one) and as `NAME.bak.N`, numbered up from 1 —
  /// the last ``backupLimit`` of them, and always the one this map first read. Refused if the
  /// file changed on disk since it was loaded or saved (looked at again just before the rename,
  /// so a change written while the save runs is not lost either), unless `overwritingChanges`.
  /// A map file that is a symbolic link stays one: its target gets the new map.
  /// - Throws: ``SoundMapEditError/changedOnDisk``, ``SoundMapEditError/noFile`` or
  ///   ``SoundMapEditError/cannotWrite(_:)``; the file is as it was.
  public func save(overwritingChanges: Bool = false) throws(SoundMapEditError) {
    guard let url else { throw .noFile }
    // Through a link to what it names: the rename replaces the target, never the link.
    let target = url.resolvingSymlinksInPath()
    let onDisk: Data
    do {
      onDisk = try BoundedFile.read(target, limit: SoundMap.maximumMapFileSize, asset: url.lastPathComponent)
    } catch {
      throw .cannotWrite(error.message)
    }
    if onDisk != savedBytes, !overwritingChanges { throw .changedOnDisk }
    let backups = MapBackups(of: url)
    let number = try backups.keep(onDisk)
    if firstBackup == nil { firstBackup = number }
    let data = document.data
    let hook = saveWillRename
    try AtomicFile.write(data, to: target) { () throws(SoundMapEditError) in
      hook?()
      // The last look: the file must still be what this save read, or a change written since
      // would go unseen into the backup's past.
      let now = try? BoundedFile.read(
        target, limit: SoundMap.maximumMapFileSize, asset: url.lastPathComponent)
      if now != onDisk { throw .changedOnDisk }
    }
    backups.prune(limit: backupLimit, keeping: firstBackup)
    savedBytes = data
    mapSignature = FileSignature(of: url)
    hasUnsavedEdits = false
    engine.core.logger.info(
      "sound map \(url.lastPathComponent) saved (the previous one is \(url.lastPathComponent).bak and .bak.\(number))"
    )
  }
}
