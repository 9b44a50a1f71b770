import FoleyCore
import Synchronization

/// The handle of one play of a sound.
///
/// Every play gets its own voice and its own mixer channel, so a sound overlaps itself. A voice
/// you hold is never reused: once it finishes, every call on it does nothing, even if its channel
/// is now playing something else (the handle's identity is its generation).
///
/// A voice that has finished and that nobody holds any more (fire-and-forget plays, the common
/// case) is recycled by the engine for a later play, so triggering a sound allocates nothing. Keep
/// a voice you care about with an ordinary (strong) reference: a `weak` one to a finished voice
/// may later see another play.
///
/// ```swift
/// let voice = engine.play(engineHum, volume: 0.6)
/// voice.pan = 0.3
/// voice.pause()
/// voice.resume()
/// voice.stop(tween: 0.25)
/// ```
public final class Voice: Sendable, Hashable, CustomStringConvertible {
  /// Where a voice is in its life.
  public enum State: UInt8, Sendable {
    /// Asked for; the audio queue has not started it yet.
    case pending
    case playing
    /// Paused by the game (or the session); ``resume()`` continues it.
    case paused
    /// Ended: played out, stopped, stolen, rejected, suppressed or failed.
    case finished
  }

  /// The voice's generation: unique for the engine's lifetime, never reused.
  public var id: UInt64 { rawID.load(ordering: .relaxed) }
  private let rawID: Atomic<UInt64>
  package let core: MixerCore?
  private let rawState: Atomic<UInt8>
  private let rawVolume: Atomic<UInt64>
  private let rawPan: Atomic<UInt64>
  private let rawGroupVolume = Atomic<UInt64>(Double(1).bitPattern)
  private let rawChannel = Atomic<Int>(-1)
  /// The shaping the game asked for, read by the mixing thread each buffer (see
  /// `Voice+Shaping.swift`): playback rate, low-pass cutoff (log2 of hertz), reverb send.
  let rateRequest = RampCell(VoiceShaping.unitRate)
  let cutoffRequest = RampCell(VoiceShaping.openCutoff)
  let sendRequest = RampCell(VoiceShaping.noSend)
  /// The doppler factor the scene gives a positional voice, multiplied into its rate.
  let dopplerRequest = RampCell(VoiceShaping.unitRate)
  /// The cutoff (hertz) and send the game asked for, and those the scene's walls and rooms give
  /// (``setAcoustics(cutoff:send:over:)``): the filter gets the lower cutoff, the reverb the
  /// larger send.
  let ownCutoff = Atomic<UInt64>(Double(20_000).bitPattern)
  let acousticCutoff = Atomic<UInt64>(Double(20_000).bitPattern)
  let ownSend = Atomic<UInt64>(Double(0).bitPattern)
  let acousticSend = Atomic<UInt64>(Double(0).bitPattern)
  /// What the scene's walls take from it (dB, 0: nothing) and the path it is heard by: -2 not
  /// through any geometry, -1 the straight line, 0… through that portal (for the inspector).
  let acousticOcclusion = Atomic<UInt64>(Double(0).bitPattern)
  let acousticPortal = Atomic<Int>(-2)
  /// The engine's space's listener that hears it (-1: the space does not place it), for the
  /// inspector.
  let heardByListener = Atomic<Int>(-1)
  /// Set once the voice needs a resampler or a filter: the queue then gives its lane one.
  let needsShaper = Atomic<Bool>(false)
  /// A positional voice whose placements the mix follows without the audio queue (see
  /// `Voice+Following.swift`). The queue's part: whether the mix follows it, the volume and pan
  /// offset a placement combines with, and the pan law. The game thread's part: the placement
  /// (gain and pan, two `Float`s in one word), the frames to glide over, and a count of its
  /// writes that tells the mixing thread a new one is there.
  let follows = Atomic<Bool>(false)
  let followVolume = Atomic<UInt64>(0)
  let followPanOffset = Atomic<UInt64>(0)
  let followLaw = Atomic<UInt8>(0)
  let followPlacement = Atomic<UInt64>(0)
  let followGlide = Atomic<Int>(1)
  let followWrites = Atomic<UInt32>(0)
  /// Where the scene placed a positional voice when it was asked for (nil: not positional). Later
  /// places go to the audio queue with each update, in order with everything else it is told.
  package var initialPlacement: SpatialPlacement? {
    let gain = Double(bitPattern: rawPlacementGain.load(ordering: .relaxed))
    return gain.isNaN
      ? nil : SpatialPlacement(gain: gain, pan: Double(bitPattern: rawPlacementPan.load(ordering: .relaxed)))
  }
  /// The placement's gain (NaN: none) and pan, atomics so a recycled voice can take new ones.
  private let rawPlacementGain: Atomic<UInt64>
  private let rawPlacementPan: Atomic<UInt64>
  /// The gain that brings its sound to its bus's loudness target (1 when it does not normalize).
  private let rawNormalization = Atomic<UInt64>(Double(1).bitPattern)
  package var normalization: Double {
    get { Double(bitPattern: rawNormalization.load(ordering: .relaxed)) }
    set { rawNormalization.store(newValue.bitPattern, ordering: .relaxed) }
  }
  /// The start the game scheduled, until the audio queue starts the voice.
  package let schedule = ScheduledStartHandoff()
  private let rawStartFrame = Atomic<Int>(-1)
  /// The frame of its sound the mix reached in its last block (-1: none yet): ``currentTime``.
  private let rawPlayhead = Atomic<Int>(-1)
  /// The frame of its sound the game asked it to go to (-1: none); the mixing thread takes it.
  let seekRequest = Atomic<Int>(-1)
  /// A volume tween asked for before the voice started, which its start applies: the volume it
  /// starts from (NaN: none), the tween's frames, easing and first frame. The audio queue's.
  let pendingLevelFrom = Atomic<UInt64>(Double.nan.bitPattern)
  let pendingLevelFrames = Atomic<Int>(0)
  let pendingLevelShape = Atomic<UInt16>(0)
  let pendingLevelStart = Atomic<UInt64>(0)
  private let rawVirtual = Atomic<Bool>(false)
  /// Set when a rollback finds the voice never happened (a mispredicted sound): its caption is
  /// withdrawn, uncounted, at the next update, with no hold.
  let isWithdrawn = Atomic<Bool>(false)
  /// Volume changes the game asked for that the audio queue has not handled yet, and the volume
  /// the first of them moved from: a start that falls between the two (the sound's decode ends
  /// just then) starts there, and the queue's handling moves it on.
  let levelChangesInFlight = Atomic<Int>(0)
  let inFlightLevelFrom = Atomic<UInt64>(Double(1).bitPattern)
  /// Pan tweens asked for that the queue has not handled yet, and the pan the first of them
  /// moves from: what the voice is heard at until then (``heardPan``).
  let panChangesInFlight = Atomic<Int>(0)
  let inFlightPanFrom = Atomic<UInt64>(Double(0).bitPattern)
  /// The modulators the game set (``setModulators(_:)``), in the mixing thread's form; its
  /// channel takes them at every start.
  let modulatorSlots = Locked<[ModulatorSlot]>([])
  /// The voice's own values of game parameters, by track (``setParameter(_:to:tween:)``).
  let localParameters = Locked<[Int: Double]>([:])
  /// Whether ``modulatorSlots`` holds any: a play, a recycle and a start of a voice without
  /// modulators (nearly every one) read this flag and take no lock.
  let hasModulators = Atomic<Bool>(false)

  package init(
    id: UInt64, core: MixerCore?, state: State, volume: Double, pan: Double,
    placement: SpatialPlacement? = nil
  ) {
    rawID = Atomic(id)
    self.core = core
    rawState = Atomic(state.rawValue)
    rawVolume = Atomic(volume.bitPattern)
    rawPan = Atomic(pan.bitPattern)
    rawPlacementGain = Atomic((placement?.gain ?? .nan).bitPattern)
    rawPlacementPan = Atomic((placement?.pan ?? 0).bitPattern)
  }

  /// Makes a finished voice that nobody else holds a new pending one, as `init` would: every
  /// field back to its start. Only ``VoiceRecycler`` calls it, having checked both.
  func recycle(id: UInt64, volume: Double, pan: Double, placement: SpatialPlacement?) {
    rawID.store(id, ordering: .relaxed)
    rawVolume.store(volume.bitPattern, ordering: .relaxed)
    rawPan.store(pan.bitPattern, ordering: .relaxed)
    pendingLevelFrom.store(Double.nan.bitPattern, ordering: .relaxed)
    rawPlayhead.store(-1, ordering: .relaxed)
    seekRequest.store(-1, ordering: .relaxed)
    if hasModulators.load(ordering: .relaxed) {
      modulatorSlots.withLock { $0 = [] }
      localParameters.withLock { $0 = [:] }
      hasModulators.store(false, ordering: .relaxed)
    }
    rawGroupVolume.store(Double(1).bitPattern, ordering: .relaxed)
    rawChannel.store(-1, ordering: .relaxed)
    rateRequest.reset()
    cutoffRequest.reset()
    sendRequest.reset()
    dopplerRequest.reset()
    ownCutoff.store(Double(20_000).bitPattern, ordering: .relaxed)
    acousticCutoff.store(Double(20_000).bitPattern, ordering: .relaxed)
    ownSend.store(Double(0).bitPattern, ordering: .relaxed)
    acousticSend.store(Double(0).bitPattern, ordering: .relaxed)
    acousticOcclusion.store(Double(0).bitPattern, ordering: .relaxed)
    acousticPortal.store(-2, ordering: .relaxed)
    heardByListener.store(-1, ordering: .relaxed)
    needsShaper.store(false, ordering: .relaxed)
    follows.store(false, ordering: .relaxed)
    followWrites.store(0, ordering: .relaxed)
    rawPlacementGain.store((placement?.gain ?? .nan).bitPattern, ordering: .relaxed)
    rawPlacementPan.store((placement?.pan ?? 0).bitPattern, ordering: .relaxed)
    rawNormalization.store(Double(1).bitPattern, ordering: .relaxed)
    schedule.set(nil)
    rawStartFrame.store(-1, ordering: .relaxed)
    rawVirtual.store(false, ordering: .relaxed)
    // Last, with release: whoever sees it pending sees the rest.
    rawState.store(State.pending.rawValue, ordering: .releasing)
  }

  /// A voice that never played (suppressed, or without an engine); it still has its own id.
  package static func finished(id: UInt64) -> Voice {
    Voice(id: id, core: nil, state: .finished, volume: 1, pan: 0)
  }

  /// The mixer channel the voice is on, or -1; written on the audio queue, where the channel
  /// table checks that the channel still holds this voice before trusting it.
  package var channel: Int {
    get { rawChannel.load(ordering: .relaxed) }
    set { rawChannel.store(newValue, ordering: .relaxed) }
  }

  public var state: State { State(rawValue: rawState.load(ordering: .acquiring)) ?? .finished }

  /// The mix frame the voice starts (or started) on, once the audio queue has put it on a
  /// channel: the frame it was scheduled for, or, when it was not or its request came too late,
  /// the first frame mixed after. Nil before then, and for a voice that never played.
  public var startFrame: AudioFrame? {
    let frame = rawStartFrame.load(ordering: .acquiring)
    return frame < 0 ? nil : AudioFrame(frame)
  }

  /// Where the voice is in its sound, in seconds from the sound's start (within its current
  /// pass, for a looping voice), as of the last block the mix made: nil until its first block,
  /// and for a streamed voice (music keeps its own time: `MusicPlayer.currentTime`). It moves in
  /// steps of a block (at most 1,024 frames, 21 ms at 48 kHz) and is read without waiting for the
  /// mix; a virtual voice keeps the place it had when it went virtual until it is heard again.
  ///
  /// ```swift
  /// let line = engine.play(voiceLine)
  /// if let seconds = line.currentTime, seconds > 1.2 { subtitle.next() }
  /// ```
  public var currentTime: Double? {
    let frame = rawPlayhead.load(ordering: .relaxed)
    guard frame >= 0, let rate = core?.format.sampleRate, rate > 0 else { return nil }
    return Double(frame) / Double(rate)
  }

  /// Moves the voice to `seconds` into its sound (within its pass: the loops left stay as they
  /// are), without a click: the mix fades the old place out over 64 frames and the new one in.
  /// Out of the sound's range it is clamped to it; NaN does nothing. ``currentTime`` reads the new
  /// place after the next block. A stream (music, speech) seeks through its player
  /// (`MusicPlayer.seek(to:completion:)`), not here: on one this does nothing.
  ///
  /// ```swift
  /// let loop = engine.play(ambience, loops: -1)
  /// loop.seek(to: 12.5)     // the part of the loop that fits the new room
  /// ```
  public func seek(to seconds: Double) {
    guard let core, !seconds.isNaN else { return }
    let frame = Int((seconds.clamped(to: 0...1e7, or: 0) * Double(core.format.sampleRate)).rounded())
    core.seek(self, toFrame: frame)
    core.noteUncaptured("voice seek")
  }

  /// Keeps a level tween for the voice's next channel (its start, or its return from virtual):
  /// from `from` over `frames` frames along `easing`, from mix frame `start` (`UInt64.max`: the
  /// channel's first block). `MixerCore.startLevel(of:on:)` takes it.
  func keepLevelTween(from: Double, frames: Int, easing: Easing, start: UInt64) {
    pendingLevelFrom.store(from.bitPattern, ordering: .relaxed)
    pendingLevelFrames.store(frames, ordering: .relaxed)
    pendingLevelShape.store(easing.bits, ordering: .relaxed)
    pendingLevelStart.store(start, ordering: .relaxed)
  }

  /// Whether the mix has played a block of it (any thread; no lock, no reference counting).
  var hasPlayed: Bool { rawPlayhead.load(ordering: .relaxed) >= 0 }

  /// The mix's place in the sound after a block (mixing thread).
  @inline(__always)
  func publishPlayhead(_ frame: Int) {
    rawPlayhead.store(frame, ordering: .relaxed)
  }

  /// Records the frame the voice starts on, the first time it is put on a channel.
  func noteStart(atFrame frame: UInt64) {
    _ = rawStartFrame.compareExchange(
      expected: -1, desired: Int(truncatingIfNeeded: frame), ordering: .releasing)
  }

  /// The start frame, moved: a session pause held the voice before it started.
  func moveStart(toFrame frame: UInt64) {
    rawStartFrame.store(Int(truncatingIfNeeded: frame), ordering: .releasing)
  }

  func setState(_ state: State) {
    let was = rawState.exchange(state.rawValue, ordering: .acquiringAndReleasing)
    // Counted after the state is stored: whoever sees the count sees the voice finished.
    if state == .finished, was != State.finished.rawValue {
      core?.counters.finishedVoices.add(1, ordering: .releasing)
    }
  }

  /// True while the voice is starting or playing; false once it is paused or finished (as
  /// `AVAudioPlayer.isPlaying`).
  public var isPlaying: Bool { state == .pending || state == .playing }
  /// True while the voice is virtual: nobody could hear it (beyond
  /// ``SpatialAudio/maximumDistance``, at zero gain, on a muted bus) or the voice budget
  /// (``AudioConfiguration/maximumAudibleVoices``) left it out, so it gave its mixer channel back
  /// and costs no mixing. It keeps its place in time, and when it is heard again it continues at
  /// the frame its clock has reached, ramped in over the de-click time. Its ``state`` stays
  /// `.playing` (or `.paused`): being virtual is the engine's business, not the game's. A
  /// streamed voice (music, speech) goes virtual only when nobody can hear it.
  public var isVirtual: Bool { rawVirtual.load(ordering: .relaxed) }

  func setVirtual(_ virtual: Bool) { rawVirtual.store(virtual, ordering: .relaxed) }

  /// True once the voice has ended for good: played out, stopped, stolen, rejected, suppressed
  /// or failed. A paused voice is not finished.
  public var isFinished: Bool { state == .finished }

  /// This play's gain in 0...1 (multiplied with the sound's own volume). Setting it moves there
  /// at once, over the engine's de-click time; ``setVolume(_:tween:)`` moves there along a tween.
  /// It reads the value last asked for, which the mix may still be on its way to.
  public var volume: Double {
    get { Double(bitPattern: rawVolume.load(ordering: .relaxed)) }
    set { setVolume(newValue, tween: .immediate) }
  }

  /// Moves this play's gain to `volume` (0...1) along `tween`, sample by sample, from where the
  /// mix has it when the tween starts; a later call takes over from wherever this one got to. A
  /// paused voice's tween waits for it to resume. On a voice whose sound is still decoding, the
  /// last tween asked for runs from its start; a virtual voice's volume is simply set (it comes
  /// back at the new volume).
  ///
  /// ```swift
  /// let drone = engine.play(droneSound, loops: -1)
  /// drone.setVolume(0.25, tween: Tween(duration: 0.5, easing: .easeOut))  // 12 dB down over 0.5 s
  /// ```
  public func setVolume(_ volume: Double, tween: Tween) {
    let from = self.volume
    let target = volume.clamped(to: 0...1, or: from, member: "Voice.volume")
    if core != nil, levelChangesInFlight.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
      inFlightLevelFrom.store(from.bitPattern, ordering: .relaxed)
    }
    rawVolume.store(target.bitPattern, ordering: .releasing)
    core?.setVolume(of: self, from: from, to: target, tween: tween)
  }

  /// This play's stereo position in -1 (left) ... 1 (right), added to the sound's own pan (and
  /// a positional voice's placement). Setting it moves there at once, over the engine's de-click
  /// time; ``setPan(_:tween:)`` moves there along a tween. It reads the value last asked for.
  public var pan: Double {
    get { Double(bitPattern: rawPan.load(ordering: .relaxed)) }
    set { setPan(newValue, tween: .immediate) }
  }

  /// Moves this play's pan to `pan` (-1...1) along `tween`: the mix works the left and right
  /// gains out on the pan law every 32 frames from the tween's value and ramps between (so a
  /// sweep across the centre keeps its loudness, as the law does, rather than dipping as a
  /// straight line between two gain pairs would), from where the pan stands when the tween
  /// starts; a later call takes over from wherever this one got to. Volume, bus and placement
  /// changes during the tween compose with it. The tween runs on the engine's clock, paused or
  /// not; a voice that is virtual or still waiting for its sound simply takes the new pan.
  ///
  /// ```swift
  /// let pass = engine.play(whoosh)
  /// pass.pan = -1
  /// pass.setPan(1, tween: Tween(duration: 0.8, easing: .easeInEaseOut))  // left to right
  /// ```
  public func setPan(_ pan: Double, tween: Tween) {
    let from = self.pan
    let target = pan.clamped(to: -1...1, or: from, member: "Voice.pan")
    if core != nil, tween.usableDuration > 0,
      panChangesInFlight.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0
    {
      inFlightPanFrom.store(from.bitPattern, ordering: .relaxed)
    }
    rawPan.store(target.bitPattern, ordering: .releasing)
    core?.setPan(of: self, from: from, to: target, tween: tween)
  }

  /// The pan the queue places the voice at: ``pan``, or, while a pan tween asked for has not
  /// reached the queue, the pan that tween moves from (a voice starting then starts there, and
  /// the tween moves it on). Audio queue.
  var heardPan: Double {
    guard panChangesInFlight.load(ordering: .acquiring) > 0 else { return pan }
    return Double(bitPattern: inFlightPanFrom.load(ordering: .relaxed))
  }

  /// A further gain set by the node that started the voice (`Action.changeVolume(to:duration:)`).
  package var groupVolume: Double {
    get { Double(bitPattern: rawGroupVolume.load(ordering: .relaxed)) }
    set {
      rawGroupVolume.store(newValue.clamped(to: 0...1, or: groupVolume).bitPattern, ordering: .relaxed)
      core?.updateGain(of: self)
    }
  }

  /// Stops the voice, its level moving to silence along `tween` (at least over the engine's
  /// de-click time), from the tween's start. Does nothing once the voice has finished; the voice
  /// is finished for the game at once, and its channel is let go once the fade is silent.
  ///
  /// ```swift
  /// hum.stop(tween: 0.5)                                      // half a second, linear
  /// hum.stop(tween: Tween(duration: 2, easing: .easeIn))      // a long tail that drops late
  /// ```
  public func stop(tween: Tween = .immediate) {
    core?.stop(self, tween: tween)
  }

  /// Pauses the voice after a short ramp; ``resume()`` continues from where it paused.
  public func pause() {
    core?.pause(self)
  }

  /// Continues a paused voice, ramping back up.
  public func resume() {
    core?.resume(self)
  }

  public var description: String { "Voice#\(id)(\(state))" }

  public static func == (lhs: Voice, rhs: Voice) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
