import Dispatch
import Foundation

/// Streamed voices (music): an ordinary voice on an ordinary channel, whose chunk is a silent
/// carrier that loops for ever and whose first effect writes the stream over it. Everything the
/// core does to voices (session pauses and ducking, buses, de-click ramps, device restore)
/// applies unchanged; streams are never stolen and do not count against the voice cap or the
/// voice budget. One nobody can hear goes virtual like any voice (`MixerCore+Virtual.swift`).
extension MixerCore {
  /// A voice for a stream, not yet started: ``startStream(_:effect:category:)`` starts it once
  /// its ring is filled. Stopping it before then means it never starts.
  func makeStreamVoice(volume: Double) -> Voice {
    counters.bump(.requested)
    let id = counters.takeVoiceID()
    return Voice(id: id, core: self, state: .pending, volume: volume.clamped(to: 0...1, or: 1), pan: 0)
  }

  /// Starts `voice` playing `effect`'s stream on a channel of `category`'s bus (paused, as if
  /// the game had paused it, with `paused`). Unlike a sound, a stream started while its category
  /// is paused by the session is not dropped: it starts paused, and plays when the session comes
  /// back (music the game asked for while unfocused is music it expects to hear).
  ///
  /// `onStart` runs on the queue right before the channel starts (or when it cannot): a
  /// crossfade starts its outgoing half there, so both halves begin in the same mix buffer.
  package func startStream(
    _ voice: Voice, effect: StreamEffect, category: SoundCategory, paused: Bool,
    onStart: @escaping @Sendable () -> Void = {}
  ) {
    queue.async { [self] in
      defer { onStart() }
      guard state.isOpen, voice.state == .pending else {
        if voice.state == .pending { finish(voice, counting: .failed) }
        return
      }
      processFinishedChannels()
      guard let carrier = carrier(for: category) else {
        logger.error("out of memory for a music stream's carrier")
        finish(voice, counting: .failed)
        return
      }
      state.startOrder += 1
      let slot = Slot(
        voice: voice, sound: carrier, order: state.startOrder, loops: -1,
        sessionMode: mode(for: category), stream: effect)
      guard state.hasDevice else {
        // No device: the stream waits with the other voices for one to be added.
        state.orphans.append(slot)
        voice.setState(paused ? .paused : .playing)
        counters.bump(.started)
        counters.voiceStarted()
        return
      }
      guard let channel = freeChannel() else {
        logger.error("no mixer channel for a music stream")
        finish(voice, counting: .failed)
        return
      }
      guard
        play(
          slot, on: channel, chunk: slot.sound.buffer.chunk, loops: -1,
          paused: paused || slot.sessionMode == .paused)
      else {
        table.giveBack(channel)
        finish(voice, counting: .failed)
        return
      }
      voice.setState(paused ? .paused : .playing)
      counters.bump(.started)
      counters.voiceStarted()
      // A stream nobody can hear (its bus muted, its volume 0) goes virtual, at the pass the
      // wake brings: not here, between the start and `onStart`, where a crossfade's outgoing
      // half must be asked to fade in the same mix buffer.
      gainChanged(voice, channel: channel)
      inbox.wake.signal()
    }
  }

  /// Halts the channels whose stream has ended and been heard out, or finished fading out: the
  /// stream effect raised the wake signal when it did.
  func haltDrainedStreams() {
    guard table.streamChannels > 0 else { return }
    var halted = false
    for channel in table.streamChannelList {
      guard let stream = table[channel]?.stream, stream.drained.load(ordering: .acquiring) else { continue }
      state.releases.cancel(on: channel)
      backend.halt(channel)
      halted = true
    }
    if halted { processFinishedChannels() }
  }

  /// The silent chunk streams of `category` loop: a ``Sound`` like any other, so the slot's
  /// settings (the category's bus and session policy) apply to the stream.
  private func carrier(for category: SoundCategory) -> Sound? {
    if let carrier = state.carriers[category] { return carrier }
    // Long enough that SDL_mixer rarely splits a buffer at the loop point.
    guard let sound = library.silentSound(frames: max(4_096, format.bufferFrames * 4), category: category)
    else {
      return nil
    }
    state.carriers[category] = sound
    return sound
  }
}
