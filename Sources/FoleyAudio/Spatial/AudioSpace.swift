public import FoleyCore
public import Foundation

/// Sound in space for a game with its own entities: play a sound at a position, move it, place up
/// to four listeners, set walls, doors and rooms as plain values, and call ``update(deltaTime:)``
/// once a frame. No scene graph is involved; positions are `Point`s in the game's own
/// units (y up or down, as long as it is the same everywhere), so a game's vector converts in one
/// line (`Point(x: entity.x, y: entity.y)`, or `Point(entity.simd)` from a `SIMD2<Double>`).
///
/// ```swift
/// let space = engine.space
/// space.spatial.distanceModel = .inverse(reference: 100, rolloff: 1)
/// try space.setListeners([Point(x: 0, y: 0), Point(x: 1_000, y: 0)])    // split screen: two players
/// let engineHum = space.play(hum, at: Point(x: 1_100, y: 0), loops: -1)
/// // Each frame, after the game moved its entities:
/// space.move(engineHum, to: Point(x: 900, y: 40))
/// try space.moveListener(0, to: Point(x: 20, y: 0))
/// space.update(deltaTime: 1.0 / 60)
/// ```
///
/// Each voice is heard from its nearest listener, placed as it would be around a lone listener:
/// the distance model's gain, and a pan from its horizontal offset (``SpatialAudio``). Within
/// ``listenerBlend`` of being as near to a second listener, it is heard from both, weighted by how
/// much nearer it is to one (half each when it is exactly between them), so a voice crossing from
/// one player's side to the other's moves smoothly instead of jumping from one ear to the other.
/// The listener that ``listener(hearing:)`` reports (the inspector's) changes only once the other
/// is nearer by half the blend: a voice hovering between two does not flip. A voice may be
/// pinned to one listener instead (``pin(_:toListener:)``).
///
/// Placements glide per sample on the mixing thread over each update, as a scene's moving nodes
/// do; moves with a ``Tween`` follow its curve on the engine's clock, one point per update. With
/// ``SpatialAudio/speedOfSound`` set, a voice's pitch follows its approach to its listener, from
/// both of their motions. Beyond ``SpatialAudio/maximumDistance`` a voice goes virtual, its clock
/// running, and comes back on its sample when it is nearer.
@MainActor
public final class AudioSpace {
  /// How many listeners a space may have.
  public nonisolated static let maximumListeners = 4

  /// How gain falls with distance, the pan width, the maximum distance and doppler: the same
  /// settings a scene's positional sound takes. A change is heard from the next update.
  @exclusivity(unchecked) public var spatial = SpatialAudio() {
    didSet { placesAll = true }
  }

  /// How much nearer a voice must be to one listener than to another to be heard from it alone,
  /// in the game's units (0…1,000,000; a NaN or infinity is refused and the last value kept).
  /// 0 hears each voice from its nearest listener only.
  @exclusivity(unchecked) public var listenerBlend: Double = 100 {
    didSet {
      listenerBlend = listenerBlend.clamped(
        to: 0...1_000_000, or: oldValue, member: "AudioSpace.listenerBlend")
      placesAll = true
    }
  }

  /// The walls, doors and rooms every voice is heard through (none until the game sets them).
  public var acoustics = Acoustics() {
    didSet {
      guard acoustics != oldValue else { return }
      geometry = acoustics.geometry
      placesAll = true
    }
  }

  /// Where the listeners are, in order (one at the origin until the game sets them).
  public var listeners: [Point] { listenerMotions.map { Point($0.target) } }

  /// The engine, unowned: the space lives in it. Its core, held (read on every move and update),
  /// and the mix's rate and buffer.
  let engine: AudioEngine.Unowned
  let core: MixerCore
  let sampleRate: Int
  let bufferFrames: Int
  // Game-thread state walked for every voice each update: the runtime's exclusivity checks are
  // left off (nothing here is touched twice at once), as on the scene's link.
  @exclusivity(unchecked) var listenerMotions = [Motion(at: .zero)]
  /// The listeners' positions at the last update and at this one.
  @exclusivity(unchecked) var lastListeners: [SIMD2<Double>] = [.zero]
  @exclusivity(unchecked) var listenersNow: [SIMD2<Double>] = [.zero]
  @exclusivity(unchecked) var playListeners: [SIMD2<Double>] = []
  @exclusivity(unchecked) var entries: [Entry] = []
  @exclusivity(unchecked) var indexOfVoice: [ObjectIdentifier: Int] = [:]
  var placesAll = true
  /// The engine's count of finished voices when the entries were last swept.
  var finishedVoicesSeen = -1
  @exclusivity(unchecked) var moves: [PlacementMove] = []
  @exclusivity(unchecked) var releases: [Unmanaged<Voice>] = []
  /// The plays of a `play` call, handed to the queue before it returns.
  @exclusivity(unchecked) var batch = PlayBatch()
  var glides = PlacementGlide()
  @exclusivity(unchecked) var frameLength = 800
  @exclusivity(unchecked) var step = 1.0 / 60
  /// ``clock`` as the last update carried it.
  @exclusivity(unchecked) var carriedClock: UInt64 = 0
  /// The clock doppler last read the voices' distances on, the seconds between it and the one
  /// before, and whether the space had a speed of sound then.
  @exclusivity(unchecked) var placedClock: UInt64 = 0
  @exclusivity(unchecked) var dopplerSpan = 1.0 / 60
  @exclusivity(unchecked) var dopplerOn = false
  /// ``acoustics`` indexed for walking, and the reverb return last set from the first listener's
  /// room (nil: never, or the space has no rooms).
  @exclusivity(unchecked) var geometry: AcousticGeometry?
  var listenerReturn: Double?

  init(engine: AudioEngine) {
    self.engine = AudioEngine.Unowned(engine)
    core = engine.core
    sampleRate = engine.core.format.sampleRate
    bufferFrames = engine.core.format.bufferFrames
  }

  /// One placed voice: held (retained, given back on the queue after the moves that name it),
  /// where it is going, which listener hears it and how it was last placed.
  struct Entry {
    let voice: Unmanaged<Voice>
    var motion: Motion
    var pinned: Int?
    var heardBy = 0
    var placement = SpatialPlacement(gain: -1, pan: 0)
    /// Its distance from its listener when doppler last read it (``placedClock``).
    var dopplerDistance = Double.nan
    var moved = true
    var acoustics = HeardAcoustics.open
  }

  /// A position, and the tween it is on: `from` at `start`, `target` after `frames` more.
  struct Motion {
    var from: SIMD2<Double>
    var target: SIMD2<Double>
    var start: UInt64 = 0
    var frames: UInt64 = 0
    var easing = Easing.linear

    init(at position: SIMD2<Double>) {
      from = position
      target = position
    }

    /// Where it is on `frame`.
    func position(at frame: UInt64) -> SIMD2<Double> {
      guard frames > 0, frame < start &+ frames else { return target }
      guard frame > start else { return from }
      let progress = easing.apply(Double(frame - start) / Double(frames))
      return from + (target - from) * progress
    }

    /// Whether it is still on its way on `frame`.
    func isMoving(at frame: UInt64) -> Bool { frames > 0 && frame < start &+ frames }

    /// Heads for `position` along `tween`, from where it is on `frame` (the mix's clock now).
    /// A tween from a frame the mix has already mixed (`mixed`) starts at once.
    mutating func head(
      for position: SIMD2<Double>, tween: Tween, frame: UInt64, mixed: UInt64, sampleRate: Int
    ) {
      let here = self.position(at: frame)
      let duration = tween.usableDuration
      from = here
      target = position
      guard duration > 0 else {
        frames = 0
        return
      }
      start = tween.startFrame == .max ? frame : max(mixed, tween.startFrame)
      frames = UInt64(max(1, (duration * Double(sampleRate)).rounded()))
      easing = tween.easing
    }
  }

  // MARK: Listeners

  /// Places the listeners (one to ``maximumListeners``), each voice then heard from its nearest
  /// (or the one it is pinned to) from the next update. A voice pinned to a listener that is no
  /// longer there is heard from its nearest again.
  ///
  /// - Throws: ``SpatialError/listenerCount(_:)`` for none or more than four, and
  ///   ``SpatialError/nonFinitePosition`` for a coordinate that is not a finite number; the
  ///   listeners are left as they were.
  public func setListeners(_ points: [Point]) throws(SpatialError) {
    guard (1...Self.maximumListeners).contains(points.count) else {
      throw .listenerCount(points.count)
    }
    let positions = points.map(SIMD2.init)
    guard positions.allSatisfy(\.isFinite) else { throw .nonFinitePosition }
    listenerMotions = positions.map(Motion.init(at:))
    lastListeners = positions
    for index in entries.indices where (entries[index].pinned ?? 0) >= positions.count {
      entries[index].pinned = nil
    }
    placesAll = true
  }

  /// Moves listener `index` to `position`, along `tween` if given (one point per update).
  ///
  /// - Throws: ``SpatialError/noSuchListener(_:count:)`` for an index the space does not have,
  ///   ``SpatialError/nonFinitePosition`` for a coordinate that is not a finite number.
  public func moveListener(_ index: Int, to point: Point, tween: Tween = .immediate) throws(SpatialError) {
    let position = SIMD2(point)
    guard listenerMotions.indices.contains(index) else {
      throw .noSuchListener(index, count: listenerMotions.count)
    }
    guard position.isFinite else { throw .nonFinitePosition }
    listenerMotions[index].head(
      for: position, tween: tween, frame: clock, mixed: core.mixer.framesMixed.load(ordering: .acquiring),
      sampleRate: sampleRate)
    placesAll = true
  }

  // MARK: Voices

  /// Plays `sound` at `position`, heard from its nearest listener (or `listener`), with the
  /// options of every other way to start a sound (``AudioEngine/play(_:volume:pan:loops:rate:start:fadeIn:)``;
  /// `pan` is added to the placement's). A non-finite coordinate is refused (logged once) and the
  /// sound plays at the first listener; a `listener` the space does not have is refused (logged)
  /// and the sound heard from its nearest.
  @discardableResult
  public func play(
    _ sound: Sound, at position: Point, volume: Double = 1, pan: Double = 0, loops: Int = 0,
    rate: Double = 1, start: Tween.Start = .now, fadeIn: Tween = .immediate, listener: Int? = nil
  ) -> Voice {
    play(
      .sound(sound), at: position, volume: volume, pan: pan, loops: loops, rate: rate, start: start,
      fadeIn: fadeIn, listener: listener)
  }

  /// Plays the sound decoded from `data` (decoded once, as ``AudioEngine/play(data:name:volume:pan:loops:rate:start:fadeIn:)``
  /// does) at `position`, with the same options as ``play(_:at:volume:pan:loops:rate:start:fadeIn:listener:)``.
  @discardableResult
  public func play(
    data: Data, name: String? = nil, at position: Point, volume: Double = 1, pan: Double = 0,
    loops: Int = 0, rate: Double = 1, start: Tween.Start = .now, fadeIn: Tween = .immediate,
    listener: Int? = nil
  ) -> Voice {
    play(
      .data(SoundDataReference(data: data, name: name)), at: position, volume: volume, pan: pan, loops: loops,
      rate: rate, start: start, fadeIn: fadeIn, listener: listener)
  }

  private func play(
    _ source: SoundSource, at position: Point, volume: Double, pan: Double, loops: Int, rate: Double,
    start: Tween.Start, fadeIn: Tween, listener: Int?
  ) -> Voice {
    var place = SIMD2(position)
    if !place.isFinite {
      RefusedNumbers.note("AudioSpace.play(at:)", value: place.x.isFinite ? place.y : place.x)
      place = listenerMotions[0].position(at: clock)
    }
    var pinned: Int?
    if let listener {
      if listenerMotions.indices.contains(listener) {
        pinned = listener
      } else {
        core.logger.warning(
          "AudioSpace.play: \(SpatialError.noSuchListener(listener, count: listenerMotions.count)); heard from its nearest"
        )
      }
    }
    // Where the listeners are now, in storage kept between plays (no array per trigger).
    let now = clock
    playListeners.removeAll(keepingCapacity: true)
    for motion in listenerMotions { playListeners.append(motion.position(at: now)) }
    let heard = hearing(place, from: playListeners, pinned: pinned, heardBy: nil)
    // Into the space's batch, handed to the queue at the end of this call: its start, fade-in and
    // walls are set on the voice before the queue can start it.
    let voice = core.requestPlay(
      source, volume: volume, pan: pan, groupVolume: 1, loops: loops, placement: heard.placement, rate: rate,
      into: &batch)
    defer { core.flushRequests(&batch) }
    guard !voice.isFinished else { return voice }
    if start != .now || fadeIn.usableDuration > 0 {
      core.prepareStart(of: voice, schedule: AudioEngine.schedule(start), fadeIn: fadeIn)
    }
    let entry = Entry(
      voice: .passRetained(voice), motion: Motion(at: place), pinned: pinned, heardBy: heard.listener,
      placement: heard.placement, dopplerDistance: heard.distance, moved: false)
    indexOfVoice[ObjectIdentifier(voice)] = entries.count
    entries.append(entry)
    voice.heardByListener.store(heard.listener, ordering: .relaxed)
    if let path = heard.path {
      // Through the walls from its first sample.
      let told = HeardAcoustics(path)
      entries[entries.count - 1].acoustics = told
      voice.setAcoustics(
        cutoff: told.cutoff, send: told.send, occlusion: told.occlusion, portal: path.portal, over: 0)
    }
    return voice
  }

  /// Moves `voice` to `position`: at once (gliding over the next update), or along `tween`. A
  /// voice this space does not place, or one that has finished, is left alone; a non-finite
  /// coordinate is refused (logged once) and the voice stays where it was going.
  public func move(_ voice: Voice, to point: Point, tween: Tween = .immediate) {
    let position = SIMD2(point)
    guard position.isFinite else {
      RefusedNumbers.note("AudioSpace.move(_:to:)", value: position.x.isFinite ? position.y : position.x)
      return
    }
    guard let index = indexOfVoice[ObjectIdentifier(voice)] else { return }
    entries[index].motion.head(
      for: position, tween: tween, frame: clock, mixed: core.mixer.framesMixed.load(ordering: .acquiring),
      sampleRate: sampleRate)
    entries[index].moved = true
  }

  /// Where `voice` is now (on its tween, if it is on one), or nil for a voice this space does not
  /// place (or no longer: it finished).
  public func position(of voice: Voice) -> Point? {
    indexOfVoice[ObjectIdentifier(voice)].map { Point(entries[$0].motion.position(at: clock)) }
  }

  /// The listener `voice` is heard from (the nearer of two it is blended between), or nil for a
  /// voice this space does not place.
  public func listener(hearing voice: Voice) -> Int? {
    indexOfVoice[ObjectIdentifier(voice)].map { entries[$0].heardBy }
  }

  /// Hears `voice` from listener `index` only, whatever its distance to the others; nil hears it
  /// from its nearest again.
  ///
  /// - Throws: ``SpatialError/noSuchListener(_:count:)`` for an index the space does not have.
  public func pin(_ voice: Voice, toListener index: Int?) throws(SpatialError) {
    if let index, !listenerMotions.indices.contains(index) {
      throw .noSuchListener(index, count: listenerMotions.count)
    }
    guard let entry = indexOfVoice[ObjectIdentifier(voice)] else { return }
    entries[entry].pinned = index
    entries[entry].moved = true
  }

  /// The voices this space places that have not finished (as of the last update).
  public var voiceCount: Int { entries.count }

  /// The engine's clock as tweens read it: the mix's frame, which moves a buffer at a time,
  /// carried on between buffers by the updates' own steps (``update(deltaTime:)``), never behind
  /// the mix nor more than two buffers ahead of it. A tween read on the mix's frame alone would
  /// stand still for a buffer and then jump a buffer's way in one update's glide.
  var clock: UInt64 {
    let mixed = core.mixer.framesMixed.load(ordering: .acquiring)
    return min(max(carriedClock, mixed), mixed &+ 2 &* UInt64(bufferFrames))
  }
}

/// Why an ``AudioSpace`` refused a listener or a position.
public enum SpatialError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A space has one to ``AudioSpace/maximumListeners`` listeners; this many were given.
  case listenerCount(Int)
  /// No listener has this index (the space has `count`).
  case noSuchListener(Int, count: Int)
  /// A coordinate was NaN or infinite.
  case nonFinitePosition

  public var description: String {
    switch self {
    case .listenerCount(let count):
      "a space has 1 to \(AudioSpace.maximumListeners) listeners, not \(count)"
    case .noSuchListener(let index, let count):
      "no listener \(index): the space has \(count) (0…\(count - 1))"
    case .nonFinitePosition:
      "a position's coordinates must be finite numbers"
    }
  }
}

extension SIMD2 where Scalar == Double {
  /// Whether both coordinates are finite numbers.
  var isFinite: Bool { x.isFinite && y.isFinite }

  /// The point's coordinates, for the space's arithmetic.
  init(_ point: Point) { self.init(point.x, point.y) }
}
