import FoleyCore
import Foundation

extension AudioSpace {
  /// Places every voice that may be heard differently now (it moved or is on a tween, a listener
  /// moved, the settings changed, or doppler needs its motion) and sends the new placements to
  /// the mix, each gliding there over this update. Call it once a frame, after the game moved its
  /// entities and listeners; `deltaTime` is the frame's length in seconds (a NaN, an infinity or
  /// a value not above 0 is refused, logged once, and a sixtieth of a second used).
  public func update(deltaTime: Double) {
    step =
      deltaTime > 0
      ? deltaTime.clamped(to: 1e-6...10, or: 1.0 / 60, member: "AudioSpace.update(deltaTime:)")
      : {
        RefusedNumbers.note("AudioSpace.update(deltaTime:)", value: deltaTime)
        return 1.0 / 60
      }()
    frameLength = max(1, min(sampleRate, Int((step * Double(sampleRate)).rounded())))
    dropFinished()
    carriedClock = clock &+ UInt64(frameLength)
    let now = clock
    for index in listenerMotions.indices {
      if listenersNow.count <= index { listenersNow.append(.zero) }
      listenersNow[index] = listenerMotions[index].position(at: now)
    }
    listenersNow.removeLast(listenersNow.count - listenerMotions.count)
    let listenersMoved = listenersNow != lastListeners || listenerMotions.contains { $0.isMoving(at: now) }
    let glide = glides.next(
      updateFrames: frameLength, mixed: core.mixer.framesMixed.load(ordering: .acquiring),
      bufferFrames: bufferFrames, sampleRate: sampleRate)
    // Doppler's velocities are the distances moved over the clock the positions were read on (a
    // tween runs on it; a game's moves between updates span as much while the mix keeps time).
    // An update on a clock that has not moved (the game ran ahead of a mix two buffers behind)
    // leaves each factor as it was: its moves count when the clock next moves, over that span.
    let doppler: DopplerStep
    if now > placedClock {
      dopplerSpan = Double(now - placedClock) / Double(sampleRate)
      placedClock = now
      doppler = spatial.speedOfSound != nil ? .measure : dopplerOn ? .end : .track
    } else {
      doppler = dopplerOn && spatial.speedOfSound == nil ? .end : .hold
    }
    dopplerOn = spatial.speedOfSound != nil
    updateListenerRoom(listenersNow[0])
    let placesEvery = placesAll || listenersMoved || spatial.speedOfSound != nil
    for index in entries.indices {
      let moving = entries[index].motion.isMoving(at: now)
      guard placesEvery || entries[index].moved || moving else { continue }
      // Borrowed from the entry, which holds it: no reference counting.
      entries[index].voice._withUnsafeGuaranteedRef { voice in
        place(index, voice: voice, at: now, moving: moving, doppler: doppler, glide: glide)
      }
    }
    swap(&lastListeners, &listenersNow)
    placesAll = false
    if !moves.isEmpty || !releases.isEmpty {
      // Both lists come back empty, with the storage of the ones the queue finished with.
      core.updatePlacements(&moves, releasing: &releases, overFrames: frameLength)
    }
  }

  /// Places the voice of entry `index` where it is on frame `now`: `update`'s step for one voice.
  @inline(__always)
  private func place(
    _ index: Int, voice: Voice, at now: UInt64, moving: Bool, doppler: DopplerStep, glide: Int
  ) {
    var entry = entries[index]
    defer { entries[index] = entry }
    let position = entry.motion.position(at: now)
    let heard = hearing(position, from: listenersNow, pinned: entry.pinned, heardBy: entry.heardBy)
    switch doppler {
    case .measure:
      // Approaching is positive: the distance shrank over the span.
      if entry.dopplerDistance.isFinite {
        voice.setDoppler(
          spatial.dopplerFactor(approachingAt: (entry.dopplerDistance - heard.distance) / dopplerSpan),
          overFrames: frameLength)
      }
      entry.dopplerDistance = heard.distance
    case .track: entry.dopplerDistance = heard.distance
    case .end:
      voice.setDoppler(1, overFrames: frameLength)
      entry.dopplerDistance = heard.distance
    case .hold: break
    }
    entry.moved = moving
    if heard.listener != entry.heardBy { voice.heardByListener.store(heard.listener, ordering: .relaxed) }
    entry.heardBy = heard.listener
    if heard.path != nil || entry.acoustics.differs(from: .open) {
      tellAcoustics(heard.path, to: &entry, voice: voice)
    }
    if heard.placement.gain == 0, spatial.stopsBeyondMaximumDistance {
      voice.stop(tween: 0.05)
      return
    }
    let old = entry.placement
    guard abs(old.gain - heard.placement.gain) > 1e-6 || abs(old.pan - heard.placement.pan) > 1e-6 else {
      return
    }
    entry.placement = heard.placement
    if !voice.followPlacement(heard.placement, glide: glide) {
      moves.append(PlacementMove(entry.voice, to: heard.placement))
    }
  }

  /// What an update does with each placed voice's doppler factor.
  enum DopplerStep {
    /// The clock moved and the space has a speed of sound: the factor from the distance moved.
    case measure
    /// The clock moved, no doppler: the distance kept for when it is turned on.
    case track
    /// Doppler was just turned off: the factor back to 1.
    case end
    /// The clock has not moved since the last measure: each factor as it was.
    case hold
  }

  /// Lets go of the voices that finished: each is released on the queue, after the moves sent
  /// before (which name it unretained).
  private func dropFinished() {
    // Nothing finished anywhere since the last look: none of ours did.
    let finished = core.counters.finishedVoices.load(ordering: .acquiring)
    guard finished != finishedVoicesSeen else { return }
    finishedVoicesSeen = finished
    var index = 0
    while index < entries.count {
      guard entries[index].voice.takeUnretainedValue().isFinished else {
        index += 1
        continue
      }
      let gone = entries[index].voice
      indexOfVoice[ObjectIdentifier(gone.takeUnretainedValue())] = nil
      releases.append(gone)
      let last = entries.count - 1
      if index != last {
        entries[index] = entries[last]
        indexOfVoice[ObjectIdentifier(entries[index].voice.takeUnretainedValue())] = index
      }
      entries.removeLast()
    }
  }

  /// How a sound at `position` is heard from `listeners` (and through the walls, when the space
  /// has some): from its pinned listener alone, else
  /// from its nearest, blended with the second nearest within ``listenerBlend``. `heardBy` is the
  /// listener it was heard from before (kept until another is nearer by half the blend).
  func hearing(
    _ position: SIMD2<Double>, from listeners: [SIMD2<Double>], pinned: Int?, heardBy: Int?
  ) -> (placement: SpatialPlacement, distance: Double, listener: Int, path: AcousticPath?) {
    if let pinned, listeners.indices.contains(pinned) {
      let (placement, distance, path) = path(of: position, from: listeners[pinned])
      return (placement, distance, pinned, path)
    }
    if listeners.count == 1 {
      let (placement, distance, path) = path(of: position, from: listeners[0])
      return (placement, distance, 0, path)
    }
    var nearest = 0
    var second = -1
    var distances = SIMD4<Double>(repeating: .infinity)
    for index in listeners.indices.prefix(Self.maximumListeners) {
      let offset = position - listeners[index]
      distances[index] = (offset * offset).sum().squareRoot()
      if index == 0 { continue }
      if distances[index] < distances[nearest] {
        second = nearest
        nearest = index
      } else if second < 0 || distances[index] < distances[second] {
        second = index
      }
    }
    var heard = nearest
    if let heardBy, heardBy != nearest, listeners.indices.contains(heardBy),
      distances[heardBy] - distances[nearest] < listenerBlend / 2
    {
      heard = heardBy
    }
    let (near, nearDistance, path) = path(of: position, from: listeners[nearest])
    guard second >= 0, listenerBlend > 0 else { return (near, nearDistance, heard, path) }
    let weight = max(0, 0.5 - (distances[second] - distances[nearest]) / (2 * listenerBlend))
    guard weight > 0 else { return (near, nearDistance, heard, path) }
    // The walls' filter and send are the nearer listener's; the level and the side are blended.
    let (far, farDistance, _) = self.path(of: position, from: listeners[second])
    return (
      SpatialPlacement(
        gain: near.gain + (far.gain - near.gain) * weight, pan: near.pan + (far.pan - near.pan) * weight),
      nearDistance + (farDistance - nearDistance) * weight, heard, path
    )
  }

  /// A lone listener's placement of a sound at `position`, and its distance.
  func placement(of position: SIMD2<Double>, from listener: SIMD2<Double>) -> (SpatialPlacement, Double) {
    let offset = position - listener
    return spatial.placement(dx: offset.x, dy: offset.y)
  }
}

extension AudioEngine {
  /// The engine's space: positional sound for a game with its own entities (no scene graph),
  /// made on first use. See ``AudioSpace``.
  ///
  /// ```swift
  /// let voice = engine.space.play(chime, at: Point(x: 250, y: -40))
  /// engine.space.update(deltaTime: 1.0 / 60)
  /// ```
  @MainActor public var space: AudioSpace {
    spaceState.space.withLock { space in
      if let space { return space }
      let made = AudioSpace(engine: self)
      space = made
      return made
    }
  }

  /// The space, if anything has made it.
  @MainActor var spaceIfMade: AudioSpace? { spaceState.space.withLock { $0 } }

  private var spaceState: EngineSpace { feature { EngineSpace() } }
}

/// Captions and rumble of the space's voices say where they are heard from: the voice is its own
/// anchor, placed relative to the listener that hears it.
extension AudioSpace: ScenePlacing {
  package func anchor(of voice: Voice) -> AnyObject? {
    indexOfVoice[ObjectIdentifier(voice)] == nil ? nil : voice
  }

  package func placement(of anchor: Unmanaged<AnyObject>) -> ScenePlacement {
    placement(of: anchor, heardThrough: -1)
  }

  /// Heard through a door (`portal`, an index in ``geometry``, as the voice's acoustics last
  /// found its loudest path): from the door's middle, over the way through it, so a caption or a
  /// radar leads to the door rather than into the wall; the straight line otherwise.
  package func placement(of anchor: Unmanaged<AnyObject>, heardThrough portal: Int) -> ScenePlacement {
    guard let index = indexOfVoice[ObjectIdentifier(anchor.takeUnretainedValue())] else {
      return ScenePlacement(dx: 0, dy: 0, distance: 0, gain: 0)  // finished: no longer heard
    }
    let now = clock
    let listener = listenerMotions[min(entries[index].heardBy, listenerMotions.count - 1)].position(at: now)
    let position = entries[index].motion.position(at: now)
    if portal >= 0, let door = geometry?.middle(ofPortal: portal) {
      let middle = SIMD2(door.x, door.y)
      let toDoor = middle - listener
      let beyond = position - middle
      let distance = (toDoor * toDoor).sum().squareRoot() + (beyond * beyond).sum().squareRoot()
      return ScenePlacement(
        dx: toDoor.x, dy: toDoor.y, distance: distance, gain: spatial.gain(atDistance: distance))
    }
    let offset = position - listener
    let distance = (offset * offset).sum().squareRoot()
    return ScenePlacement(
      dx: offset.x, dy: offset.y, distance: distance, gain: spatial.gain(atDistance: distance))
  }
}

/// What the space keeps per engine: the game thread's space, once made.
private final class EngineSpace: Sendable {
  let space = Locked<AudioSpace?>(nil)
}
