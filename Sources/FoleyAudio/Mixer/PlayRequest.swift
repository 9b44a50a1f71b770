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

  /// The object behind the source, for telling a batch's repeated sources apart without
  /// touching a reference count (nil for a name).
  var object: ObjectIdentifier? {
    switch self {
    case .sound(let sound): ObjectIdentifier(sound)
    case .data(let reference): ObjectIdentifier(reference)
    case .named: nil
    }
  }
}

/// One play waiting for the audio queue: its voice, its loop count, and where its source is in
/// its list's ``PlayList/sources``.
///
/// A plain value: the request owns one retain of its voice, taken when the play is listed
/// (``PlayList/append(_:voice:loops:)``) and given back once by the queue when it has served the
/// list (`MixerCore.servePlayRequests`), so lists of requests are moved and merged without
/// counting references.
package struct PlayRequest: Sendable {
  package let retainedVoice: Unmanaged<Voice>
  package let loops: Int
  package let sourceIndex: Int

  package var voice: Voice { retainedVoice.takeUnretainedValue() }
}

/// Plays and their sources, each source kept once for a run of plays of it: a frame whose nodes
/// all trigger one sound retains it once, not once a play (a count the game thread raises and the
/// audio queue lowers moves its cache line between cores every time).
package struct PlayList: Sendable {
  package fileprivate(set) var requests: [PlayRequest] = []
  package fileprivate(set) var sources: [SoundSource] = []
  /// The object of ``sources``' last entry, so a play of it adds none.
  fileprivate var lastSource: ObjectIdentifier?

  package init() {}

  package var isEmpty: Bool { requests.isEmpty }

  /// Adds a play of `source` on `voice`.
  package mutating func append(_ source: SoundSource, voice: Voice, loops: Int) {
    let object = source.object
    if object == nil || object != lastSource || sources.isEmpty {
      sources.append(source)
      lastSource = object
    }
    requests.append(
      PlayRequest(retainedVoice: .passRetained(voice), loops: loops, sourceIndex: sources.count - 1))
  }

  /// Adds `other`'s plays after these and leaves it empty. When these are none the two trade
  /// storage, so a producer handing over a batch each frame copies and allocates nothing.
  package mutating func append(contentsOf other: inout PlayList) {
    guard !other.isEmpty else { return }
    if isEmpty {
      sources.removeAll(keepingCapacity: true)
      swap(&self, &other)
      return
    }
    let offset = sources.count
    sources.append(contentsOf: other.sources)
    for request in other.requests {
      requests.append(
        PlayRequest(
          retainedVoice: request.retainedVoice, loops: request.loops,
          sourceIndex: request.sourceIndex + offset)
      )
    }
    lastSource = other.lastSource
    other.requests.removeAll(keepingCapacity: true)
    other.sources.removeAll(keepingCapacity: true)
    other.lastSource = nil
  }
}

/// The plays one producer gathers without a lock, to hand to the core at once
/// (``MixerCore/flushRequests(_:)``): a scene's link fills one during its update on the game
/// thread, so a trigger takes no lock and the frame's plays take it once. Its voices come from a
/// ring of its own, as the core's shared ones do.
package struct PlayBatch: Sendable {
  package fileprivate(set) var plays = PlayList()
  /// The voices its plays were given, for reuse once they are done with.
  package var voices = VoiceRecycler()

  package init() {}

  /// Adds a play of `source` on `voice`.
  package mutating func append(_ source: SoundSource, voice: Voice, loops: Int) {
    plays.append(source, voice: voice, loops: loops)
  }
}

/// Plays asked for since the queue last took them; one queue hop serves a whole frame's worth.
package struct PendingRequests: Sendable {
  package fileprivate(set) var plays = PlayList()
  /// Whether a hop will serve ``plays`` before anything queued after now: one is signalled and
  /// has not taken the list yet.
  private var isScheduled = false
  /// Which of the core's two hop signals the next hop raises: the one that is not running.
  /// A signal raised while its own hop runs would be queued again only when that run ends,
  /// behind whatever was queued meanwhile; each hop switches to the other as it takes the list,
  /// and the other's last run ended before this one began (the queue is serial).
  private var nextSignal = 0
  /// The voices plays were given, for reuse once they are done with.
  package var voices = VoiceRecycler()

  /// Placement moves waiting for the queue, in the order they were made; the frames the newest
  /// glide over; and the voices to release once the queue is past the moves sent before them.
  /// They ride the plays' hop: a frame's moves and plays wake the queue once, and a moving field
  /// of voices allocates nothing to send its moves.
  package private(set) var moves: [PlacementMove] = []
  private(set) var moveFrames = 1
  package private(set) var releases: [Unmanaged<Voice>] = []

  /// A list the queue finished with, emptied, for the next plays to go into (so a frame's plays
  /// do not allocate a list every time); the same for sources, moves and releases.
  private var spare: [PlayRequest] = []
  private var spareSources: [SoundSource] = []
  private var spareMoves: [PlacementMove] = []
  private var spareReleases: [Unmanaged<Voice>] = []

  package init() {}

  /// Queues a play of `source` on `voice`.
  package mutating func append(_ source: SoundSource, voice: Voice, loops: Int) {
    plays.append(source, voice: voice, loops: loops)
  }

  /// Queues the plays `batch` gathered, leaving it empty.
  package mutating func add(_ batch: inout PlayBatch) {
    plays.append(contentsOf: &batch.plays)
  }

  /// Whether there is anything for a hop to do.
  package var hasWork: Bool { !plays.isEmpty || !moves.isEmpty || !releases.isEmpty }

  /// Adds `added` moves to glide over `frames` frames, then `released` voices to release, and
  /// leaves both lists empty (with storage: the lists trade storage when none are waiting).
  /// Moves of several updates that wait for one hop (the queue ran late) glide over all those
  /// updates' frames: the newest update's alone would make the whole way since the last hop in
  /// one frame's time, a step a listener hears (the queue caps the glide, see
  /// `MixerCore.applyPlacements`).
  package mutating func add(
    moves added: inout [PlacementMove], releasing released: inout [Unmanaged<Voice>], overFrames frames: Int
  ) {
    if !added.isEmpty {
      moveFrames = moves.isEmpty ? frames : moveFrames + frames
      Self.move(&added, into: &moves)
    }
    Self.move(&released, into: &releases)
  }

  /// `items` appended to `waiting`, `items` left empty.
  private static func move<Element>(_ items: inout [Element], into waiting: inout [Element]) {
    guard !items.isEmpty else { return }
    if waiting.isEmpty {
      swap(&items, &waiting)
    } else {
      waiting.append(contentsOf: items)
      items.removeAll(keepingCapacity: true)
    }
  }

  /// What `waiting` held, its place taken by `spare`'s storage (emptied by `giveBack`).
  private static func take<Element>(_ waiting: inout [Element], spare: inout [Element]) -> [Element] {
    var taken = spare
    swap(&taken, &waiting)
    spare = []
    return taken
  }

  /// `storage` emptied and kept as the spare when it holds more than the spare does.
  private static func giveBack<Element>(_ storage: inout [Element], to spare: inout [Element]) {
    storage.removeAll(keepingCapacity: true)
    if storage.capacity > spare.capacity { swap(&storage, &spare) }
  }

  /// While true, no hop is raised but a forced one (``scheduleHop(evenIfHeld:)``): what is asked
  /// for waits here. An offline render holds its game's update, so that what the queue serves
  /// in a step, and in what order, does not depend on when a hop ran (see
  /// `AudioEngine.holdingRequests`).
  package var isHeld = false

  /// Marks a hop scheduled and returns the signal to raise for it (0 or 1), or nil when a hop
  /// is already on its way (it serves what was just added) or the requests are held.
  package mutating func scheduleHop(evenIfHeld: Bool = false) -> Int? {
    guard !isScheduled, evenIfHeld || !isHeld else { return nil }
    isScheduled = true
    return nextSignal
  }

  /// The waiting plays and their sources, for the hop that is running; the next hop will raise
  /// the other signal.
  package mutating func take() -> (plays: [PlayRequest], sources: [SoundSource]) {
    isScheduled = false
    nextSignal ^= 1
    plays.lastSource = nil
    return (Self.take(&plays.requests, spare: &spare), Self.take(&plays.sources, spare: &spareSources))
  }

  /// The waiting moves and releases, for the hop that is running (after ``take()``).
  package mutating func takePlacements() -> (
    moves: [PlacementMove], releases: [Unmanaged<Voice>], frames: Int
  ) {
    (Self.take(&moves, spare: &spareMoves), Self.take(&releases, spare: &spareReleases), moveFrames)
  }

  /// Hands back the lists ``take()`` returned, once their plays are served.
  package mutating func giveBack(_ storage: inout [PlayRequest], sources: inout [SoundSource]) {
    Self.giveBack(&storage, to: &spare)
    Self.giveBack(&sources, to: &spareSources)
  }

  /// Hands back the lists ``takePlacements()`` returned, once they are done with.
  package mutating func giveBack(moves: inout [PlacementMove], releases: inout [Unmanaged<Voice>]) {
    Self.giveBack(&moves, to: &spareMoves)
    Self.giveBack(&releases, to: &spareReleases)
  }
}

/// The voices the engine made for plays, oldest first, so that a finished one nobody else holds
/// is made a new play's voice instead of allocating one (a trigger then allocates nothing).
///
/// Each take looks at the oldest: if it has finished and is referenced only from here it is
/// reused; either way it goes to the back, as the newest. A voice the game, a node, the sound map
/// or the queue still holds is left alone, and comes round again later. At most
/// ``maximumCount`` are kept (about 2 MB); voices made beyond that are not kept. The core's ring
/// is kept under the lock of ``PendingRequests``, which every play without a scene takes anyway;
/// a scene's is its ``PlayBatch``'s, touched only on the game thread.
///
/// The ring holds its voices unmanaged (one retain each, taken in ``keep(_:)`` and given back in
/// ``removeAll()``), so that looking at the oldest and moving it to the back touch no reference
/// count: the audio queue wrote the oldest voice last, and an atomic increment of its count
/// would pull its cache line over from the queue's core on every trigger, free or not.
package struct VoiceRecycler: Sendable {
  static let maximumCount = 8_192
  private var ring: [Unmanaged<Voice>] = []
  private var head = 0
  package private(set) var count = 0
  /// False once it has let its voices go: nothing is kept (a kept voice holds the engine's core).
  var keepsVoices = true

  package init() {}

  /// The oldest voice made the new pending voice `id`, if it has finished and nobody else holds
  /// it; nil otherwise (the caller makes one and ``keep(_:)``s it). One look a take (each costs a
  /// cache miss: the queue touched the voice last), which still turns a full ring over, past
  /// voices that stay held.
  package mutating func reuse(
    id: UInt64, volume: Double, pan: Double, placement: SpatialPlacement?
  ) -> Voice? {
    guard count > 0 else { return nil }
    let oldest = ring[head]
    // Moved to the back. In a full ring the back is where the head was, so only a ring with
    // room writes it there.
    head = head + 1 == ring.count ? 0 : head + 1
    if count < ring.count {
      ring[(head + count - 1) % ring.count] = oldest
    }
    guard oldest._withUnsafeGuaranteedRef({ $0.isFinished }) else { return nil }
    // The ring's own reference, taken for the check and handed back: no count changes.
    var voice = oldest.takeRetainedValue()
    let free = isKnownUniquelyReferenced(&voice)
    _ = Unmanaged.passRetained(voice)
    guard free else { return nil }
    voice.recycle(id: id, volume: volume, pan: pan, placement: placement)
    return voice
  }

  /// Keeps a newly made voice, to be reused once it is done with; beyond ``maximumCount`` it is
  /// not kept (letting the oldest go instead would free it here, on the game thread, in a burst).
  package mutating func keep(_ voice: Voice) {
    guard keepsVoices, count < Self.maximumCount else { return }
    if count == ring.count {
      // Full: unroll into a ring twice the size (while the engine warms up; capped above).
      let grown = max(64, ring.count * 2)
      var unrolled: [Unmanaged<Voice>] = []
      unrolled.reserveCapacity(grown)
      for index in 0..<count { unrolled.append(ring[(head + index) % ring.count]) }
      unrolled.append(contentsOf: repeatElement(Unmanaged.passUnretained(voice), count: grown - count))
      ring = unrolled
      head = 0
    }
    ring[(head + count) % ring.count] = Unmanaged.passRetained(voice)
    count += 1
  }

  /// Lets every kept voice go and keeps none from now on (the engine shut down, or the scene
  /// whose batch held the ring went).
  package mutating func removeAll() {
    for index in 0..<count { ring[(head + index) % ring.count].release() }
    ring = []
    head = 0
    count = 0
    keepsVoices = false
  }
}
