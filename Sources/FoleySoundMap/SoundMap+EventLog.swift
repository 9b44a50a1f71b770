package import FoleyScene
import Foundation

/// One post to a sound map and what came of it, for an inspector's event log.
///
/// ```swift
/// for posted in map.recentEvents where posted.outcome == .unknown {
///   print("nothing answers", posted.name)
/// }
/// ```
public struct PostedEvent: Sendable, Hashable, Codable {
  /// What the map did with a post.
  public enum Outcome: String, Sendable, Hashable, Codable {
    /// It started the sounds listed (delayed ones included, at their delay).
    case played
    /// The map has no such event.
    case unknown
    /// Dropped by the event's `cooldown`.
    case cooledDown
    /// Dropped at its `maxInstances` (`steal: "none"`).
    case limited
    /// A `stop` event: it stopped its target's voices.
    case stopped
    /// A music event (`music.state`, `music.intensity`).
    case music
  }

  /// The event's name.
  public var name: String
  /// When it was posted: the scene's time, or seconds of uptime without a scene.
  public var time: Double
  public var outcome: Outcome
  /// What it started.
  public var sounds: [SoundMap.PlayedSound]
  /// Where the node that posted it was, `[x, y]` in its parent's space; nil for a post from no
  /// node.
  public var position: [Double]?

  public init(
    name: String, time: Double, outcome: Outcome, sounds: [SoundMap.PlayedSound], position: [Double]? = nil
  ) {
    self.name = name
    self.time = time
    self.outcome = outcome
    self.sounds = sounds
    self.position = position
  }
}

/// What one post started: most posts start one sound, held in place, so a post allocates no list
/// (and the log's oldest entry frees none).
package struct PlayedSounds {
  package var first: SoundMap.PlayedSound?
  package var more: [SoundMap.PlayedSound] = []

  package static let none = PlayedSounds()

  package init(_ first: SoundMap.PlayedSound? = nil) { self.first = first }

  package mutating func append(_ played: SoundMap.PlayedSound) {
    if first == nil { first = played } else { more.append(played) }
  }

  package var all: [SoundMap.PlayedSound] {
    guard let first else { return [] }
    return [first] + more
  }
}

/// The latest posts, oldest first, in a fixed ring (so a busy game's log costs no more than its
/// capacity). Kept as posted and made into ``PostedEvent``s only when read.
package struct EventLog {
  package static let capacity = 64
  private struct Entry {
    var name: String
    var time: Double
    var outcome: PostedEvent.Outcome
    var sounds: PlayedSounds
    var position: Point?
  }

  private var entries: [Entry] = []
  private var next = 0

  package mutating func append(
    name: String, time: Double, outcome: PostedEvent.Outcome, sounds: consuming PlayedSounds,
    position: Point? = nil
  ) {
    let entry = Entry(name: name, time: time, outcome: outcome, sounds: sounds, position: position)
    if entries.count < Self.capacity {
      entries.append(entry)
    } else {
      entries[next] = entry
    }
    next = (next + 1) % Self.capacity
  }

  /// What the latest post started (none before the first).
  var latest: PlayedSounds {
    entries.isEmpty ? .none : entries[(next + Self.capacity - 1) % Self.capacity].sounds
  }

  package var ordered: [PostedEvent] {
    let inOrder = entries.count < Self.capacity ? entries : Array(entries[next...] + entries[..<next])
    return inOrder.map {
      PostedEvent(
        name: $0.name, time: $0.time, outcome: $0.outcome, sounds: $0.sounds.all,
        position: $0.position.map { [$0.x, $0.y] })
    }
  }
}

extension SoundMap {
  /// The last 64 posts, oldest first, each with what it played (or why it played nothing).
  public var recentEvents: [PostedEvent] { log.ordered }
}
