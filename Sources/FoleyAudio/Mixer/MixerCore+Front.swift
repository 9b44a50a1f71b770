import FoleySession
import Foundation

// The front of the mixer core: what any thread may call (the game thread's plays). It touches
// only the locked request list, a batch its caller owns, the session's flag and atomics, never
// the queue's state.
extension MixerCore {

  /// Queues a play and returns its voice at once, the queue woken for it (one hop serves every
  /// play waiting). Gate one: an inactive session suppresses it here.
  package func requestPlay(
    _ source: SoundSource, volume: Double, pan: Double, groupVolume: Double, loops: Int = 0,
    placement: SpatialPlacement? = nil, rate: Double = 1, schedule: ScheduledStart? = nil,
    fadeIn: Tween? = nil, modulators: [Modulator] = []
  ) -> Voice {
    guard let play = gateOne(source, volume: volume, pan: pan, loops: loops) else {
      return .finished(id: counters.takeVoiceID())
    }
    let normalizes = normalizesLoudness(source)
    let reused: Voice?
    if groupVolume == 1, rate == 1, schedule == nil, fadeIn == nil, modulators.isEmpty, !normalizes {
      // Nothing to set on the voice but what recycling sets: a finished voice is recycled and
      // queued under one lock (most plays in a running game).
      let (recycled, hop) = requests.withLock { pending -> (Voice?, Int?) in
        guard
          let voice = pending.voices.reuse(
            id: play.id, volume: play.volume, pan: play.pan, placement: placement)
        else { return (nil, nil) }
        pending.append(source, voice: voice, loops: play.loops)
        return (voice, pending.scheduleHop())
      }
      if let recycled {
        if let hop { queueRequestHop(signal: hop) }
        noteAccessible(source, voice: recycled, loops: play.loops)
        return recycled
      }
      reused = nil
    } else {
      reused = requests.withLock {
        $0.voices.reuse(id: play.id, volume: play.volume, pan: play.pan, placement: placement)
      }
    }
    let voice =
      reused
      ?? Voice(
        id: play.id, core: self, state: .pending, volume: play.volume, pan: play.pan, placement: placement)
    setUp(
      voice, for: source, normalizes: normalizes, groupVolume: groupVolume, rate: rate, schedule: schedule)
    if let fadeIn {
      // A start that joins late fades in from where it joins, not from its passed frame.
      let from = schedule?.joinsLate == true ? nil : schedule?.frame
      prepareStart(of: voice, schedule: nil, fadeIn: fadeIn, startingOn: from)
    }
    if !modulators.isEmpty { presetModulators(modulators, on: voice) }
    let hop = requests.withLock { pending -> Int? in
      pending.append(source, voice: voice, loops: play.loops)
      if reused == nil { pending.voices.keep(voice) }
      return pending.scheduleHop()
    }
    if let hop { queueRequestHop(signal: hop) }
    noteAccessible(source, voice: voice, loops: play.loops)
    return voice
  }

  /// Adds a play to `batch` and returns its voice at once; it goes to the queue with the rest of
  /// the batch at ``flushRequests(_:)``. No lock is taken: the batch, and the ring its voices
  /// come from, belong to the caller (a scene's link, on the game thread). Gate one as
  /// ``requestPlay(_:volume:pan:groupVolume:loops:placement:rate:schedule:)``.
  package func requestPlay(
    _ source: SoundSource, volume: Double, pan: Double, groupVolume: Double, loops: Int = 0,
    placement: SpatialPlacement? = nil, rate: Double = 1, into batch: inout PlayBatch
  ) -> Voice {
    guard let play = gateOne(source, volume: volume, pan: pan, loops: loops) else {
      return .finished(id: counters.takeVoiceID())
    }
    let voice: Voice
    if let reused = batch.voices.reuse(id: play.id, volume: play.volume, pan: play.pan, placement: placement)
    {
      voice = reused
    } else {
      voice = Voice(
        id: play.id, core: self, state: .pending, volume: play.volume, pan: play.pan, placement: placement)
      batch.voices.keep(voice)
    }
    let normalizes = normalizesLoudness(source)
    if groupVolume != 1 || rate != 1 || normalizes {
      setUp(voice, for: source, normalizes: normalizes, groupVolume: groupVolume, rate: rate, schedule: nil)
    }
    batch.append(source, voice: voice, loops: play.loops)
    noteAccessible(source, voice: voice, loops: play.loops)
    return voice
  }

  /// A play's own figures once gate one let it through: its voice's id, its volume and pan in
  /// range, and its loop count (nil: suppressed and counted, with the voice's id taken).
  @inline(__always)
  private func gateOne(
    _ source: SoundSource, volume: Double, pan: Double, loops: Int
  ) -> (id: UInt64, volume: Double, pan: Double, loops: Int)? {
    counters.bump(.requested)
    guard session.isActive || mayStartWhileInactive(source.category) else {
      counters.bump(.suppressed)
      return nil
    }
    let id = counters.takeVoiceID()
    // Int32 is SDL_mixer's loop count; beyond it a loop count means "for ever" in practice.
    return (
      id, volume.clamped(to: 0...1, or: 1), pan.clamped(to: -1...1, or: 0),
      max(-1, min(loops, Int(Int32.max)))
    )
  }

  private func normalizesLoudness(_ source: SoundSource) -> Bool {
    if case .sound(let sound) = source { return sound.settings.normalizesLoudness }
    return false
  }

  /// What a play sets on its voice beyond what recycling sets.
  /// Gives a voice not yet handed to the queue (a batch's, before its flush) its start frame and
  /// its fade-in: from silence to its volume along `fadeIn`, from the tween's start (or the
  /// voice's own, `startingOn`).
  package func prepareStart(
    of voice: Voice, schedule: ScheduledStart?, fadeIn: Tween?, startingOn frame: UInt64? = nil
  ) {
    if let schedule { voice.schedule.set(schedule) }
    guard let fadeIn, fadeIn.usableDuration > 0 else { return }
    voice.keepLevelTween(
      from: 0, frames: Int((fadeIn.usableDuration * Double(format.sampleRate)).rounded()),
      easing: fadeIn.easing,
      start: fadeIn.startFrame != .max ? fadeIn.startFrame : (frame ?? schedule?.frame) ?? .max)
  }

  private func setUp(
    _ voice: Voice, for source: SoundSource, normalizes: Bool, groupVolume: Double, rate: Double,
    schedule: ScheduledStart?
  ) {
    if groupVolume != 1 { voice.groupVolume = groupVolume }
    if rate != 1 { voice.startRate(rate) }
    if let schedule { voice.schedule.set(schedule) }
    if case .sound(let sound) = source, normalizes,
      let target = loudnessTargets.withLock({ $0[sound.settings.category] })
    {
      // Measured the first time (on this thread; `Sound.loudness` at load time pays it ahead).
      voice.normalization = pow(10, sound.buffer.loudness.gain(toReach: target) / 20)
    }
  }

  /// Hands the plays `batch` gathered to the audio queue, with one hold of the lock, and wakes
  /// the queue for them (unless a hop is on its way, or the requests are held).
  package func flushRequests(_ batch: inout PlayBatch) {
    let hop = requests.withLock { pending -> Int? in
      pending.add(&batch)
      return pending.hasWork ? pending.scheduleHop() : nil
    }
    if let hop { queueRequestHop(signal: hop) }
  }

  /// Hands the waiting requests to the audio queue, if any wait and none are on their way; while
  /// they are held, only when `evenIfHeld`.
  package func flushRequests(evenIfHeld: Bool = false) {
    let hop = requests.withLock { pending in
      pending.hasWork ? pending.scheduleHop(evenIfHeld: evenIfHeld) : nil
    }
    if let hop { queueRequestHop(signal: hop) }
  }

  /// Holds (or lets go of) the requests: while held, plays, moves and releases wait in the
  /// mailbox until a forced ``flushRequests(evenIfHeld:)``.
  func holdRequests(_ held: Bool) {
    requests.withLock { $0.isHeld = held }
  }

  /// Sends positional voices' new placements to the queue, each to glide there over `frames`
  /// frames, then `releasing` voices to release there once it is past every move sent before
  /// them (the sender kept them alive for those). Both lists are left empty, their storage
  /// traded with the waiting lists': nothing is allocated in a steady run.
  package func updatePlacements(
    _ moves: inout [PlacementMove], releasing: inout [Unmanaged<Voice>], overFrames frames: Int
  ) {
    let hop = requests.withLock { pending -> Int? in
      pending.add(moves: &moves, releasing: &releasing, overFrames: frames)
      return pending.hasWork ? pending.scheduleHop() : nil
    }
    if let hop { queueRequestHop(signal: hop) }
  }

  /// Releases `voices` on the queue, after every move sent before: retains that kept them alive
  /// for moves (``PlacementMove``) the queue has not made yet.
  package func release(afterQueue voices: [Unmanaged<Voice>]) {
    guard !voices.isEmpty else { return }
    var voices = voices
    var noMoves: [PlacementMove] = []
    updatePlacements(&noMoves, releasing: &voices, overFrames: 1)
  }

  /// Raises hop signal `signal` (from `scheduleHop()`), with the core retained until the hop has
  /// run (its run releases it). One raise per run: only the run's `take()` lets another hop be
  /// scheduled, so no two raises merge into one run.
  func queueRequestHop(signal: Int) {
    _ = Unmanaged.passRetained(self)
    requestSignals[signal].or(data: 1)
  }

  /// Whether a new play of `category` may start while the session is inactive (gate one reads the
  /// session's state; gate two, on the queue, the same).
  func mayStartWhileInactive(_ category: SoundCategory) -> Bool {
    let state = session.state
    return policies.withLock { $0.mayStart(category, in: state) }
  }
}
