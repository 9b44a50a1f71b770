import Dispatch

/// The core's life on its queue: connecting the mix when the engine opens, and halting every
/// channel, failing what still waits and closing the mixer when it closes.
extension MixerCore {
  /// Connects the mix and allocates the first channels. Called once, on the queue.
  package func start() {
    dispatchPrecondition(condition: .onQueue(queue))
    guard state.hasDevice else { return }
    deviceID.store(backend.deviceID, ordering: .releasing)
    backend.connect(mixer: mixer)
    growChannels(to: max(1, min(configuration.initialChannels, configuration.maximumChannels)))
  }

  /// Halts every channel and closes the mixer. Called once, on the queue.
  package func shutDown() {
    dispatchPrecondition(condition: .onQueue(queue))
    guard state.isOpen else { return }
    _ = stopCapture(reason: "engine closed")
    state.isOpen = false
    backend.scheduleService(at: nil)
    if state.hasDevice {
      for channel in table.occupiedChannels { backend.halt(channel) }
      processFinishedChannels()
    }
    let waiting = requests.withLock { pending in
      // The kept voices hold this core: let them go, and keep none from now on.
      pending.voices.removeAll()
      return pending.take().plays
    }
    for request in waiting {
      finish(request.voice, counting: .failed)
      request.retainedVoice.release()
    }
    for waiting in state.awaitingDecode.values.joined() { finish(waiting.voice, counting: .failed) }
    state.awaitingDecode.removeAll()
    for orphan in state.orphans { orphan.voice.setState(.finished) }
    state.orphans.removeAll()
    for entry in state.virtual.voices.values { finishVirtual(entry.slot.voice) }
    state.virtual.scratch?.deallocate()
    state.virtual.scratch = nil
    if state.hasDevice { backend.close() }
    backend.detach()
    state.hasDevice = false
    deviceID.store(0, ordering: .releasing)
    table.removeAll()
    state.releases.removeAll()
  }
}
