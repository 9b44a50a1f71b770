import Dispatch
import FoleySession

/// The passes that send voices virtual and bring them back: after whatever changed a gain (a
/// start, a move, a volume, a bus, the session), without a budget a pass looks only at what
/// changed; with one it ranks every real voice and every virtual voice that could be heard, by
/// priority and then by loudness.
extension MixerCore {
  /// Sends voices nobody hears (or the budget leaves out) virtual, and brings back those heard
  /// again, if anything changed since the last pass.
  func rebalanceVoices() {
    guard state.virtual.needsPass, state.isOpen, state.hasDevice else { return }
    let full = state.virtual.needsFullPass
    state.virtual.needsPass = false
    state.virtual.needsFullPass = false
    let global = configuration.maximumAudibleVoices
    let limits = audibleLimits.withLock { $0 }
    let budgeted = global != nil || !limits.isEmpty
    let criticalBuses = budgeted ? buses.withLock { $0.critical } : []
    let silenceCounts = configuration.virtualizesInaudibleVoices
    var demote: [Int] = []
    var promote: [ObjectIdentifier] = []

    struct Entry {
      var priority: Int
      var score: Float
      var category: SoundCategory
      /// A critical cue: heard whatever the budget (it still takes a place in it).
      var isCritical: Bool
      var channel: Int
      var id: ObjectIdentifier?
      /// Breaks ties, so the same game ranks its voices the same way every run.
      var order: UInt64
    }
    var ranked: [Entry] = []
    // Real voices: the changed ones, or all of them when a budget ranks them.
    let channels = budgeted || full ? table.occupiedChannels : state.virtual.changedChannels
    state.virtual.changedChannels.removeAll(keepingCapacity: true)
    var stillFading: [Int] = []
    for channel in channels {
      // A voice fading to zero (a bus muted or soloed away over seconds) is heard to the end of
      // its fade: it goes virtual once its ramp reaches zero, when the gain stage wakes the queue
      // and this pass looks at it again.
      let fadesToZero =
        table.gains.indices.contains(channel) && table.gains[channel].target == (0, 0)
        && !table.gains[channel].isSilent
      // Each slot read where it lies: a copy retained and released each of its references, for
      // every moving positional voice every update.
      let verdict = table.update(channel) { slot -> (demotes: Bool, entry: Entry?) in
        guard mayGoVirtual(slot) else { return (false, nil) }
        let loudness = audibility(of: slot)
        if silenceCounts, loudness < Self.silentGain {
          // A voice whose own volume is tweened to zero is heard to the end of its tween (one
          // scheduled for a later frame, until that frame and through it).
          let levelFades =
            slot.voice.volume < Double(Self.silentGain) && table.gains.indices.contains(channel)
            && !table.gains[channel].isLevelSilent
          let waits = fadesToZero || levelFades
          if waits { stillFading.append(channel) }
          return (!waits, nil)
        }
        guard budgeted, slot.isCounted else { return (false, nil) }
        return (
          false,
          Entry(
            priority: slot.priority, score: loudness * Self.heardBonus, category: slot.category,
            isCritical: slot.sound.settings.isCriticalCue || criticalBuses.contains(slot.category),
            channel: channel,
            order: slot.voice.id)
        )
      }
      guard let verdict else { continue }
      if verdict.demotes {
        demote.append(channel)
      } else if let entry = verdict.entry {
        ranked.append(entry)
      }
    }
    if !stillFading.isEmpty {
      state.virtual.changedChannels += stillFading
      state.virtual.needsPass = true
    }
    // Virtual voices that may be heard again, oldest first: a set's order changes from run to
    // run (hashing is seeded per process), and the order voices come back in picks their
    // channels, and so the order the mix adds them in. An offline render must give the same
    // bytes every run.
    var candidates: [(id: ObjectIdentifier, entry: VirtualVoice)] = []
    for id in state.virtual.candidates {
      guard let entry = state.virtual.voices[id], !entry.isFrozen, entry.slot.voice.state == .playing,
        entry.slot.sessionMode != .paused
      else {
        state.virtual.candidates.remove(id)
        continue
      }
      candidates.append((id, entry))
    }
    candidates.sort { $0.entry.slot.voice.id < $1.entry.slot.voice.id }
    for (id, entry) in candidates {
      let loudness = audibility(of: entry.slot)
      if silenceCounts, loudness < Self.audibleGain {
        state.virtual.candidates.remove(id)  // until its gain changes again
      } else if budgeted, entry.slot.isCounted {
        ranked.append(
          Entry(
            priority: entry.slot.priority, score: loudness, category: entry.slot.category,
            isCritical: entry.slot.sound.settings.isCriticalCue
              || criticalBuses.contains(entry.slot.category),
            channel: -1, id: id,
            order: entry.slot.voice.id))
      } else {
        promote.append(id)
      }
    }
    if budgeted {
      // Critical cues first: they are heard whatever the budget, and take their places in it.
      ranked.sort {
        $0.isCritical != $1.isCritical
          ? $0.isCritical
          : $0.priority != $1.priority
            ? $0.priority > $1.priority : $0.score != $1.score ? $0.score > $1.score : $0.order < $1.order
      }
      var heard = 0
      var heardOnBus: [SoundCategory: Int] = [:]
      for entry in ranked {
        let fits =
          (global.map { heard < $0 } ?? true)
          && (limits[entry.category].map { heardOnBus[entry.category, default: 0] < $0 } ?? true)
        if fits || entry.isCritical {
          heard += 1
          heardOnBus[entry.category, default: 0] += 1
          if let id = entry.id { promote.append(id) }
        } else if entry.id == nil {
          demote.append(entry.channel)
        }
      }
    }
    for channel in demote { virtualize(channel: channel) }
    for id in promote where revive(id) { state.virtual.candidates.remove(id) }
  }

  /// Whether the voice on a channel could go virtual: playing, not paused by the session, not
  /// releasing; sounds that limit their instances stay real. Streams go virtual only unheard:
  /// they do not count against the budget.
  private func mayGoVirtual(_ slot: Slot) -> Bool {
    (slot.isCounted ? !slot.isLimited : slot.stream != nil) && !slot.isReleasing
      && slot.voice.state == .playing && slot.sessionMode != .paused
  }

  /// Takes the voice on `channel` off it: it remembers where its lane is (read under the audio
  /// lock, with the mix frame that position is heard on), and the channel ramps out and is
  /// halted like a stopped voice's.
  func virtualize(channel: Int) {
    if let slot = table[channel], slot.stream != nil {
      guard mayGoVirtual(slot) else { return }
      // Its ring goes on being read by the lane while it ramps out; its clock starts where the
      // lane stops (``streamLaneEnded(_:)``).
      release(channel: channel, fadeOut: 0, voiceGoesOn: true)
      keepVirtual(VirtualVoice(slot: slot, anchor: 0, awaitsLaneEnd: true))
      scheduleFallbackWake()
      return
    }
    guard let slot = table[channel], mayGoVirtual(slot) else { return }
    // A seek the mix has not taken yet is where the voice goes on from; its modulators keep
    // the frame they started on, so an envelope or an LFO goes on where it was on its return.
    let gain = table.gains[channel]
    let (read, seek, origins) = backend.withAudioLock {
      (mixer.progress(of: channel), slot.voice.seekRequest.load(ordering: .relaxed), gain.modulatorOrigins)
    }
    let last = slot.sound.buffer.frames - 1
    guard let progress = read, progress.hasStarted,
      (seek >= 0 && last >= 0) || progress.frame < slot.sound.buffer.frames || progress.loops != 0
    else { return }
    var kept = slot
    kept.position = seek >= 0 ? min(seek, last) : progress.frame
    kept.loops = progress.loops
    if seek >= 0 {
      _ = slot.voice.seekRequest.compareExchange(expected: seek, desired: -1, ordering: .relaxed)
    }
    release(channel: channel, fadeOut: 0, voiceGoesOn: true)
    keepVirtual(VirtualVoice(slot: kept, anchor: progress.clock, modulatorOrigins: origins))
    scheduleFallbackWake()
  }

  /// Puts a virtual voice back on a channel, starting a device buffer ahead of the mix at the
  /// frame its clock will have reached, its gain ramping up from silence. False when there is
  /// no channel for it (it stays virtual).
  func revive(_ id: ObjectIdentifier) -> Bool {
    guard let entry = state.virtual.voices[id] else { return true }
    if entry.slot.stream != nil { return reviveStream(id, entry) }
    guard table.countedVoices < configuration.maximumChannels, let channel = freeChannel() else {
      return false
    }
    let slot = entry.slot
    if slot.voice.needsShaper.load(ordering: .relaxed) { ensureShaper(on: channel) }
    var placed = slot
    return bringBack(id, on: channel, name: slot.sound.name) { target in
      guard let (frame, loops) = place(of: entry, at: target) else {
        // Its clock ran out while it was virtual.
        finishVirtual(slot.voice)
        return nil
      }
      placed.position = frame
      placed.loops = loops
      return (
        LaneStart(
          chunk: slot.sound.buffer.chunk, loops: loops, gain: table.gains[channel], stream: nil,
          voice: slot.voice, bus: queueBus(for: slot.category), paused: false, startFrame: target,
          position: frame), placed
      )
    }
  }

  /// Arms `channel` for a voice coming back: on a frame a device buffer ahead of the mix (or its
  /// anchor, if later), whose lane and slot `prepare` gives (nil: the voice ended while
  /// virtual), again on a later frame if the mix got there first. Then the voice leaves the
  /// virtual ones and its gain ramps up from silence. False when the mixer refused (it stays
  /// virtual).
  func bringBack(
    _ id: ObjectIdentifier, on channel: Int, name: String, prepare: (UInt64) -> (LaneStart, Slot)?
  ) -> Bool {
    let gain = table.gains[channel]
    gain.reset(left: 0, right: 0)
    var placed: Slot
    while true {
      let reached = mixer.framesMixed.load(ordering: .acquiring)
      let target = max(reached &+ UInt64(format.bufferFrames), state.virtual.voices[id]?.anchor ?? 0)
      guard let (start, slot) = prepare(target) else {
        table.giveBack(channel)
        return true
      }
      placed = slot
      placed.isChannelPaused = start.paused
      // Before the lane is armed (the mix reads it): its volume, or a tween's, from where it got to.
      startLevel(of: slot.voice, on: gain)
      if let origins = state.virtual.voices[id]?.modulatorOrigins { gain.restoreModulatorOrigins(origins) }
      do {
        // Nil: the mix reached `target` before the lane was armed; pick a later frame.
        if try backend.play(start, on: channel) != nil { break }
      } catch {
        logger.error("cannot bring back '\(name)': \(error.message)")
        table.giveBack(channel)
        return false
      }
    }
    _ = forgetVirtual(id)
    placed.sound.buffer.liveVoices.add(1, ordering: .relaxed)
    table.place(placed, on: channel)
    let (left, right) = channelGains(for: placed)
    gain.setTarget(left: left, right: right, step: declickStep)
    return true
  }
}
