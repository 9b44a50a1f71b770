import Dispatch
package import FoleyAudio
import FoleyCore
import Foundation

/// Pitched copies of a sound map's sounds, rendered off the game thread in quarter-semitone steps
/// (25 cents: finer than most ears tell apart between two takes of a footstep) and kept within a
/// memory budget, least recently used first out.
///
/// Invariant behind `@unchecked Sendable`: the table is behind its lock; rendering happens on
/// `queue`.
package final class PitchVariants: @unchecked Sendable {
  /// Steps per semitone.
  static let stepsPerSemitone = 4.0

  private struct Key: Hashable {
    package let sound: ObjectIdentifier
    package let steps: Int
  }

  private struct Entry {
    package let sound: Sound
    package var lastUse: UInt64
  }

  private struct Table {
    package var entries: [Key: Entry] = [:]
    package var pending: Set<Key> = []
    package var bytes = 0
    package var clock: UInt64 = 0
  }

  package let budget: Int
  private let library: SoundLibrary
  private let queue = DispatchQueue(label: "foley.soundmap.pitch", qos: .utility)
  private let table = Locked(Table())

  package init(library: SoundLibrary, budget: Int) {
    self.library = library
    self.budget = budget
  }

  /// Bytes of rendered variants kept.
  package var bytes: Int { table.withLock { $0.bytes } }

  /// `steps` quarter-semitones from `sound` (nil: the step that is ready and nearest is not this
  /// one yet; it is being rendered, and `nearest` says what to play meanwhile).
  package func variant(of sound: Sound, steps: Int) -> (exact: Sound?, nearest: Sound) {
    guard steps != 0 else { return (sound, sound) }
    let key = Key(sound: ObjectIdentifier(sound), steps: steps)
    let found = table.withLock { table -> (Sound?, Sound?) in
      table.clock += 1
      if var entry = table.entries[key] {
        entry.lastUse = table.clock
        table.entries[key] = entry
        return (entry.sound, nil)
      }
      // Meanwhile: the closest step already made (same direction), else the sound itself.
      let nearest = table.entries.filter { $0.key.sound == key.sound && ($0.key.steps > 0) == (steps > 0) }
        .min { abs($0.key.steps - steps) < abs($1.key.steps - steps) }?.value.sound
      return (nil, nearest)
    }
    if let exact = found.0 { return (exact, exact) }
    render(sound, steps: [steps])
    return (nil, found.1 ?? sound)
  }

  /// Renders the variants of `sound` for `steps` that are not made yet, in the background.
  package func render(_ sound: Sound, steps: [Int]) {
    // A variant larger than the whole budget is never made (the nearest smaller step, or the
    // sound itself, plays instead): a 60 s sound two octaves down is 240 s of samples.
    let keys = steps.filter { $0 != 0 && Self.estimatedBytes(of: sound, steps: $0) <= budget }
      .map { Key(sound: ObjectIdentifier(sound), steps: $0) }
    let wanted = table.withLock { table in
      keys.filter { table.entries[$0] == nil && table.pending.insert($0).inserted }
    }
    guard !wanted.isEmpty else { return }
    queue.async { [self] in
      for key in wanted {
        let made = library.pitched(sound, semitones: Double(key.steps) / Self.stepsPerSemitone)
        table.withLock { table in
          table.pending.remove(key)
          guard let made else { return }
          table.clock += 1
          table.entries[key] = Entry(sound: made, lastUse: table.clock)
          table.bytes += made.buffer.byteCount
          // Over budget: the least recently used go (never the one just made).
          while table.bytes > budget, table.entries.count > 1,
            let oldest = table.entries.filter({ $0.key != key }).min(by: {
              $0.value.lastUse < $1.value.lastUse
            })
          {
            table.bytes -= oldest.value.sound.buffer.byteCount
            table.entries[oldest.key] = nil
          }
        }
      }
    }
  }

  /// The bytes a variant `steps` quarter-semitones from `sound` takes: lower is longer.
  static func estimatedBytes(of sound: Sound, steps: Int) -> Int {
    let factor = pow(2, -Double(steps) / stepsPerSemitone / 12)
    return Int(min(Double(Int.max / 2), Double(sound.buffer.byteCount) * factor))
  }

  /// Waits until every variant asked for so far is rendered.
  package func waitUntilRendered() {
    queue.sync {}
  }

  /// Forgets the variants of sounds no longer in `keep`.
  func retain(only keep: [Sound]) {
    let kept = Set(keep.map(ObjectIdentifier.init))
    table.withLock { table in
      for key in table.entries.keys where !kept.contains(key.sound) {
        table.bytes -= table.entries[key]!.sound.buffer.byteCount
        table.entries[key] = nil
      }
    }
  }
}
