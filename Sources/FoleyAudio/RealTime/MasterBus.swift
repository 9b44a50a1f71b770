import Synchronization

/// The last stage of the mix, run on SDL_mixer's post-mix hook: the master volume (ramped per
/// sample like every other gain) and the look-ahead limiter that keeps the output under its
/// ceiling. Its meter (the deepest gain reduction) is readable from any thread.
///
/// Invariant behind `@unchecked Sendable`: the volume target and the meter are atomics; the
/// limiter, the current volume and the scratch buffer belong to the mixing thread, and the owner
/// installs and removes the bus under the mixer's lock, so no mix runs while it is replaced.
package final class MasterBus: @unchecked Sendable {
  private let targetVolume = Atomic<UInt32>(Float(1).bitPattern)
  private let lastSmallestGain = Atomic<UInt32>(Float(1).bitPattern)
  private let smallestGainSinceReset = Atomic<UInt32>(Float(1).bitPattern)
  private var currentVolume: Float = 1
  private let volumeStep: Float
  private let limiter: LookAheadLimiter?
  private let isFloat: Bool
  private let channels: Int
  /// Float copies of 16-bit output, so the limiter always works in float.
  private let scratch: UnsafeMutablePointer<Float>
  private let scratchFrames = 2_048

  package init(format: AudioDeviceFormat, limiter settings: LimiterSettings?, volumeStep: Float) {
    isFloat = format.sampleFormat == .float32
    channels = format.channels
    self.volumeStep = volumeStep
    limiter = settings.map { settings in
      LookAheadLimiter(
        channels: format.channels, window: settings.lookAheadFrames(at: format.sampleRate),
        ceiling: settings.ceiling,
        releaseCoefficient: settings.releaseCoefficient(at: format.sampleRate))
    }
    scratch = .allocate(capacity: scratchFrames * format.channels)
  }

  deinit { scratch.deallocate() }

  /// The frames the limiter delays the output by (its look-ahead), 0 without a limiter.
  package var latencyFrames: Int { limiter.map { $0.window - 1 } ?? 0 }

  package func setVolume(_ volume: Float) {
    targetVolume.store(volume.bitPattern, ordering: .relaxed)
  }

  /// The smallest limiter gain in the last buffer mixed (1 when it did nothing).
  package var gainInLastBuffer: Float { Float(bitPattern: lastSmallestGain.load(ordering: .relaxed)) }

  /// The smallest limiter gain since the engine opened or the meter was last reset.
  package var smallestGain: Float { Float(bitPattern: smallestGainSinceReset.load(ordering: .relaxed)) }

  package func resetMeter() {
    smallestGainSinceReset.store(Float(1).bitPattern, ordering: .relaxed)
  }

  /// Processes one mixed buffer in place.
  package func process(_ stream: UnsafeMutableRawPointer, byteCount: Int) {
    let frameBytes = (isFloat ? 4 : 2) * channels
    let frames = byteCount / frameBytes
    if isFloat {
      processFloat(stream.assumingMemoryBound(to: Float.self), frames: frames)
    } else {
      let samples = stream.assumingMemoryBound(to: Int16.self)
      var done = 0
      while done < frames {
        let count = min(scratchFrames, frames - done)
        let base = samples + done * channels
        for index in 0..<(count * channels) { scratch[index] = Float(base[index]) / 32_768 }
        processFloat(scratch, frames: count)
        for index in 0..<(count * channels) {
          base[index] = Int16(max(-32_768, min(32_767, (scratch[index] * 32_768).rounded())))
        }
        done += count
      }
    }
    if let limiter {
      let smallest = limiter.takeSmallestGain()
      lastSmallestGain.store(smallest.bitPattern, ordering: .relaxed)
      if smallest < Float(bitPattern: smallestGainSinceReset.load(ordering: .relaxed)) {
        smallestGainSinceReset.store(smallest.bitPattern, ordering: .relaxed)
      }
    }
  }

  private func processFloat(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    let goal = Float(bitPattern: targetVolume.load(ordering: .relaxed))
    var volume = currentVolume
    if volume != goal || volume != 1 {
      for frame in 0..<frames {
        volume += max(-volumeStep, min(volumeStep, goal - volume))
        for channel in 0..<channels { samples[frame * channels + channel] *= volume }
      }
      currentVolume = volume
    }
    limiter?.process(samples, frames: frames)
  }
}
