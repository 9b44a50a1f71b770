internal import CFoleyDSP
import Foundation
package import Synchronization

/// Where a lane is in its chunk, read under the audio lock: the frame it plays next, the whole
/// passes after the current one (-1: for ever), and the mix frame that frame will be heard on
/// (the next one mixed). A lane still waiting for its start frame has not started.
package struct LaneProgress: Equatable {
  package var frame: Int
  package var loops: Int
  package var clock: UInt64
  package var hasStarted: Bool
}

/// Foley's own mix, run on SDL_mixer's post-mix hook: every voice is read from its samples (or
/// its stream), resampled when its rate is not 1, filtered, scaled by its gain stage, and summed
/// into its bus; each bus runs its effect chain and sums into the master, which the
/// ``MasterBus`` finishes (volume, limiter).
///
/// SDL_mixer still gives every play a channel (a silent carrier at volume 0 with no effects, so
/// it neither copies nor mixes anything: `SDL_MixAudioFormat` returns at volume 0, and without
/// effects `Mix_DoEffects` does not allocate its per-channel copy). The channel is the voice's
/// lease; this mixer is its sound.
///
/// Invariant behind `@unchecked Sendable`: the lanes, buses and effect chains change only on the
/// audio queue while it holds the audio lock (``MixerBackend/withAudioLock(_:)``), which the
/// mixing thread holds while it renders; the mixing thread's own state is touched by it alone.
/// Parameters that change while playing (gains, rates, cutoffs, sends, bus effects) are atomics.
package final class VoiceMixer: @unchecked Sendable {
  /// The mix runs in blocks of at most this many frames (SDL may ask for more at once).
  static let blockFrames = 1_024
  /// Buses that can exist: the master, the reverb's return, and the categories.
  static let busCapacity = 32
  /// The reverb's return bus; index 0 is the master's sum.
  static let reverbBus = 1

  package let format: AudioDeviceFormat
  let inbox: FinishedChannelInbox
  package let master: MasterBus
  let channels: Int
  let isFloat: Bool
  let bytesPerFrame: Int
  var lanes: UnsafeMutablePointer<Lane>
  var laneCount = 0
  /// Lanes armed (playing or paused), kept with every arm and clear.
  var armedLanes = 0
  /// Buses whose effects still ring, kept with every change of a bus's `ringing` (so an idle
  /// callback asks one number, not 31 buses).
  package private(set) var ringingBuses = 0
  /// Whether the meters, `busesRun`, `reverbRan` and `isSounding` already read zero (as they do
  /// when made, and after an idle callback): the next idle one leaves them (32 meters in 32 cache
  /// lines, cold after 10 ms of sleep), and the next busy one sets `isSounding` once.
  var metersAtRest = true
  var laneCapacity = 0
  /// The shapers' owners (the lanes keep them unretained), by channel.
  private var shapers: [VoiceShaper?] = []
  let buses: UnsafeMutablePointer<Bus>
  /// The chains' owners, by bus.
  private var chains: [[AudioEffect]] = Array(repeating: [], count: busCapacity)
  let voiceBuffer: UnsafeMutablePointer<Float>
  /// A lane's gains frame by frame (left, right) while its level moves (``DirectGain/levelled(left:right:)``).
  let levelledGains: UnsafeMutablePointer<Float>
  /// The categories' buses in the order they run: every bus before the bus it sums into.
  let order: UnsafeMutablePointer<Int>
  /// Each bus's peak so far in this callback (mixing thread).
  let peaks: UnsafeMutablePointer<Float>
  /// The unfiltered start of a voice's block while its low-pass is crossfaded in.
  let fadeBuffer: UnsafeMutablePointer<Float>
  /// A block read in the mix's format before conversion to float (16-bit mixes).
  let rawBuffer: UnsafeMutableRawPointer
  /// Buses (beyond the master) that ran in the last block: a bus with nothing summed into it and
  /// no tail ringing costs nothing, and is not counted.
  package let busesRun = Atomic<Int>(0)
  /// Whether the reverb's return bus ran in the last block (fed, or its tail ringing).
  let reverbRan = Atomic<Bool>(false)
  /// Whether the last callback mixed anything: a voice armed (playing or paused), a bus's tail
  /// ringing, or the master still settling. False once a callback found nothing to do: from then
  /// on the output is exact silence until something starts.
  package let isSounding = Atomic<Bool>(false)
  /// Each bus's peak in the last callback (after its effects; bus 0: the master after the
  /// limiter), for meters.
  package let meters = BusMeters(count: busCapacity)
  /// Copies of every bus that ran, for the inspector (only while one reads).
  let tap = InspectorTap()
  /// Whether this callback copies into ``tap`` (mixing thread).
  var isTapping = false
  /// Frames mixed so far: the index, in the device's output, of the next frame to be mixed
  /// (mixing thread; the queue reads it under the audio lock).
  var clock: UInt64 = 0
  /// ``clock`` as of the last callback, for anyone.
  package let framesMixed = Atomic<UInt64>(0)
  /// When the device takes each buffer, on the host clock, smoothed.
  package let timing: OutputTiming

  /// The game parameters and snapshot intensities (`ParameterTable.swift`).
  package let parameters = ParameterTable()
  /// Each bus's snapshot stages, ``snapshotsPerBus`` apiece, and the filters they run (owned here).
  let snapshotStages: UnsafeMutablePointer<BusSnapshotStage>
  var snapshotFilters: [[StateVariableFilter]] = Array(repeating: [], count: busCapacity)
  static let snapshotsPerBus = 8

  /// Sums voices with the AVX kernel (``addScaled(_:into:count:by:)``): fixed when made.
  let usesWideVectors: Bool

  /// - Parameter allowsWideVectors: false keeps the mix on Swift's portable vectors even where
  ///   the CPU has AVX (``AudioConfiguration/allowsWideVectors``).
  package init(
    format: AudioDeviceFormat, inbox: FinishedChannelInbox, master: MasterBus, allowsWideVectors: Bool = true
  ) {
    usesWideVectors = allowsWideVectors && foley_dsp_has_avx()
    self.format = format
    self.inbox = inbox
    self.master = master
    channels = format.channels
    isFloat = format.sampleFormat == .float32
    bytesPerFrame = format.bytesPerFrame
    timing = OutputTiming(sampleRate: format.sampleRate)
    lanes = .allocate(capacity: 1)
    laneCapacity = 0
    let samples = Self.blockFrames * format.channels
    buses = .allocate(capacity: Self.busCapacity)
    for index in 0..<Self.busCapacity {
      let buffer = UnsafeMutablePointer<Float>.allocate(capacity: samples)
      buffer.initialize(repeating: 0, count: samples)
      (buses + index).initialize(to: Bus(buffer: buffer))
    }
    voiceBuffer = .allocate(capacity: samples)
    levelledGains = .allocate(capacity: Self.blockFrames * 2)
    order = .allocate(capacity: Self.busCapacity - Self.reverbBus - 1)
    for index in 0..<(Self.busCapacity - Self.reverbBus - 1) {
      (order + index).initialize(to: Self.reverbBus + 1 + index)
    }
    peaks = .allocate(capacity: Self.busCapacity)
    peaks.initialize(repeating: 0, count: Self.busCapacity)
    voiceBuffer.initialize(repeating: 0, count: samples)
    fadeBuffer = .allocate(capacity: samples)
    rawBuffer = .allocate(byteCount: Self.blockFrames * format.bytesPerFrame, alignment: 16)
    snapshotStages = .allocate(capacity: Self.busCapacity * Self.snapshotsPerBus)
    snapshotStages.initialize(repeating: BusSnapshotStage(), count: Self.busCapacity * Self.snapshotsPerBus)
  }

  deinit {
    lanes.deinitialize(count: laneCount)
    lanes.deallocate()
    for index in 0..<Self.busCapacity {
      buses[index].buffer.deallocate()
      buses[index].effects.deallocate()
    }
    buses.deinitialize(count: Self.busCapacity)
    buses.deallocate()
    voiceBuffer.deallocate()
    levelledGains.deallocate()
    peaks.deallocate()
    order.deallocate()
    fadeBuffer.deallocate()
    rawBuffer.deallocate()
    snapshotStages.deallocate()
  }

  // MARK: - The queue's side (under the audio lock)

  /// Makes lanes exist up to `count`.
  func reserve(lanes count: Int) {
    guard count > laneCount else { return }
    if count > laneCapacity {
      let capacity = max(count, laneCapacity * 2)
      let grown = UnsafeMutablePointer<Lane>.allocate(capacity: capacity)
      grown.moveInitialize(from: lanes, count: laneCount)
      lanes.deallocate()
      lanes = grown
      laneCapacity = capacity
    }
    (lanes + laneCount).initialize(repeating: Lane(), count: count - laneCount)
    shapers += Array(repeating: nil, count: count - laneCount)
    laneCount = count
  }

  /// Starts `start` on `channel` and returns the mix frame it starts on; nil (and nothing armed)
  /// when its start frame has already been mixed, so the caller can choose another.
  @discardableResult
  package func arm(_ channel: Int, _ start: LaneStart) -> UInt64? {
    guard channel < laneCount else { return clock }
    let start = start.joined(at: clock, framesPerChunk: start.chunk.byteCount / max(1, bytesPerFrame))
    guard start.startFrame == 0 || start.startFrame >= clock else { return nil }
    var lane = lanes[channel]
    if !lane.isArmed { armedLanes += 1 }
    lane.isArmed = true
    lane.isPaused = start.paused
    lane.samples = UnsafeRawPointer(start.chunk.samples)
    lane.byteCount = start.chunk.byteCount
    lane.position = min(max(0, start.position) * bytesPerFrame, start.chunk.byteCount)
    lane.loops = start.loops
    lane.seekPhase = 0
    lane.gain = .passUnretained(start.gain)
    lane.stream = start.stream.map { .passUnretained($0) }
    lane.voice = .passUnretained(start.voice)
    lane.bus = min(max(start.bus, 0), Self.busCapacity - 1)
    // The followers' time starts on the lane's first frame (a scheduled voice waits for it).
    let begins = max(start.startFrame, clock)
    lane.send.reset(to: 0, request: RampRequest(target: 0, frames: 0).packed)
    lane.send.follow(start.voice.sendRequest, at: begins)
    lane.shaper?.takeUnretainedValue().reset(voice: start.voice, clock: begins)
    lane.startFrame = start.startFrame
    lanes[channel] = lane
    return max(start.startFrame, clock)
  }

  /// Whether `channel` has a shaper.
  func hasShaper(_ channel: Int) -> Bool { channel < laneCount && shapers[channel] != nil }

  /// Gives `channel` a shaper, reset for the voice on it (if any).
  func install(_ shaper: VoiceShaper, on channel: Int) {
    guard channel < laneCount else { return }
    shapers[channel] = shaper
    if let voice = lanes[channel].voice?.takeUnretainedValue(), lanes[channel].isArmed {
      // Its time starts where the lane plays next (a scheduled voice still waits for its frame).
      let begins = max(lanes[channel].startFrame, clock)
      shaper.reset(voice: voice, clock: begins)
      // Mid-play: it starts following the voice's rate from here, primed from what it played.
      shaper.rate.reset(to: 1, request: RampRequest(target: 1, frames: 0).packed)
      shaper.rate.follow(voice.rateRequest, at: begins)
    }
    lanes[channel].shaper = .passUnretained(shaper)
  }

  /// Stops `channel` at once; false if it was not playing.
  @discardableResult
  func disarm(_ channel: Int) -> Bool {
    guard channel < laneCount, lanes[channel].isArmed else { return false }
    clearLane(channel)
    return true
  }

  /// Every playing channel whose samples lie in `chunk`, stopped; for freeing it.
  func disarm(using chunk: MixChunk) -> [Int] {
    let start = UnsafeRawPointer(chunk.samples)
    let end = start + chunk.byteCount
    var stopped: [Int] = []
    for channel in 0..<laneCount where lanes[channel].isArmed {
      if let samples = lanes[channel].samples, samples >= start, samples < end {
        clearLane(channel)
        stopped.append(channel)
      }
    }
    return stopped
  }

  /// Holds `channel` if it still waits for its start frame (nothing of it heard yet): paused at
  /// once, no ramp; returns the clock it was held on, nil (and nothing changed) otherwise.
  /// Called with the audio lock held.
  func holdWaiting(_ channel: Int) -> (clock: UInt64, startFrame: UInt64)? {
    guard channel < laneCount, lanes[channel].isArmed, lanes[channel].startFrame > clock else { return nil }
    lanes[channel].isPaused = true
    return (clock, lanes[channel].startFrame)
  }

  /// Lets a lane held by ``holdWaiting(_:)`` on `heldAt` go: it starts on `frame` when given
  /// (not before the frame about to be mixed), else its start frame moves on by the frames mixed
  /// since, so it starts as far after the resume as it was due after the hold. Returns its new
  /// start frame. Called with the audio lock held.
  func releaseWaiting(_ channel: Int, heldAt: UInt64, at frame: UInt64? = nil) -> UInt64? {
    guard channel < laneCount, lanes[channel].isArmed, lanes[channel].startFrame != 0 else { return nil }
    let begins = frame.map { max($0, clock) } ?? lanes[channel].startFrame &+ (clock &- min(heldAt, clock))
    lanes[channel].startFrame = begins
    lanes[channel].isPaused = false
    if let voice = lanes[channel].voice?.takeUnretainedValue() {
      // The followers' time starts on the lane's first frame, which has moved.
      lanes[channel].send.reset(to: 0, request: RampRequest(target: 0, frames: 0).packed)
      lanes[channel].send.follow(voice.sendRequest, at: begins)
      lanes[channel].shaper?.takeUnretainedValue().reset(voice: voice, clock: begins)
    }
    return begins
  }

  func setPaused(_ channel: Int, _ paused: Bool) {
    guard channel < laneCount, lanes[channel].isArmed else { return }
    lanes[channel].isPaused = paused
  }

  /// Where `channel`'s lane is; nil when it is not playing.
  package func progress(of channel: Int) -> LaneProgress? {
    guard channel < laneCount, lanes[channel].isArmed else { return nil }
    let start = lanes[channel].startFrame
    var frame = lanes[channel].position / bytesPerFrame
    var loops = lanes[channel].loops
    if let shaper = lanes[channel].shaper?.takeUnretainedValue(), shaper.isEngaged {
      // The resampler holds frames it has read and not played: the voice is heard behind its
      // lane's place (about 400 source frames with libsamplerate's sinc), in an earlier pass if
      // the lane has wrapped.
      frame -= shaper.unheardFrames
      let length = lanes[channel].byteCount / bytesPerFrame
      while frame < 0, length > 0 {
        frame += length
        if loops >= 0 { loops += 1 }
      }
      frame = max(0, frame)
    }
    return LaneProgress(frame: frame, loops: loops, clock: clock, hasStarted: start == 0 || start < clock)
  }

  func isArmed(_ channel: Int) -> Bool { channel < laneCount && lanes[channel].isArmed }
  package func isPaused(_ channel: Int) -> Bool { channel < laneCount && lanes[channel].isPaused }

  /// Routes `bus` into `parent` (0: the master) and puts the buses back in an order where each
  /// runs before the one it sums into. The caller has made sure there is no loop.
  func setParent(_ parent: Int, of bus: Int) {
    guard bus > Self.reverbBus, bus < Self.busCapacity,
      parent == 0 || (parent > Self.reverbBus && parent < Self.busCapacity)
    else { return }
    buses[bus].parent = parent
    func depth(_ bus: Int) -> Int {
      var depth = 0
      var current = bus
      while buses[current].parent != 0, depth < Self.busCapacity {
        current = buses[current].parent
        depth += 1
      }
      return depth
    }
    let sorted = ((Self.reverbBus + 1)..<Self.busCapacity).sorted {
      depth($0) > depth($1) || (depth($0) == depth($1) && $0 < $1)
    }
    for (index, bus) in sorted.enumerated() { order[index] = bus }
  }

  /// Sets `bus`'s post-fader send to the reverb's return.
  func setSend(_ request: RampRequest, on bus: Int) {
    guard bus > Self.reverbBus, bus < Self.busCapacity else { return }
    buses[bus].sendRequest = request.packed
  }

  /// The effect chain of `bus`, in order (under the audio lock).
  package func effects(on bus: Int) -> [AudioEffect] {
    chains.indices.contains(bus) ? chains[bus] : []
  }

  /// Replaces the effect chain of `bus` (ringing tails of removed effects stop).
  package func setEffects(_ effects: [AudioEffect], on bus: Int) {
    guard bus > 0, bus < Self.busCapacity else { return }
    buses[bus].effects.deallocate()
    let chain = UnsafeMutableBufferPointer<Unmanaged<AudioEffect>>.allocate(capacity: effects.count)
    for (index, effect) in effects.enumerated() { chain[index] = .passUnretained(effect) }
    buses[bus].effects = chain
    setRinging(bus, false)
    chains[bus] = effects
  }

  /// Sets whether `bus`'s effects still ring, keeping ``ringingBuses``.
  @inline(__always)
  func setRinging(_ bus: Int, _ ringing: Bool) {
    guard buses[bus].ringing != ringing else { return }
    buses[bus].ringing = ringing
    ringingBuses += ringing ? 1 : -1
  }

  func clearLane(_ channel: Int) {
    if lanes[channel].isArmed { armedLanes -= 1 }
    let shaper = lanes[channel].shaper
    lanes[channel] = Lane()
    lanes[channel].shaper = shaper
  }
}

extension VoiceMixer {
  /// Stops every lane without reporting it (the device is closing; the core keeps its voices).
  func disarmAll() {
    for channel in 0..<laneCount where lanes[channel].isArmed { clearLane(channel) }
  }
}
