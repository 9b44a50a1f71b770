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
  /// The voices plays were given, for reuse once they are done with.
  package var voices = VoiceRecycler()

  /// A list the queue finished with, emptied, for the next plays to go into (so a frame's plays
  /// do not allocate a list every time).
  private var spare: [PlayRequest] = []

  package mutating func take() -> [PlayRequest] {
    var taken = spare
    swap(&taken, &list)
    spare = []
    isScheduled = false
    return taken
  }

  /// Hands back a list ``take()`` returned, once its plays are served.
  package mutating func giveBack(_ storage: inout [PlayRequest]) {
    storage.removeAll(keepingCapacity: true)
    if storage.capacity > spare.capacity { swap(&storage, &spare) }
  }
}

/// The voices the engine made for plays, oldest first, so that a finished one nobody else holds
/// is made a new play's voice instead of allocating one (a trigger then allocates nothing).
///
/// Each take looks at the oldest: if it has finished and is referenced only from here it is
/// reused; either way it goes to the back, as the newest. A voice the game, a node, the sound map
/// or the queue still holds is left alone, and comes round again later. At most
/// ``maximumCount`` are kept (about 2 MB); voices made beyond that are not kept. Kept under the
/// lock of ``PendingRequests``, which every play takes anyway.
package struct VoiceRecycler: Sendable {
  package static let maximumCount = 8_192
  private var ring: [Voice?] = []
  private var head = 0
  private(set) var count = 0
  /// False once the engine has shut down: nothing is kept (a kept voice holds the engine's core).
  var keepsVoices = true

  /// The oldest voice made the new pending voice `id`, if it has finished and nobody else holds
  /// it; nil otherwise (the caller makes one and ``keep(_:)``s it). One look a take (each costs a
  /// cache miss: the queue touched the voice last), which still turns a full ring over, past
  /// voices that stay held.
  package mutating func reuse(
    id: UInt64, volume: Double, pan: Double, placement: SpatialPlacement?
  ) -> Voice? {
    guard count > 0 else { return nil }
    let free = ring[head]!.isFinished && isKnownUniquelyReferenced(&ring[head])
    let voice = ring[head].take()!
    head = (head + 1) % ring.count
    count -= 1
    append(voice)
    guard free else { return nil }
    voice.recycle(id: id, volume: volume, pan: pan, placement: placement)
    return voice
  }

  /// Keeps a newly made voice, to be reused once it is done with; beyond ``maximumCount`` it is
  /// not kept (letting the oldest go instead would free it here, on the game thread, in a burst).
  package mutating func keep(_ voice: Voice) {
    guard keepsVoices, count < Self.maximumCount else { return }
    append(voice)
  }

  /// Lets every kept voice go and keeps none from now on (the engine shut down).
  package mutating func removeAll() {
    ring = []
    head = 0
    count = 0
    keepsVoices = false
  }

  private mutating func append(_ voice: Voice) {
    if count == ring.count {
      // Full: unroll into a ring twice the size (while the engine warms up; capped above).
      var grown = [Voice?](repeating: nil, count: max(64, ring.count * 2))
      for index in 0..<count { grown[index] = ring[(head + index) % ring.count].take() }
      ring = grown
      head = 0
    }
    ring[(head + count) % ring.count] = voice
    count += 1
  }
}
