internal import CFoleySDL2
import Dispatch
package import FoleySession

/// Losing the output device and getting one back, with every voice restored at the sample it had
/// reached.
extension MixerCore {
  /// Closes the (lost) device, keeping the voices, and tries to open the default device in the
  /// same format. Returns whether a device is open afterwards.
  package func replaceDevice() -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    guard isOpen else { return false }
    if hasDevice { closeDeviceKeepingVoices() }
    guard reopenDevice() else { return false }
    outputDeviceName.withLock { $0 = nil }  // a lost device is replaced by the default
    return true
  }

  /// With no device: one more attempt, for `SDL_AUDIODEVICEADDED`; never a retry loop. Returns
  /// whether this attempt opened a device (false when there already was one).
  package func retryDevice() -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    guard isOpen, !hasDevice else { return false }
    return reopenDevice()
  }

  private func closeDeviceKeepingVoices() {
    processFinishedChannels()
    for channel in table.occupiedChannels {
      guard let slot = table[channel], !slot.isReleasing else { continue }
      let frames = slot.sound.buffer.frames
      if slot.stream != nil {
        // A stream's place is in its ring, which waits untouched: the carrier just starts again.
        var kept = slot
        kept.chunkOffset = 0
        kept.loops = -1
        kept.ownedChunk = nil
        orphans.append(kept)
        continue
      }
      guard
        let (position, passesAfter) = RestorePoint.after(
          playedFrames: table.gains[channel].playedFrames, of: slot, soundFrames: frames)
      else {
        counters.activeVoices.subtract(1, ordering: .relaxed)
        slot.voice.setState(.finished)
        continue
      }
      var kept = slot
      kept.chunkOffset = position
      kept.loops = passesAfter
      kept.ownedChunk = nil  // freed with the channels below
      orphans.append(kept)
    }
    // Closing stops the channels without reporting them: they are kept, not finished.
    backend.close()
    for channel in table.occupiedChannels {
      if let slot = table[channel] {
        if let owned = slot.ownedChunk { backend.freeChunk(owned) }
        slot.sound.buffer.liveVoices.subtract(1, ordering: .relaxed)
      }
    }
    table.removeAll()
    releases.removeAll()
    backend.scheduleService(at: nil)
    hasDevice = false
    deviceID.store(0, ordering: .releasing)
  }

  /// Moves every voice to the output device `name` (nil: the default), each continuing at the
  /// frame it reached; if that device does not open, back to the one before (or the default).
  /// Returns the reason it did not open, nil when it did.
  package func switchDevice(to name: String?) -> SDLError? {
    dispatchPrecondition(condition: .onQueue(queue))
    guard isOpen else { return SDLError(operation: "switchOutput", message: "the engine is closed") }
    let previous = outputDeviceName.withLock { $0 }
    if hasDevice { closeDeviceKeepingVoices() }
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
      if hasWarnedAboutDevice {
        logger.info("still no audio device: \(error.message)")
      } else {
        hasWarnedAboutDevice = true
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
    hasDevice = true
    hasWarnedAboutDevice = false
    deviceID.store(backend.deviceID, ordering: .releasing)
    backend.connect(mixer: mixer)
    growChannels(
      to: max(1, min(max(configuration.initialChannels, orphans.count), configuration.maximumChannels)))
    var restored = 0
    for orphan in orphans.sorted(by: { $0.order < $1.order }) {
      if restore(orphan) {
        restored += 1
      } else {
        counters.activeVoices.subtract(1, ordering: .relaxed)
        orphan.voice.setState(.finished)
      }
    }
    orphans.removeAll()
    logger.info("audio device opened: \(reopened.driver), restored \(restored) voice(s)")
    return true
  }

  private func restore(_ orphan: Slot) -> Bool {
    guard let channel = freeChannel() else { return false }
    let paused = orphan.voice.state == .paused || orphan.sessionMode == .paused
    let position = orphan.chunkOffset
    let chunk = orphan.sound.buffer.chunk
    guard position > 0 else {
      return play(orphan, on: channel, chunk: chunk, loops: orphan.loops, paused: paused)
    }
    let offset = position * format.bytesPerFrame
    let length = chunk.byteCount
    let rest: MixChunk
    let loops: Int
    if orphan.loops < 0 {
      // Looping forever: a copy of the sound rotated to start here loops on seamlessly (a
      // separate chunk for the rest of the pass would leave a gap while the queue restarts it).
      guard let buffer = SDL_malloc(length) else { return false }
      buffer.copyMemory(from: chunk.samples + offset, byteCount: length - offset)
      (buffer + (length - offset)).copyMemory(from: chunk.samples, byteCount: offset)
      guard let rotated = MixChunk.owning(buffer, byteCount: length) else {
        SDL_free(buffer)
        return false
      }
      rest = rotated
      loops = -1
    } else {
      // Continue mid-sound: a chunk that views the rest of the sound's samples (no copy); the
      // whole passes still to play follow when it finishes.
      guard let view = MixChunk.view(of: chunk.samples + offset, byteCount: length - offset) else {
        return false
      }
      rest = view
      loops = 0
    }
    var slot = orphan
    slot.ownedChunk = rest
    guard play(slot, on: channel, chunk: rest, loops: loops, paused: paused) else {
      backend.freeChunk(rest)
      return false
    }
    return true
  }
}

/// Where a voice is within its sound after `playedFrames` frames on its current chunk: the frame
/// to continue from and the whole passes left after the current one (-1 for ever), or nil when it
/// has ended.
package enum RestorePoint {
  package static func after(playedFrames played: Int, of slot: Slot, soundFrames frames: Int) -> (Int, Int)? {
    guard frames > 0 else { return nil }
    if slot.chunkOffset == 0 {
      let passesDone = played / frames
      let passesAfter = slot.loops < 0 ? -1 : slot.loops - passesDone
      if slot.loops >= 0 && passesAfter < 0 { return nil }
      return (played % frames, passesAfter)
    }
    if slot.loops < 0 {
      // A rotated copy looping for ever: positions wrap.
      return ((slot.chunkOffset + played) % frames, -1)
    }
    let position = slot.chunkOffset + played
    if position < frames { return (position, slot.loops) }
    // The partial pass ended; the next whole pass starts from the beginning.
    return slot.loops == 0 ? nil : (0, slot.loops - 1)
  }
}
