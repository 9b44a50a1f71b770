import FoleyCore
import Synchronization

/// Sound for a game with rollback netcode: requests carry the simulation frame that made them and
/// a key of the game's, so a re-simulation neither doubles a sound nor leaves a mispredicted one
/// ringing, and a sound the new timeline started in the past joins at the sample it would have
/// reached.
///
/// Simulation frame `f` sounds on engine frame ``engineFrame(of:)``: the timeline's origin plus
/// `f` frames of the simulation's rate, to the sample. While the game simulates forward, each
/// request plays at once (scheduled on its frame). When a remote input proves a prediction wrong,
/// the game calls ``rollback(to:)``, re-issues what its re-simulation asks for, and calls
/// ``endResimulation()``, which reconciles:
///
/// - a request whose key already sounds, with the same sound on the same frame, is kept as it is
///   (its volume and pan follow the new request from the next buffer);
/// - a sound from the rolled-back frames that the new timeline does not ask for again fades out
///   over ``Settings/fadeOut`` (or rings on, if it was played with `ifMispredicted: .ring`);
/// - a new request whose frame has already been mixed joins part-way through, at the sample it
///   would have reached, after a de-click of ``Settings/lateFadeIn`` (or does not start at all,
///   when it would already have ended, or was played with `late: .skip`);
/// - a ``stop(key:frame:)`` the re-simulation does not ask for again is taken back: the sound,
///   silent beneath its fade until the stop is confirmed, comes back where it has got to.
///
/// ``confirm(through:)`` makes frames final; the timeline then forgets them, so it holds only the
/// unconfirmed window however long the match.
///
/// ```swift
/// let timeline = try engine.rollbackTimeline(framesPerSecond: 60)
/// // each simulated frame, forward or re-simulated:
/// timeline.play(punch, key: RollbackKey(event: "punch", entity: 1, frame: frame), frame: frame)
/// // a late remote input changed frame 412:
/// try timeline.rollback(to: 412)
/// for frame in 412...current { simulate(frame) }       // re-issues its sounds
/// timeline.endResimulation()
/// timeline.confirm(through: confirmedFrame)           // from the netcode
/// ```
///
/// Safe to call from any thread; calls are meant to come from the game's simulation, in order.
public final class RollbackTimeline: Sendable {
  /// The simulation's rate.
  public let framesPerSecond: Int
  /// The engine frame simulation frame 0 sounds on.
  public let origin: AudioFrame
  public let settings: Settings
  private let core: MixerCore
  private let sampleRate: Int
  private let state = Locked(TimelineState())
  /// Frames the origin has moved to keep ``Settings/lead`` (written under the state's lock).
  private let originShift = Atomic<Int>(0)

  package init(core: MixerCore, framesPerSecond: Int, origin: AudioFrame, settings: Settings) {
    self.core = core
    self.framesPerSecond = framesPerSecond
    self.origin = origin
    self.settings = settings
    sampleRate = core.format.sampleRate
  }

  /// The engine frame simulation frame `frame` sounds on (frames before 0 on the origin).
  public func engineFrame(of frame: Int) -> AudioFrame {
    let offset = Double(max(0, frame)) * Double(sampleRate) / Double(framesPerSecond)
    return origin + Int(min(offset, Double(Int.max / 2)).rounded(.down))
      + originShift.load(ordering: .acquiring)
  }

  /// How many frames of the engine's clock the origin has moved so far to keep ``Settings/lead``
  /// (positive: later, the device running ahead of the game).
  public var originMoved: Int { originShift.load(ordering: .acquiring) }

  /// Tells the timeline the simulation has reached simulation frame `frame`, going forward (call
  /// it once a frame, before the frame's requests; not while re-simulating). It makes frames
  /// further back than the window final, and with ``Settings/lead`` it keeps `frame` sounding
  /// that far ahead of the mix, within a buffer: when the device's clock and the game's drift
  /// apart by more, the origin moves to take the difference up.
  ///
  /// ```swift
  /// let timeline = try engine.rollbackTimeline(framesPerSecond: 60, settings: .init(lead: 0.03))
  /// // each frame of the game loop, before simulating it:
  /// timeline.advance(to: currentFrame)
  /// ```
  public func advance(to frame: Int) {
    state.withLock { state in
      guard state.resimulatingFrom == nil else { return }
      if let lead = settings.lead {
        let mixed = Int(clamping: core.mixer.framesMixed.load(ordering: .acquiring))
        let slack = engineFrame(of: frame).index - mixed
        let target = Int((lead * Double(sampleRate)).rounded())
        if abs(slack - target) > core.format.bufferFrames {
          originShift.add(target - slack, ordering: .releasing)
        }
      }
      state.noteFrame(frame)
      confine(&state)
    }
  }

  /// Plays `sound` as simulation frame `frame` asked for it, under the game's `key`. Forward,
  /// it starts at once, scheduled on its frame (a frame already mixed joins late); a key already
  /// sounding is not played twice. Between ``rollback(to:)`` and ``endResimulation()`` it is
  /// held, and the reconciliation decides.
  /// - Parameters:
  ///   - sound: the sound to play.
  ///   - key: the game's own identity for this sound (its event, entity and frame).
  ///   - frame: the simulation frame that asked for it.
  ///   - volume: its volume, as ``AudioEngine/play(_:volume:pan:loops:rate:start:fadeIn:)`` takes it.
  ///   - pan: its pan, −1 (left) to 1 (right).
  ///   - loops: how many times it repeats after the first play.
  ///   - rate: its playback rate (1 is as recorded).
  ///   - late: what it does when its frame has already been mixed.
  ///   - ifMispredicted: what it does when a re-simulation no longer asks for it.
  public func play(
    _ sound: Sound, key: RollbackKey, frame: Int, volume: Double = 1, pan: Double = 0, loops: Int = 0,
    rate: Double = 1, late: LateStart = .join, ifMispredicted: Misprediction = .fadeOut
  ) {
    let request = RollbackRequest(
      sound: sound, frame: max(0, frame), volume: volume, pan: pan, loops: loops, rate: rate,
      late: late, ifMispredicted: ifMispredicted)
    state.withLock { state in
      state.noteFrame(request.frame)
      if let from = state.resimulatingFrom, request.frame >= from {
        state.resimulated[key] = request
        state.resimulatedOrder.append(key)
        return
      }
      if let entry = state.entries[key] {
        // The same sound asked for again (an action re-run, a duplicate event): kept.
        if entry.request.matches(request) {
          state.entries[key] = follow(entry, to: request)
          return
        }
        replace(entry, under: key, with: request, in: &state)
        return
      }
      state.entries[key] = RollbackEntry(request: request, voice: start(request))
      confine(&state)
    }
  }

  /// Stops the sound sounding under `key` as simulation frame `frame` asked: it fades over
  /// ``Settings/fadeOut`` from that frame's first sample (at once, when the frame has been
  /// mixed). Until the frame is confirmed the voice goes on silently beneath the fade, so that a
  /// re-simulation that no longer stops it brings it back at the very sample it has reached;
  /// between ``rollback(to:)`` and ``endResimulation()`` the stop is held, as a play is. A key
  /// with no sound, or one already stopping on an earlier frame, is left as it is.
  ///
  /// ```swift
  /// timeline.play(charge, key: RollbackKey(event: "charge", entity: 1, frame: 200), frame: 200, loops: -1)
  /// // the charge is released on frame 260:
  /// timeline.stop(key: RollbackKey(event: "charge", entity: 1, frame: 200), frame: 260)
  /// ```
  /// - Parameters:
  ///   - key: the key the sound was played under.
  ///   - frame: the simulation frame that stops it.
  public func stop(key: RollbackKey, frame: Int) {
    let frame = max(0, frame)
    state.withLock { state in
      state.noteFrame(frame)
      if let from = state.resimulatingFrom, frame >= from {
        state.resimulatedStops[key] = min(frame, state.resimulatedStops[key] ?? .max)
        return
      }
      guard var entry = state.entries[key], entry.stoppedAt.map({ frame < $0 }) ?? true else { return }
      entry.stoppedAt = frame
      silence(entry, from: frame)
      state.entries[key] = entry
      confine(&state)
    }
  }

  /// Begins a re-simulation from simulation frame `frame`: what the game asks for from here
  /// until ``endResimulation()`` replaces what the rolled-back frames asked for. A second
  /// rollback before the end goes back to the earlier of the two frames.
  /// - Throws: ``RollbackError/confirmed(frame:confirmedThrough:)`` for a confirmed frame.
  public func rollback(to frame: Int) throws(RollbackError) {
    try state.withLock { state throws(RollbackError) in
      guard frame > state.confirmedThrough else {
        throw .confirmed(frame: frame, confirmedThrough: state.confirmedThrough)
      }
      if let from = state.resimulatingFrom, from <= frame { return }
      if state.resimulatingFrom != nil {
        // Further back than the re-simulation under way: its requests are redone from here too.
        state.resimulated = state.resimulated.filter { $0.value.frame < frame }
        state.resimulatedOrder.removeAll { state.resimulated[$0] == nil }
        state.resimulatedStops = state.resimulatedStops.filter { $0.value < frame }
      }
      state.resimulatingFrom = frame
      state.rollbacks += 1
    }
  }

  /// Ends the re-simulation and reconciles the sound with it (see the overview); does nothing
  /// when no rollback is under way.
  @discardableResult
  public func endResimulation() -> Reconciliation {
    state.withLock { state in
      guard let from = state.resimulatingFrom else { return Reconciliation() }
      var report = Reconciliation()
      // What the rolled-back frames started: kept when asked for again, else mispredicted.
      for (key, entry) in state.entries where entry.request.frame >= from {
        if let request = state.resimulated[key] {
          if entry.request.matches(request) {
            state.entries[key] = follow(entry, to: request)
            report.kept += 1
          } else {
            replace(entry, under: key, with: request, in: &state, counting: &report)
          }
          state.resimulated[key] = nil
          continue
        }
        state.entries[key] = nil
        switch entry.request.ifMispredicted {
        case .fadeOut:
          withdraw(entry.voice)
          report.fadedOut += 1
        case .ring: report.letRing += 1
        }
      }
      // What the re-simulation asks for that nothing sounds for yet, in the order it asked.
      for key in state.resimulatedOrder {
        guard let request = state.resimulated.removeValue(forKey: key) else { continue }
        if let entry = state.entries[key], entry.request.matches(request) {
          report.kept += 1
          continue
        }
        state.entries[key] = RollbackEntry(request: request, voice: start(request, counting: &report))
      }
      reconcileStops(from: from, in: &state, counting: &report)
      state.resimulatingFrom = nil
      state.resimulated = [:]
      state.resimulatedOrder = []
      state.resimulatedStops = [:]
      confine(&state)
      return report
    }
  }

  /// Makes simulation frames through `frame` final: no rollback reaches them, and the timeline
  /// forgets their requests (a sound still sounding stays known by its key, so a re-run of its
  /// request does not double it).
  public func confirm(through frame: Int) {
    state.withLock { state in
      guard frame > state.confirmedThrough else { return }
      state.confirmedThrough = frame
      forgetConfirmed(&state)
    }
  }

  /// The voice sounding under `key`, if one does (nil while a re-simulation holds its request).
  public func voice(for key: RollbackKey) -> Voice? {
    state.withLock { $0.entries[key]?.voice }
  }

  /// How many requests the timeline holds (the unconfirmed window and what still sounds).
  public var heldRequests: Int { state.withLock { $0.entries.count } }

  /// The newest frame confirmed.
  public var confirmedThrough: Int { state.withLock { $0.confirmedThrough } }

  /// Rollbacks begun so far.
  public var rollbacks: Int { state.withLock { $0.rollbacks } }

  // MARK: - Playing

  private func start(_ request: RollbackRequest) -> Voice? {
    var report = Reconciliation()
    return start(request, counting: &report)
  }

  /// Starts `request` on its frame, joining late if that frame has been mixed; nil when it is
  /// not started.
  private func start(_ request: RollbackRequest, counting report: inout Reconciliation) -> Voice? {
    let at = engineFrame(of: request.frame)
    let now = AudioFrame(Int(clamping: core.mixer.framesMixed.load(ordering: .acquiring)))
    let isLate = at < now
    if isLate {
      let passes = request.loops < 0 ? Double.infinity : Double(request.loops + 1)
      let rate = request.rate.isFinite && request.rate > 0 ? request.rate : 1
      let length = Double(request.sound.buffer.frames) / rate * passes
      if request.late == .skip || Double(now - at) >= length {
        report.skipped += 1
        return nil
      }
      report.startedLate += 1
    } else {
      report.started += 1
    }
    var schedule = ScheduledStart(frame: UInt64(at.index))
    schedule.joinsLate = true
    let fadeIn = isLate && settings.lateFadeIn > 0 ? Tween(duration: settings.lateFadeIn) : nil
    let voice = core.requestPlay(
      .sound(request.sound), volume: request.volume, pan: request.pan, groupVolume: 1, loops: request.loops,
      rate: request.rate, schedule: schedule, fadeIn: fadeIn)
    return voice
  }

  /// `entry` left sounding, its level and pan those of `request` from the next buffer.
  private func follow(_ entry: RollbackEntry, to request: RollbackRequest) -> RollbackEntry {
    var followed = entry
    if let voice = entry.voice {
      // A stopping voice stays silent; its level comes back if a re-simulation takes the stop back.
      if request.volume != entry.request.volume, entry.stoppedAt == nil { voice.volume = request.volume }
      if request.pan != entry.request.pan { voice.pan = request.pan }
    }
    followed.request = request
    return followed
  }

  private func replace(
    _ entry: RollbackEntry, under key: RollbackKey, with request: RollbackRequest,
    in state: inout TimelineState
  ) {
    var report = Reconciliation()
    replace(entry, under: key, with: request, in: &state, counting: &report)
  }

  /// `entry`'s sound faded out and `request` started in its place.
  private func replace(
    _ entry: RollbackEntry, under key: RollbackKey, with request: RollbackRequest,
    in state: inout TimelineState,
    counting report: inout Reconciliation
  ) {
    withdraw(entry.voice)
    report.fadedOut += 1
    state.entries[key] = RollbackEntry(request: request, voice: start(request, counting: &report))
  }

  /// The stops of the re-simulated frames against what the first timeline stopped: a stop asked
  /// for again on its frame stays; one on another frame moves there; one no longer asked for is
  /// taken back (the voice, silent beneath its fade, comes back where it has got to); a stop of a
  /// sound the re-simulation has just started applies to it.
  private func reconcileStops(
    from: Int, in state: inout TimelineState, counting report: inout Reconciliation
  ) {
    // Changes collected, then written: the table is not copied under its own iteration.
    var changed: [(RollbackKey, RollbackEntry)] = []
    defer { for (key, entry) in changed { state.entries[key] = entry } }
    for (key, var entry) in state.entries {
      let asked = state.resimulatedStops[key]
      let stopped = entry.stoppedAt.flatMap { $0 >= from ? $0 : nil }
      guard asked != nil || stopped != nil, asked != stopped else { continue }
      if entry.stoppedAt.map({ $0 < from }) == true { continue }  // stopped before the rollback: final
      if let asked {
        entry.stoppedAt = asked
        silence(entry, from: asked)
        report.stopped += 1
      } else {
        entry.stoppedAt = nil
        if let voice = entry.voice, !voice.isFinished {
          voice.setVolume(entry.request.volume, tween: Tween(duration: settings.lateFadeIn))
        }
        report.unstopped += 1
      }
      changed.append((key, entry))
    }
  }

  /// Fades out a mispredicted sound, and withdraws its caption: it never happened.
  private func withdraw(_ voice: Voice?) {
    guard let voice, !voice.isFinished else { return }
    voice.isWithdrawn.store(true, ordering: .releasing)
    voice.stop(tween: settings.fadeOut)
  }

  /// Fades `entry`'s voice to silence from simulation frame `frame`, leaving it running.
  private func silence(_ entry: RollbackEntry, from frame: Int) {
    guard let voice = entry.voice, !voice.isFinished else { return }
    var fade = settings.fadeOut
    fade.start = .frame(engineFrame(of: frame))
    voice.setVolume(0, tween: fade)
  }
}
