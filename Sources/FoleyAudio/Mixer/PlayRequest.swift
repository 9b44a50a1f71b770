import Foundation

/// What a play asks for: a decoded sound, bytes to decode (once), or a file in the asset root.
/// The one source type: actions, `AudioEngine.play` and the core all speak it.
package enum SoundSource: Sendable {
  case sound(Sound)
  case data(SoundDataReference)
  case named(String)

  /// Sounds from bytes and files use default settings, so they are effects.
  package var category: SoundCategory {
    if case .sound(let sound) = self { return sound.settings.category }
    return .effects
  }
}

package struct PlayRequest: Sendable {
  package let source: SoundSource
  package let voice: Voice
  package let loops: Int
}

/// Plays asked for since the queue last took them; one queue hop serves a whole frame's worth.
package struct PendingRequests: Sendable {
  package var list: [PlayRequest] = []
  package var isScheduled = false

  package mutating func take() -> [PlayRequest] {
    defer {
      list.removeAll(keepingCapacity: true)
      isScheduled = false
    }
    return list
  }
}
