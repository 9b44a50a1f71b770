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
}

/// The latest posts, oldest first, in a fixed ring (so a busy game's log costs no more than its
/// capacity).
package struct EventLog {
  package static let capacity = 64
  private var entries: [PostedEvent] = []
  private var next = 0

  package mutating func append(_ event: PostedEvent) {
    if entries.count < Self.capacity {
      entries.append(event)
    } else {
      entries[next] = event
    }
    next = (next + 1) % Self.capacity
  }

  package var ordered: [PostedEvent] {
    entries.count < Self.capacity ? entries : Array(entries[next...] + entries[..<next])
  }
}

extension SoundMap {
  /// The last 64 posts, oldest first, each with what it played (or why it played nothing).
  public var recentEvents: [PostedEvent] { log.ordered }
}
