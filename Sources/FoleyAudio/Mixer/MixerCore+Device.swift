import Dispatch
import FoleyCore

/// Losing the output device and getting one back, with every voice restored at the sample it had
/// reached.
extension MixerCore {
  /// Closes the (lost) device, keeping the voices, and tries to open the default device in the
  /// same format. Returns whether a device is open afterwards.
  func replaceDevice() -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    guard state.isOpen else { return false }
    if state.hasDevice { closeDeviceKeepingVoices() }
    guard reopenDevice() else { return false }
    outputDeviceName.withLock { $0 = nil }  // a lost device is replaced by the default
    return true
  }

  /// With no device: one more attempt, for `SDL_AUDIODEVICEADDED`; never a retry loop. Returns
  /// whether this attempt opened a device (false when there already was one).
  func retryDevice() -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    guard state.isOpen, !state.hasDevice else { return false }
    return reopenDevice()
  }

  private func closeDeviceKeepingVoices() {
    processFinishedChannels()
    // Each kept voice keeps the placement the game gave it last.
    stopFollowingAll()
    // Where every lane is, read at one instant of the mix.
    let channels = table.occupiedChannels
    let progress = backend.withAudioLock { channels.map { mixer.progress(of: $0) } }
    for (channel, progress) in zip(channels, progress) {
      guard var kept = table[channel], !kept.isReleasing else { continue }
      if kept.stream != nil {
        // A stream's place is in its ring, which waits untouched: the carrier just starts again.
        kept.loops = -1
        state.orphans.append(kept)
        continue
      }
      guard let progress else {
        // Its lane ended before the device went; nobody collected it yet.
        counters.activeVoices.subtract(1, ordering: .relaxed)
        kept.voice.setState(.finished)
        continue
      }
      if progress.hasStarted {
        guard progress.frame < kept.sound.buffer.frames || progress.loops != 0 else {
          counters.activeVoices.subtract(1, ordering: .relaxed)
          kept.voice.setState(.finished)
          continue
        }
        kept.position = progress.frame
        kept.loops = progress.loops
      }
      state.orphans.append(kept)
    }
    // Closing stops the channels without reporting them: they are kept, not finished.
    backend.close()
    for channel in table.occupiedChannels {
      guard let slot = table[channel] else { continue }
      slot.sound.buffer.liveVoices.subtract(1, ordering: .relaxed)
      // A stream on its way to virtual: its lane went with the device.
      if slot.isReleasing, slot.stream != nil, slot.voice.isVirtual { streamLaneEnded(slot.voice) }
    }
    table.removeAll()
    state.releases.removeAll()
    backend.scheduleService(at: nil)
    state.hasDevice = false
    deviceID.store(0, ordering: .releasing)
  }

  /// Moves every voice to the output device `name` (nil: the default), each continuing at the
  /// frame it reached; if that device does not open, back to the one before (or the default).
  /// Returns the reason it did not open, nil when it did.
  func switchDevice(to name: String?) -> SDLError? {
    dispatchPrecondition(condition: .onQueue(queue))
    guard state.isOpen else { return SDLError(operation: "switchOutput", message: "the engine is closed") }
    let previous = outputDeviceName.withLock { $0 }
    if state.hasDevice { closeDeviceKeepingVoices() }
    var failure: SDLError?
    if reopenDevice(named: name, onFailure: { failure = $0 }) {
      outputDeviceName.withLock { $0 = name }
      return nil
    }
    if !reopenDevice(named: previous), previous != nil, reopenDevice(named: nil) {
      outputDeviceName.withLock { $0 = nil }
    }
    return failure ?? SDLError(operation: "switchOutput", message: "the device did not open")
  }

  private func reopenDevice(named name: String? = nil, onFailure: (SDLError) -> Void = { _ in }) -> Bool {
    let reopened: AudioDeviceFormat
    do {
      reopened = try backend.open(configuration, deviceName: name)
    } catch {
      onFailure(error)
      if state.hasWarnedAboutDevice {
        logger.info("still no audio device: \(error.message)")
      } else {
        state.hasWarnedAboutDevice = true
        logger.warning("no audio device opens (\(error.message)); silent until a device is added")
      }
      return false
    }
    guard reopened.sampleRate == format.sampleRate, reopened.channels == format.channels,
      reopened.sampleFormat == format.sampleFormat
    else {
      logger.error("the new audio device opened as \(reopened), not \(format); staying silent")
      onFailure(
        SDLError(operation: "Mix_OpenAudioDevice", message: "it opened as \(reopened), not \(format)"))
      backend.close()
      return false
    }
    state.hasDevice = true
    state.hasWarnedAboutDevice = false
    deviceID.store(backend.deviceID, ordering: .releasing)
    backend.connect(mixer: mixer)
    growChannels(
      to: max(1, min(max(configuration.initialChannels, state.orphans.count), configuration.maximumChannels)))
    var restored = 0
    for orphan in state.orphans.sorted(by: { $0.order < $1.order }) {
      if restore(orphan) {
        restored += 1
      } else {
        counters.activeVoices.subtract(1, ordering: .relaxed)
        orphan.voice.setState(.finished)
      }
    }
    state.orphans.removeAll()
    logger.info("audio device opened: \(reopened.driver), restored \(restored) voice(s)")
    return true
  }

  /// Puts a kept voice on a channel, continuing at its `position` (a lane can start mid-sound,
  /// and a voice looping for ever simply goes round from there).
  private func restore(_ orphan: Slot) -> Bool {
    guard let channel = freeChannel() else { return false }
    let paused = orphan.voice.state == .paused || orphan.sessionMode == .paused
    guard play(orphan, on: channel, chunk: orphan.sound.buffer.chunk, loops: orphan.loops, paused: paused)
    else {
      table.giveBack(channel)
      return false
    }
    return true
  }
}
