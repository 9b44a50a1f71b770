import Dispatch

/// What the mix reports: finished channels, ramps that reached silence, and the fallback wake
/// while a ramp (or a virtual voice's end) is due.
extension MixerCore {
  /// Runs when the mix signals (a channel finished, a ramp reached silence) or a fallback
  /// deadline passes.
  package func service() {
    dispatchPrecondition(condition: .onQueue(queue))
    _ = inbox.wake.takePending()
    guard state.isOpen, state.hasDevice else { return }
    processFinishedChannels()
    let due = state.releases.takeDue(now: now, mixed: mixer.framesMixed.load(ordering: .acquiring)) {
      table.gains[$0].isSilent
    }
    for operation in due {
      switch operation.kind {
      case .halt: backend.halt(operation.channel)
      case .pause:
        setChannelPaused(operation.channel, true)
        // A paused stream gives back what it played silent after its ramp: it resumes at the
        // first sample that was not heard. (The channel is paused, so its effect is not running.)
        if let stream = table[operation.channel]?.stream {
          stream.rewind(frames: table.gains[operation.channel].framesMutedSinceSilent)
        }
      }
    }
    if !due.isEmpty { processFinishedChannels() }
    haltDrainedStreams()
    advanceVirtualStreams()
    expireVirtualVoices()
    rebalanceVoices()
    scheduleFallbackWake()
  }

  /// Asks the backend for one wake at the earliest deadline of a ramp under way, or none.
  func scheduleFallbackWake() {
    var earliest = state.releases.earliestDeadline
    if let end = earliestVirtualEnd { earliest = min(earliest ?? end, end) }
    if let read = nextVirtualStreamRead { earliest = min(earliest ?? read, read) }
    backend.scheduleService(at: earliest)
  }

  /// Applies what the mix reported finished since the last look.
  func processFinishedChannels() {
    // Emptied from the end, its storage kept (`removeAll(keepingCapacity:)` replaces the whole
    // range, through generic code, and a stolen trigger at the cap makes one call).
    while !state.finishedChannels.isEmpty { state.finishedChannels.removeLast() }
    if inbox.drain(into: &state.finishedChannels) {
      // Reports were lost to a full inbox: ask the mixer about every busy channel.
      state.finishedChannels += table.occupiedChannels.filter { !backend.isPlaying($0) }
    }
    for channel in state.finishedChannels where channel < table.channelCount { channelFinished(channel) }
  }
}
