internal import CFoleyCodecs
internal import CFoleyDSP
import Dispatch

/// The mixing thread's side: one callback's worth of voices into buses, buses into the master.
/// Nothing here allocates, locks or calls the system (the finished-channel post and the wake are
/// the two atomics-and-signal exceptions the core already had).
extension VoiceMixer {
  /// Renders the whole mix into SDL's buffer (whatever SDL_mixer put there is replaced), the
  /// master bus finishing each block in float before it is written in the device's format.
  /// - Parameter streamIsSilent: whether `stream` already holds silence, as SDL_mixer's
  ///   post-mix hook gets it: then a buffer with nothing to play is left as it is.
  package func render(_ stream: UnsafeMutableRawPointer, byteCount: Int, streamIsSilent: Bool = false) {
    foley_realtime_enter()
    defer { foley_realtime_leave() }
    let frames = byteCount / bytesPerFrame
    timing.noteBuffer(at: HostTime.now.nanoseconds, clock: clock, bufferFrames: frames)
    if armedLanes == 0, ringingBuses == 0, master.isSettled {
      // Nothing plays, nothing rings, the master has let go: the output is silence. (Clearing
      // it again was half of an idle engine's instructions on the mixing thread.) The meters
      // are zeroed once, not every idle callback.
      if !streamIsSilent {
        stream.initializeMemory(as: UInt8.self, repeating: 0, count: frames * bytesPerFrame)
      }
      if !metersAtRest {
        for bus in 0..<Self.busCapacity {
          meters.store(0, for: bus)
          parameters.busPeaks[bus] = 0
        }
        busesRun.store(0, ordering: .relaxed)
        reverbRan.store(false, ordering: .relaxed)
        isSounding.store(false, ordering: .releasing)
        metersAtRest = true
      }
      master.noteIdle()
      clock &+= UInt64(frames)
      framesMixed.store(clock, ordering: .releasing)
      return
    }
    var done = 0
    if metersAtRest { isSounding.store(true, ordering: .relaxed) }
    metersAtRest = false
    for bus in 0..<Self.busCapacity { peaks[bus] = 0 }
    isTapping = tap.isEnabled.load(ordering: .relaxed)
    while done < frames {
      let count = min(Self.blockFrames, frames - done)
      let (played, running) = renderBlock(frames: count)
      master.process(float: buses[0].buffer, frames: count, silent: played == 0 && running == 0)
      peaks[0] = max(peaks[0], peak(of: buses[0].buffer, count: count * channels))
      if isTapping {
        tap.push(bus: 0, clock: clock, samples: buses[0].buffer, frames: count, channels: channels)
      }
      write(buses[0].buffer, frames: count, to: stream + done * bytesPerFrame)
      done += count
      clock &+= UInt64(count)
    }
    framesMixed.store(clock, ordering: .releasing)
    for bus in 0..<Self.busCapacity { meters.store(peaks[bus], for: bus) }
  }

  /// Moves the clock past `bytes` of output the device played before this mixer was connected
  /// (their frames are the device's, so the clock's frame is the device's frame). Called with
  /// the audio lock held, when no render runs.
  func advanceClock(byFramesPlayedBefore bytes: Int) {
    guard bytes > 0 else { return }
    clock &+= UInt64(bytes / bytesPerFrame)
    framesMixed.store(clock, ordering: .releasing)
  }

  /// The largest magnitude among `count` samples, eight at a time.
  @inline(__always)
  private func peak(of samples: UnsafeMutablePointer<Float>, count: Int) -> Float {
    let raw = UnsafeRawPointer(samples)
    var largest = SIMD8<Float>(repeating: 0)
    var index = 0
    while index &+ 8 <= count {
      let block = raw.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
      largest = largest.lanewiseMax(block.magnitudes)
      index &+= 8
    }
    var result = largest.max()
    while index < count {
      result = max(result, abs(samples[index]))
      index += 1
    }
    return result
  }

  /// Mixes one block into the master's sum (bus 0); returns the lanes that played and the buses
  /// that ran.
  private func renderBlock(frames: Int) -> (played: Int, running: Int) {
    let samples = frames * channels
    buses[0].buffer.update(repeating: 0, count: samples)
    buses[0].touched = true
    for bus in 1..<Self.busCapacity { buses[bus].fed = false }
    var played = 0
    for channel in 0..<laneCount where lanes[channel].isArmed && !lanes[channel].isPaused {
      // A scheduled voice waits for its frame, and starts on it even mid-block.
      var offset = 0
      if lanes[channel].startFrame != 0 {
        let start = lanes[channel].startFrame
        if start >= clock &+ UInt64(frames) { continue }
        offset = start > clock ? Int(start &- clock) : 0
        lanes[channel].startFrame = 0
      }
      played += 1
      let bus = lanes[channel].bus
      // A moving positional voice the queue handed over: its newest placement is this block's goal.
      if let heldVoice = lanes[channel].voice, let heldGain = lanes[channel].gain {
        heldVoice._withUnsafeGuaranteedRef { voice in
          heldGain._withUnsafeGuaranteedRef {
            $0.follow(voice)
            $0.beginBlock(clock: clock &+ UInt64(offset), frames: frames - offset)
          }
        }
      }
      if lanes[channel].stream == nil { takeSeek(channel) }
      let ended: Bool
      if let gain = directGains(channel) {
        ended = mixDirect(
          channel, into: prepare(bus, frames: frames) + offset * channels, frames: frames - offset, gain: gain
        )
      } else {
        ended = renderVoice(channel, frames: frames - offset)
        if lanes[channel].seekPhase != 0 { fadeForSeek(channel, frames: frames - offset) }
        if offset > 0 { delayVoiceBuffer(by: offset, frames: frames) }
        add(voiceBuffer, into: bus, frames: frames)
        if lanes[channel].send.isMoving || lanes[channel].send.value > 0 {
          sendVoice(channel, frames: frames)
        }
      }
      if let stream = lanes[channel].stream {
        stream.takeUnretainedValue().noteMixed(through: clock &+ UInt64(frames))
      } else if let heldVoice = lanes[channel].voice {
        let frame = lanes[channel].position / bytesPerFrame
        heldVoice._withUnsafeGuaranteedRef { $0.publishPlayhead(frame) }
      }
      if ended {
        // Played out: the lane stops here, and the queue hears of it as SDL_mixer's own
        // channel-finished report would have told it.
        clearLane(channel)
        inbox.post(Int32(channel))
      }
    }
    // The categories' buses first, each before the bus it sums into (each may send to the
    // reverb's return), the return last.
    var running = 0
    for position in 0..<(Self.busCapacity - Self.reverbBus - 1) {
      let bus = order[position]
      guard buses[bus].touched || buses[bus].ringing else {
        parameters.busPeaks[bus] = 0
        continue
      }
      running += 1
      runEffects(bus, frames: frames)
      if buses[bus].snapshotCount > 0 || faderEngaged(bus, frames: frames) {
        applySnapshots(bus, frames: frames)
      }
      let blockPeak = peak(of: buses[bus].buffer, count: samples)
      parameters.busPeaks[bus] = blockPeak
      peaks[bus] = max(peaks[bus], blockPeak)
      if isTapping {
        tap.push(bus: bus, clock: clock, samples: buses[bus].buffer, frames: frames, channels: channels)
      }
      sendBus(bus, frames: frames)
      let parent = buses[bus].parent
      addSamples(
        buses[bus].buffer, into: parent == 0 ? buses[0].buffer : prepare(parent, frames: frames),
        count: samples)
      buses[bus].touched = false
    }
    let reverb = Self.reverbBus
    if buses[reverb].touched || buses[reverb].ringing {
      running += 1
      runEffects(reverb, frames: frames)
      peaks[reverb] = max(peaks[reverb], peak(of: buses[reverb].buffer, count: samples))
      if isTapping {
        tap.push(bus: reverb, clock: clock, samples: buses[reverb].buffer, frames: frames, channels: channels)
      }
      addSamples(buses[reverb].buffer, into: buses[0].buffer, count: samples)
      buses[reverb].touched = false
    }
    applyMasterFader(frames: frames)
    busesRun.store(running, ordering: .relaxed)
    reverbRan.store(buses[Self.reverbBus].ringing, ordering: .relaxed)
    return (played, running)
  }

  /// One voice's block into ``voiceBuffer``, gain applied; true when its sound has ended.
  private func renderVoice(_ channel: Int, frames: Int) -> Bool {
    let (consumed, ended) = fetchShaped(channel, frames: frames)
    lanes[channel].gain?.takeUnretainedValue().process(
      UnsafeMutableRawPointer(voiceBuffer), byteCount: frames * channels * 4, sourceFrames: consumed)
    return ended
  }

  /// Moves the voice's first `frames - offset` frames `offset` frames later in ``voiceBuffer``,
  /// silence before them: a scheduled start inside the block.
  private func delayVoiceBuffer(by offset: Int, frames: Int) {
    let shift = offset * channels
    var index = (frames - offset) * channels
    while index > 0 {
      index -= 1
      voiceBuffer[index + shift] = voiceBuffer[index]
    }
    voiceBuffer.update(repeating: 0, count: shift)
  }

  private func sendVoice(_ channel: Int, frames: Int) {
    let target = Self.reverbBus
    guard buses[target].effects.count > 0 else {
      _ = lanes[channel].send.advance(frames: frames)
      return
    }
    let start = lanes[channel].send.value
    let end = lanes[channel].send.advance(frames: frames)
    addRamped(voiceBuffer, into: prepare(target, frames: frames), frames: frames, from: start, to: end)
  }

  /// A bus's post-fader send to the reverb's return (after its own effects).
  private func sendBus(_ bus: Int, frames: Int) {
    buses[bus].send.follow(buses[bus].sendRequest, at: clock)
    guard buses[bus].send.isMoving || buses[bus].send.value > 0, buses[Self.reverbBus].effects.count > 0
    else {
      return
    }
    let start = buses[bus].send.value
    let end = buses[bus].send.advance(frames: frames)
    addRamped(
      buses[bus].buffer, into: prepare(Self.reverbBus, frames: frames), frames: frames, from: start, to: end)
  }

  /// `target += source × level`, the level moving in a straight line from `start` to `end`
  /// over the block (a send): one pass at a steady level when it does not move.
  private func addRamped(
    _ source: UnsafeMutablePointer<Float>, into target: UnsafeMutablePointer<Float>, frames: Int,
    from start: Float, to end: Float
  ) {
    guard start != end else {
      addScaled(UnsafeRawPointer(source), into: target, count: frames * channels, by: SIMD8(repeating: end))
      return
    }
    let step = (end - start) / Float(frames)
    var level = start
    for frame in 0..<frames {
      level += step
      for channel in 0..<channels {
        target[frame * channels + channel] += source[frame * channels + channel] * level
      }
    }
  }

  /// The bus's buffer, zeroed if this is the first sum into it in this block.
  @inline(__always)
  private func prepare(_ bus: Int, frames: Int) -> UnsafeMutablePointer<Float> {
    let buffer = buses[bus].buffer
    if !buses[bus].touched {
      buffer.update(repeating: 0, count: frames * channels)
      buses[bus].touched = true
    }
    buses[bus].fed = true
    return buffer
  }

  @inline(__always)
  private func add(_ source: UnsafeMutablePointer<Float>, into bus: Int, frames: Int) {
    buses[bus].fed = true
    if bus != 0, !buses[bus].touched {
      buses[bus].buffer.update(from: source, count: frames * channels)
      buses[bus].touched = true
      return
    }
    addSamples(source, into: buses[bus].buffer, count: frames * channels)
  }

  /// `target += source × pattern`, eight samples at a time; sample `i` is scaled by
  /// `pattern[i % 8]` (one gain repeated, or left and right in turn). On a CPU with AVX the C
  /// kernel does it in 256-bit vectors, the same sums bit for bit.
  @inline(__always)
  func addScaled(
    _ source: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, count: Int, by pattern: SIMD8<Float>
  ) {
    if usesWideVectors {
      Self.addScaledAVX(source, into: target, count: count, by: pattern)
      return
    }
    Self.addScaledPortably(source, into: target, count: count, by: pattern)
  }

  /// The one bridge to the C kernel `foley_add_scaled_avx` (the held sum, and a ramp's held
  /// stretch): the pattern handed over as eight floats. Only where the CPU has AVX.
  @inline(__always)
  static func addScaledAVX(
    _ source: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, count: Int, by pattern: SIMD8<Float>
  ) {
    withUnsafePointer(to: pattern) { gains in
      gains.withMemoryRebound(to: Float.self, capacity: 8) { gains in
        foley_add_scaled_avx(source.assumingMemoryBound(to: Float.self), target, count, gains)
      }
    }
  }

  /// ``addScaled(_:into:count:by:)`` in Swift's own vectors: the path on a CPU without AVX.
  @inline(__always)
  package static func addScaledPortably(
    _ source: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, count: Int, by pattern: SIMD8<Float>
  ) {
    let to = UnsafeMutableRawPointer(target)
    var index = 0
    while index &+ 8 <= count {
      let sum =
        to.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
        + source.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self) * pattern
      to.storeBytes(of: sum, toByteOffset: index &* 4, as: SIMD8<Float>.self)
      index &+= 8
    }
    let single = source.assumingMemoryBound(to: Float.self)
    while index < count {
      target[index] += single[index] * pattern[index & 7]
      index += 1
    }
  }

  /// The sum, eight samples at a time.
  @inline(__always)
  func addSamples(_ source: UnsafeMutablePointer<Float>, into target: UnsafeMutablePointer<Float>, count: Int)
  {
    let from = UnsafeRawPointer(source)
    let to = UnsafeMutableRawPointer(target)
    var index = 0
    while index &+ 8 <= count {
      let sum =
        to.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
        + from.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
      to.storeBytes(of: sum, toByteOffset: index &* 4, as: SIMD8<Float>.self)
      index &+= 8
    }
    while index < count {
      target[index] += source[index]
      index += 1
    }
  }

  private func runEffects(_ bus: Int, frames: Int) {
    let hasInput = buses[bus].touched
    let buffer = prepare(bus, frames: frames)
    var ringing = false
    for reference in buses[bus].effects {
      let effect = reference.takeUnretainedValue()
      let keyBus = effect.keyBus
      let key =
        keyBus > 0 && keyBus < Self.busCapacity && buses[keyBus].fed
        ? UnsafePointer(buses[keyBus].buffer) : nil
      if effect.process(
        buffer, frames: frames, channels: channels, hasInput: hasInput, sidechain: key, clock: clock)
      {
        ringing = true
      }
    }
    setRinging(bus, ringing)
    buses[bus].touched = true
  }

  /// Writes the master's float sum into SDL's buffer in the mix's format.
  private func write(_ source: UnsafeMutablePointer<Float>, frames: Int, to stream: UnsafeMutableRawPointer) {
    let count = frames * channels
    if isFloat {
      stream.copyMemory(from: source, byteCount: count * 4)
    } else {
      let target = stream.assumingMemoryBound(to: Int16.self)
      for index in 0..<count {
        target[index] = Int16(max(-32_768, min(32_767, (source[index] * 32_768).rounded())))
      }
    }
  }
}

/// SDL_mixer's post-mix hook; `userData` is the engine's ``VoiceMixer``.
let voiceMixerPostMix:
  @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Void =
    {
      userData, stream, length in
      guard let userData, let stream, length > 0 else { return }
      // The engine keeps the mixer alive while the hook is set: no retain and release per buffer.
      // SDL_mixer (2.6.2's `mix_channels`) fills the buffer with silence, then mixes music (Foley
      // hooks none) and the playing channels (Foley's carriers loop zeros at volume 0) into it,
      // then calls this hook: the buffer it hands over is silence.
      Unmanaged<VoiceMixer>.fromOpaque(userData)._withUnsafeGuaranteedRef {
        $0.render(stream, byteCount: Int(length), streamIsSilent: true)
      }
    }
