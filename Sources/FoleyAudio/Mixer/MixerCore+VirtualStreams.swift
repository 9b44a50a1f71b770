import Dispatch

/// Virtual streams (music, speech): a stream's place is its ring, so while it is virtual the
/// queue reads the ring on at the mix's pace and throws the frames away (fades, seeks, holds and
/// the end taken as the mix would), and coming back the lane starts on the frame the ring was
/// read to.
extension MixerCore {
  /// A virtual stream's released channel was collected: the mixing thread is done with it, and
  /// its clock starts on the mix frame after the last it was played on.
  func streamLaneEnded(_ voice: Voice) {
    let id = ObjectIdentifier(voice)
    guard var entry = state.virtual.voices[id], entry.awaitsLaneEnd, let stream = entry.slot.stream else {
      return
    }
    entry.awaitsLaneEnd = false
    // Never played (it went virtual before its first buffer): it starts when it would have.
    let reached = mixer.framesMixed.load(ordering: .acquiring)
    entry.anchor = stream.mixedThrough ?? max(reached, UInt64(clamping: voice.startFrame?.index ?? 0))
    state.virtual.voices[id] = entry
    state.virtual.needsPass = true
    scheduleFallbackWake()
  }

  /// Reads every virtual stream on to the mix frame reached.
  func advanceVirtualStreams() {
    guard !state.virtual.streams.isEmpty else { return }
    let reached = mixer.framesMixed.load(ordering: .acquiring)
    for id in Array(state.virtual.streams) { advanceStream(id, to: reached) }
  }

  /// Reads a virtual stream on to mix frame `frame`, as the mix would have played it (at its
  /// rate, as it is now). Returns false when the stream is over (it finished) or gone.
  @discardableResult
  func advanceStream(_ id: ObjectIdentifier, to frame: UInt64) -> Bool {
    guard var entry = state.virtual.voices[id], let stream = entry.slot.stream else { return false }
    guard !entry.awaitsLaneEnd, !entry.isFrozen, frame > entry.anchor else { return true }
    let voice = entry.slot.voice
    let frames = sourceFrames(of: voice, in: Int(clamping: frame &- entry.anchor))
    let scratch: UnsafeMutableRawPointer
    if let kept = state.virtual.scratch {
      scratch = kept
    } else {
      scratch = UnsafeMutableRawPointer.allocate(byteCount: VirtualVoices.scratchBytes, alignment: 16)
      state.virtual.scratch = scratch
    }
    stream.discard(frames: frames, scratch: scratch, capacity: VirtualVoices.scratchBytes)
    stream.noteMixed(through: frame)
    entry.anchor = frame
    state.virtual.voices[id] = entry
    guard !stream.drained.load(ordering: .acquiring) else {
      finishVirtual(voice)
      return false
    }
    return true
  }

  /// Puts a virtual stream back on a channel: its ring is read on to a device buffer ahead of
  /// the mix, and the lane starts on that frame, ramping up from silence.
  func reviveStream(_ id: ObjectIdentifier, _ entry: VirtualVoice) -> Bool {
    guard !entry.awaitsLaneEnd else { return false }
    guard let stream = entry.slot.stream, let channel = freeChannel() else { return false }
    ensureShaper(on: channel)
    var placed = entry.slot
    placed.loops = -1
    placed.position = 0
    return bringBack(id, on: channel, name: "a stream") { target in
      // False: it ended while virtual (its voice finished).
      guard advanceStream(id, to: target) else { return nil }
      return (
        LaneStart(
          chunk: placed.sound.buffer.chunk, loops: -1, gain: table.gains[channel], stream: stream,
          voice: placed.voice, bus: queueBus(for: placed.category), paused: false, startFrame: target,
          position: 0), placed
      )
    }
  }

  /// When the virtual streams must next be read on (uptime ns), if any is moving: a ring holds
  /// half a second and the filler tops it up every 20 ms, so reading every 20 ms keeps it flowing.
  var nextVirtualStreamRead: UInt64? {
    for id in state.virtual.streams where state.virtual.voices[id]?.isFrozen == false {
      return now &+ 20_000_000
    }
    return nil
  }
}
