import Foundation

/// The mix's structure as the queue keeps it: which bus each category sums into, and which
/// channels have a shaper (a resampler and a filter) for their voices.
extension MixerCore {
  /// The category's bus, given out on first use; the master's sum (0) once every bus is taken.
  package func bus(for category: SoundCategory) -> Int {
    busIndices.withLock { indices in
      if let index = indices[category] { return index }
      // 0 is the master's sum, 1 the reverb's return; categories take the rest in order.
      let next = indices.count + 2
      guard next < VoiceMixer.busCapacity else { return 0 }
      indices[category] = next
      return next
    }
  }

  /// The category's bus, on the queue: from the queue's memo, so a voice's start takes no lock
  /// and hashes no name once its category has played.
  @inline(__always)
  func queueBus(for category: SoundCategory) -> Int {
    busIndexMemo.value(for: category) { bus(for: $0) }
  }

  /// Gives `channel` a shaper if it has none (allocating here, on the queue, never in the mix).
  func ensureShaper(on channel: Int) {
    guard !mixer.hasShaper(channel) else { return }
    guard
      let shaper = VoiceShaper(
        channels: format.channels, blockFrames: VoiceMixer.blockFrames, sampleRate: format.sampleRate)
    else {
      logger.error("libsamplerate cannot make a resampler; channel \(channel) plays at rate 1")
      return
    }
    backend.withAudioLock { mixer.install(shaper, on: channel) }
  }

  /// A voice asked for a rate or a filter after it started: its lane gets a shaper.
  func giveShaper(to voice: Voice) {
    queue.async { [self] in
      guard state.isOpen, state.hasDevice, let channel = table.channel(of: voice) else { return }
      ensureShaper(on: channel)
    }
  }

  /// Replaces the effects of `category`'s bus (or the reverb's return), with the buses that key
  /// its compressors.
  package func setEffects(_ effects: [AudioEffect], onBus bus: Int, keys: [(CompressorEffect, Int)] = []) {
    let keys = UncheckedKeys(keys: keys)
    noteUncaptured("bus effects")
    queue.async { [self] in
      guard state.isOpen else { return }
      backend.withAudioLock {
        for (compressor, key) in keys.keys { compressor.sidechainBus = key }
        mixer.setEffects(effects, on: bus)
      }
    }
  }

  /// Routes `bus` into `parent` (0: the master).
  func setParent(_ parent: Int, of bus: Int) {
    noteUncaptured("bus routing")
    queue.async { [self] in
      guard state.isOpen else { return }
      backend.withAudioLock { mixer.setParent(parent, of: bus) }
    }
  }

  /// Glides `bus`'s send to the reverb's return.
  func setSend(_ level: Double, tween: Tween, onBus bus: Int) {
    let request = RampRequest(
      target: Float(level.clamped(to: 0...1, or: 0)), tween: tween, sampleRate: format.sampleRate,
      minimumFrames: declickFrames)
    noteUncaptured("bus reverb send")
    queue.async { [self] in
      guard state.isOpen else { return }
      backend.withAudioLock { mixer.setSend(request, on: bus) }
    }
  }

  /// The frames of the engine's de-click ramp.
  package var declickFrames: Int {
    Int((configuration.declickDuration * Double(format.sampleRate)).rounded())
  }
}

/// Compressors and their key buses on their way to the queue: effects are `Sendable`, but a
/// tuple array is not inferred so.
private struct UncheckedKeys: @unchecked Sendable {
  let keys: [(CompressorEffect, Int)]
}
