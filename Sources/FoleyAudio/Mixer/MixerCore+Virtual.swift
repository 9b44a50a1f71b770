import Dispatch
import FoleySession

/// A voice playing without a channel: where it was in its sound, and on which mix frame.
struct VirtualVoice {
  /// Its slot as it would go back on a channel: `position` and `loops` are where it was at
  /// `anchor`.
  var slot: Slot
  /// The mix frame on which it was at `slot.position`. For a stream: the mix frame through
  /// which its ring has been read.
  var anchor: UInt64
  /// Paused (by the game or the session): time does not move it.
  var isFrozen = false
  /// A stream whose released channel may still be mixing it (its ramp out): until the channel
  /// is collected the mixing thread reads the stream, and the queue must not.
  var awaitsLaneEnd = false
  /// The frames its modulators started on when it left its channel (``ChannelGain/modulatorOrigins``):
  /// back on one, an envelope or an oscillator goes on where its clock has reached, not from
  /// its start.
  var modulatorOrigins: ModulatorOrigins?
}

/// The virtual voices and what the next pass must look at (queue-owned).
struct VirtualVoices {
  var voices: [ObjectIdentifier: VirtualVoice] = [:]
  /// Virtual voices that may be heard again: their gain changed since the last pass, or the
  /// budget left them out.
  var candidates: Set<ObjectIdentifier> = []
  /// Channels whose voice's gain changed since the last pass.
  var changedChannels: [Int] = []
  /// Virtual voices that end (not looping for ever); they finish when their clock says so.
  var ending: Set<ObjectIdentifier> = []
  /// Virtual streams (music, speech): the queue reads their rings on at the mix's pace.
  var streams: Set<ObjectIdentifier> = []
  /// Where a virtual stream's unheard frames are read to (queue-owned, made on first use).
  var scratch: UnsafeMutableRawPointer?
  static let scratchBytes = 32_768
  var needsPass = false
  /// Whether every real voice is ranked at the next pass (a budget applies and something that
  /// ranks them changed), not only the changed ones.
  var needsFullPass = false
}

/// Where a voice is in its sound `elapsed` frames after it was at `frame` with `loops` whole
/// passes after the current one (-1: for ever); nil when it has ended by then.
enum VirtualClock {
  package static func advance(
    frame: Int, loops: Int, by elapsed: Int, frames: Int
  ) -> (frame: Int, loops: Int)? {
    guard frames > 0 else { return nil }
    let position = frame + max(0, elapsed)
    if position < frames { return (position, loops) }
    let beyond = position - frames
    if loops < 0 { return (beyond % frames, -1) }
    let passesBegun = beyond / frames + 1
    guard passesBegun <= loops else { return nil }
    return (beyond % frames, loops - passesBegun)
  }
}

/// Virtual voices: a voice nobody can hear, or that the voice budget leaves out, gives its
/// channel back and keeps its place in time; when it ranks again it goes back on a channel at
/// the frame its clock has reached, ramped in over the de-click time.
///
/// Passes run on the queue after whatever changed a gain (a start, a move, a volume, a bus, the
/// session). Without a budget a pass looks only at what changed; with one it ranks every real
/// voice and every virtual voice that could be heard, by priority and then by loudness.
extension MixerCore {
  /// Below -80 dB a voice is not heard; a virtual one comes back above -74 dB (hysteresis).
  static let silentGain: Float = 1e-4
  static let audibleGain: Float = 2e-4
  /// A voice already heard ranks 3 dB louder than it is, so one at the budget's edge does not flap.
  static let heardBonus: Float = 1.4125

  var hasVoiceBudget: Bool {
    configuration.maximumAudibleVoices != nil || !audibleLimits.withLock { $0.isEmpty }
  }

  /// How loud `slot` is heard: the louder side of its gain pair.
  func audibility(of slot: Slot) -> Float {
    let (left, right) = gainPair(for: slot)
    return max(left, right) * Float(state.appliedBuses.faderGain(for: slot.category))
  }

  /// Whether a voice about to start goes straight to virtual: silent, or beyond the budget.
  /// Sounds that limit their instances never go virtual (their limit counts real voices).
  func startsVirtual(_ slot: Slot) -> Bool {
    guard slot.isCounted, !slot.isLimited else { return false }
    if configuration.virtualizesInaudibleVoices, audibility(of: slot) < Self.silentGain { return true }
    // A critical cue is heard whatever the budget.
    guard !slot.sound.settings.isCriticalCue, let budget = configuration.maximumAudibleVoices,
      !buses.withLock({ $0.critical.contains(slot.category) })
    else {
      return false
    }
    return table.countedVoices >= budget
  }

  /// Starts `slot` without a channel, on its scheduled frame or the next one mixed.
  func startVirtual(_ slot: Slot) {
    let voice = slot.voice
    let reached = mixer.framesMixed.load(ordering: .acquiring)
    let scheduled = voice.schedule.take()
    let anchor = max(scheduled?.frame ?? 0, reached)
    scheduled?.willStart?(anchor)
    voice.noteStart(atFrame: anchor)
    keepVirtual(VirtualVoice(slot: slot, anchor: anchor))
    state.virtual.candidates.insert(ObjectIdentifier(voice))
    state.virtual.needsPass = true
    voice.setState(.playing)
    counters.bump(.started)
    counters.voiceStarted()
  }

  func keepVirtual(_ entry: VirtualVoice) {
    let voice = entry.slot.voice
    let id = ObjectIdentifier(voice)
    state.virtual.voices[id] = entry
    if entry.slot.stream != nil {
      state.virtual.streams.insert(id)
    } else if entry.slot.loops >= 0 {
      state.virtual.ending.insert(id)
    }
    entry.slot.sound.buffer.liveVoices.add(1, ordering: .relaxed)
    voice.channel = -1
    voice.setVirtual(true)
    counters.virtualVoices.add(1, ordering: .relaxed)
    counters.virtualizations.add(1, ordering: .relaxed)
  }

  /// Takes `voice` out of the virtual voices (it goes back on a channel, or ends).
  func forgetVirtual(_ id: ObjectIdentifier) -> VirtualVoice? {
    guard let entry = state.virtual.voices.removeValue(forKey: id) else { return nil }
    state.virtual.ending.remove(id)
    state.virtual.streams.remove(id)
    state.virtual.candidates.remove(id)
    entry.slot.sound.buffer.liveVoices.subtract(1, ordering: .relaxed)
    entry.slot.voice.setVirtual(false)
    counters.virtualVoices.subtract(1, ordering: .relaxed)
    return entry
  }

  /// The virtual voice `voice` is, if it is one.
  func virtualEntry(of voice: Voice) -> VirtualVoice? {
    guard voice.isVirtual else { return nil }
    return state.virtual.voices[ObjectIdentifier(voice)]
  }

  /// Ends a virtual voice for good (stopped, or its clock ran out).
  func finishVirtual(_ voice: Voice) {
    guard forgetVirtual(ObjectIdentifier(voice)) != nil else { return }
    counters.activeVoices.subtract(1, ordering: .relaxed)
    voice.setState(.finished)
  }

  /// Where a virtual voice is on mix frame `frame`: its sound frame and the whole passes after.
  func place(of entry: VirtualVoice, at frame: UInt64) -> (frame: Int, loops: Int)? {
    let slot = entry.slot
    guard !entry.isFrozen, frame > entry.anchor else { return (slot.position, slot.loops) }
    let advanced = sourceFrames(of: slot.voice, in: Int(frame &- entry.anchor))
    return VirtualClock.advance(
      frame: slot.position, loops: slot.loops, by: advanced, frames: slot.sound.buffer.frames)
  }

  /// The source frames a virtual voice plays in `elapsed` mix frames: at rate 1 exactly those;
  /// a shaped voice advances by its rate (and doppler) as it is now.
  func sourceFrames(of voice: Voice, in elapsed: Int) -> Int {
    let rate = Double(
      RampRequest(packed: voice.rateRequest.value).target
        * RampRequest(packed: voice.dopplerRequest.value).target)
    return rate == 1 ? elapsed : Int((Double(elapsed) * max(0, rate)).rounded())
  }

  /// Stops (or restarts) a virtual voice's clock: it pauses or resumes.
  func setFrozen(_ voice: Voice, _ frozen: Bool) {
    let id = ObjectIdentifier(voice)
    guard var entry = state.virtual.voices[id], entry.isFrozen != frozen else { return }
    let reached = mixer.framesMixed.load(ordering: .acquiring)
    if entry.slot.stream != nil {
      // A stream's place is its ring: read on to now, then hold still; resumed, it goes on from
      // the mix frame it resumes on.
      if frozen {
        guard advanceStream(id, to: reached), let advanced = state.virtual.voices[id] else { return }
        entry = advanced
      } else {
        entry.anchor = max(entry.anchor, reached)
        state.virtual.candidates.insert(id)
        state.virtual.needsPass = true
      }
      entry.isFrozen = frozen
      state.virtual.voices[id] = entry
      scheduleFallbackWake()
      return
    }
    if frozen {
      guard let (frame, loops) = place(of: entry, at: reached) else {
        finishVirtual(voice)
        return
      }
      entry.slot.position = frame
      entry.slot.loops = loops
      entry.isFrozen = true
    } else {
      entry.anchor = reached
      entry.isFrozen = false
      state.virtual.candidates.insert(id)
      state.virtual.needsPass = true
    }
    state.virtual.voices[id] = entry
  }

  /// Marks what changed for the next pass: `voice`'s gain (real or virtual).
  func gainChanged(_ voice: Voice, channel: Int?) {
    if let channel {
      state.virtual.changedChannels.append(channel)
    } else if voice.isVirtual {
      state.virtual.candidates.insert(ObjectIdentifier(voice))
    } else {
      return
    }
    state.virtual.needsPass = true
  }

  /// Marks every voice of `category` (nil: all) changed: a bus, the session, a budget.
  func allGainsChanged(category: SoundCategory?) {
    for (id, entry) in state.virtual.voices where category == nil || entry.slot.category == category {
      state.virtual.candidates.insert(id)
    }
    state.virtual.needsPass = true
    state.virtual.needsFullPass = true
  }

  /// Ends the virtual voices whose clock has run out by now.
  func expireVirtualVoices() {
    guard !state.virtual.ending.isEmpty else { return }
    let reached = mixer.framesMixed.load(ordering: .acquiring)
    for id in state.virtual.ending {
      guard let entry = state.virtual.voices[id], place(of: entry, at: reached) == nil else { continue }
      finishVirtual(entry.slot.voice)
    }
  }

  /// When the first virtual voice that ends will have ended (uptime ns), for the fallback wake.
  var earliestVirtualEnd: UInt64? {
    guard !state.virtual.ending.isEmpty else { return nil }
    let reached = mixer.framesMixed.load(ordering: .acquiring)
    var earliest: UInt64?
    for id in state.virtual.ending {
      guard let entry = state.virtual.voices[id], !entry.isFrozen else { continue }
      let frames = entry.slot.sound.buffer.frames
      let left = (frames - entry.slot.position) + max(0, entry.slot.loops) * frames
      let end = entry.anchor &+ UInt64(max(0, left))
      earliest = min(earliest ?? end, end)
    }
    guard let earliest else { return nil }
    let ahead = earliest > reached ? Double(earliest - reached) / Double(format.sampleRate) : 0
    return now &+ UInt64((ahead + format.bufferDuration) * 1e9)
  }
}
