import FoleyCore
package import Foundation

/// The bytes a `playSound(data:)` action plays, and the sound they resolved to the first time,
/// so running the same action value again neither hashes nor compares the bytes.
package final class SoundDataReference: Sendable {
  package let data: Data
  package let name: String?
  private let resolved = Locked<(library: ObjectIdentifier, sound: Sound)?>(nil)

  package init(data: Data, name: String?) {
    self.data = data
    self.name = name
  }

  /// The name for logs and errors.
  package var label: String { name ?? "sound data (\(data.count) bytes)" }

  /// The sound these bytes became in `library`, if they have been resolved there.
  package func sound(in library: SoundLibrary) -> Sound? {
    resolved.withLock { entry in
      guard let entry, entry.library == ObjectIdentifier(library) else { return nil }
      return entry.sound
    }
  }

  func remember(_ sound: Sound, in library: SoundLibrary) {
    resolved.withLock { $0 = (ObjectIdentifier(library), sound) }
  }
}
