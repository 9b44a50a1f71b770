import Foundation

/// Reading a voice's samples: straight from its sound (or its stream), or through its shaper
/// (libsamplerate for a rate other than 1, then the low-pass).
extension VoiceMixer {
  /// Fills ``voiceBuffer`` with the voice's next `frames` frames; returns the source frames it
  /// used and whether the sound ended (the rest of the block is silence).
  func fetchShaped(_ channel: Int, frames: Int) -> (consumed: Int, ended: Bool) {
    guard let shaperReference = lanes[channel].shaper, let voice = lanes[channel].voice?.takeUnretainedValue()
    else {
      return fetchPadded(channel, frames: frames)
    }
    let shaper = shaperReference.takeUnretainedValue()
    shaper.rate.follow(voice.rateRequest, at: clock)
    shaper.doppler.follow(voice.dopplerRequest, at: clock)
    shaper.cutoff.follow(voice.cutoffRequest, at: clock)
    let result: (consumed: Int, ended: Bool)
    if !shaper.isEngaged,
      shaper.rate.value != 1 || shaper.rate.isMoving || shaper.doppler.value != 1 || shaper.doppler.isMoving
    {
      engage(channel, shaper)
    }
    if shaper.isEngaged {
      result = resample(channel, shaper, frames: frames)
    } else {
      result = fetchPadded(channel, frames: frames)
      if lanes[channel].stream != nil { remember(shaper, frames: frames) }
    }
    filter(shaper, frames: frames)
    return result
  }

  /// The plain read, with silence after the end.
  private func fetchPadded(_ channel: Int, frames: Int) -> (consumed: Int, ended: Bool) {
    let (got, ended) = fetchPlain(channel, into: voiceBuffer, frames: frames)
    if got < frames { (voiceBuffer + got * channels).update(repeating: 0, count: (frames - got) * channels) }
    return (got, ended)
  }

  /// Up to `frames` frames of the voice at rate 1, as float, into `target`: its sound's passes,
  /// or its stream written over the carrier. Returns the frames read and whether the sound
  /// ended before `frames`.
  func fetchPlain(
    _ channel: Int, into target: UnsafeMutablePointer<Float>, frames: Int
  ) -> (Int, Bool) {
    let stream = lanes[channel].stream?.takeUnretainedValue()
    return walkPasses(channel, frames: frames) { from, offset, take in
      let destination = target + offset * channels
      let bytes = take * bytesPerFrame
      if isFloat {
        UnsafeMutableRawPointer(destination).copyMemory(from: from, byteCount: bytes)
        stream?.process(UnsafeMutableRawPointer(destination), byteCount: bytes)
      } else {
        rawBuffer.copyMemory(from: from, byteCount: bytes)
        stream?.process(rawBuffer, byteCount: bytes)
        let source = rawBuffer.assumingMemoryBound(to: Int16.self)
        for index in 0..<(take * channels) { destination[index] = Float(source[index]) / 32_768 }
      }
    }
  }

  /// Walks the lane's sound from where it is, pass after pass (its loops), handing `body` each
  /// contiguous run of at most `frames` frames in all: the run's samples, where it falls in the
  /// block, and its length. Moves the lane on; returns the frames walked and whether the sound
  /// ended before `frames`.
  @inline(__always)
  func walkPasses(
    _ channel: Int, frames: Int, _ body: (UnsafeRawPointer, _ offset: Int, _ take: Int) -> Void
  ) -> (Int, Bool) {
    guard let samples = lanes[channel].samples else { return (0, true) }
    var position = lanes[channel].position
    var loops = lanes[channel].loops
    let byteCount = lanes[channel].byteCount
    var filled = 0
    var ended = false
    while filled < frames {
      if position >= byteCount {
        guard loops != 0 else {
          ended = true
          break
        }
        if loops > 0 { loops -= 1 }
        position = 0
      }
      let take = min((byteCount - position) / bytesPerFrame, frames - filled)
      guard take > 0 else {
        position = byteCount
        continue
      }
      body(samples + position, filled, take)
      position += take * bytesPerFrame
      filled += take
    }
    lanes[channel].position = position
    lanes[channel].loops = loops
    return (filled, ended)
  }

  /// The resampler takes over mid-play: it is first fed the frames just before the voice's
  /// place (their output dropped), so its filter starts full and the seam is continuous.
  private func engage(_ channel: Int, _ shaper: VoiceShaper) {
    shaper.isEngaged = true
    shaper.framesReadSinceEngaged = 0
    shaper.framesHeardSinceEngaged = 0
    let history = VoiceShaper.historyFrames
    let start = shaper.input
    if lanes[channel].stream != nil {
      start.update(from: shaper.history, count: history * channels)
    } else if let samples = lanes[channel].samples {
      let before = min(history, lanes[channel].position / bytesPerFrame)
      let missing = history - before
      start.update(repeating: 0, count: missing * channels)
      let from = samples + lanes[channel].position - before * bytesPerFrame
      if isFloat {
        UnsafeMutableRawPointer(start + missing * channels).copyMemory(
          from: from, byteCount: before * bytesPerFrame)
      } else {
        let source = from.assumingMemoryBound(to: Int16.self)
        for index in 0..<(before * channels) {
          start[missing * channels + index] = Float(source[index]) / 32_768
        }
      }
    }
    shaper.inputStart = 0
    shaper.inputCount = history
    shaper.discard = -history  // resolved to output frames at the first ratio, below
  }

  private func resample(_ channel: Int, _ shaper: VoiceShaper, frames: Int) -> (consumed: Int, ended: Bool) {
    let rateStart = shaper.rate.value * shaper.doppler.value
    let rateEnd = shaper.rate.advance(frames: frames) * shaper.doppler.advance(frames: frames)
    let ratio = 1 / Double(rateEnd)
    if shaper.discard < 0 {
      shaper.discard = Int((Double(-shaper.discard) * ratio).rounded())
    }
    var produced = 0
    var consumed = 0
    var attempts = 0
    while produced < frames, attempts < 8 {
      attempts += 1
      let need =
        Int((Double(frames - produced + shaper.discard) * Double(max(rateStart, rateEnd))).rounded(.up)) + 16
      if !shaper.sourceEnded, shaper.inputCount < need {
        shaper.makeRoom(for: need - shaper.inputCount)
        let room = shaper.inputCapacity - shaper.inputStart - shaper.inputCount
        let want = min(need - shaper.inputCount, room)
        if want > 0 {
          let tail = shaper.input + (shaper.inputStart + shaper.inputCount) * channels
          let (got, ended) = fetchPlain(channel, into: tail, frames: want)
          shaper.inputCount += got
          shaper.framesReadSinceEngaged += got
          consumed += got
          if ended { shaper.sourceEnded = true }
        }
      }
      let output = voiceBuffer + produced * channels
      var (used, made) = shaper.process(into: output, frames: frames - produced, ratio: ratio)
      if shaper.discard > 0, made > 0 {
        let drop = min(shaper.discard, made)
        output.update(from: output + drop * channels, count: (made - drop) * channels)
        shaper.discard -= drop
        made -= drop
      }
      produced += made
      shaper.framesHeardSinceEngaged += Double(made) * Double(rateEnd)
      if used == 0, made == 0, shaper.sourceEnded { break }
    }
    if produced < frames {
      (voiceBuffer + produced * channels).update(repeating: 0, count: (frames - produced) * channels)
    }
    let ended = shaper.sourceEnded && produced < frames
    return (consumed, ended)
  }

  /// A stream lane keeps its last frames, in case the resampler takes over.
  private func remember(_ shaper: VoiceShaper, frames: Int) {
    let history = VoiceShaper.historyFrames
    let keep = min(history, frames)
    if keep < history {
      shaper.history.update(from: shaper.history + keep * channels, count: (history - keep) * channels)
    }
    (shaper.history + (history - keep) * channels).update(
      from: voiceBuffer + (frames - keep) * channels, count: keep * channels)
  }

  private func filter(_ shaper: VoiceShaper, frames: Int) {
    let open = VoiceShaping.openCutoffLog2
    guard shaper.cutoff.isMoving || shaper.cutoff.value < open else {
      shaper.isFiltering = false
      return
    }
    // Switched into a playing voice's path, the filter starts from rest: its first samples are
    // crossfaded from the unfiltered ones while it settles (at the open cutoff, in a few samples).
    let fade = shaper.isFiltering ? 0 : min(frames, 64)
    if !shaper.isFiltering {
      shaper.isFiltering = true
      shaper.filter.prime(with: voiceBuffer)
      fadeBuffer.update(from: voiceBuffer, count: fade * channels)
    }
    if !shaper.cutoff.isMoving {
      // A standing cutoff: coefficients only when it changed, then the block in one pass.
      if shaper.configuredCutoff != shaper.cutoff.value {
        shaper.configuredCutoff = shaper.cutoff.value
        shaper.filter.configure(.lowPass, frequency: Double(exp2(shaper.cutoff.value)), q: 0.5.squareRoot())
      }
      shaper.filter.process(voiceBuffer, frames: frames)
    }
    var done = shaper.cutoff.isMoving ? 0 : frames
    while done < frames {
      let count = min(16, frames - done)
      let value = shaper.cutoff.advance(frames: count)
      shaper.configuredCutoff = value
      shaper.filter.configure(.lowPass, frequency: Double(exp2(value)), q: 0.5.squareRoot())
      shaper.filter.process(voiceBuffer + done * channels, frames: count)
      done += count
    }
    for frame in 0..<fade {
      let mix = Float(frame + 1) / Float(fade + 1)
      for channel in 0..<channels {
        let index = frame * channels + channel
        voiceBuffer[index] = fadeBuffer[index] + (voiceBuffer[index] - fadeBuffer[index]) * mix
      }
    }
  }
}
