internal import CSDL2
internal import CSDL2Mixer
import Dispatch
import Foundation
import Logging
import Synchronization

/// Everything that touches SDL_mixer, confined to one serial queue.
///
/// Invariant behind `@unchecked Sendable`: every `var` below is read and written only on `queue`
/// (checked with `dispatchPrecondition` at the entry points); the `let`s are immutable or
/// thread-safe (atomics, mutexes). The game thread only enqueues work.
final class MixerCore: @unchecked Sendable {
  let queue = DispatchQueue(label: "foley.audio", qos: .userInteractive)
  let counters = AudioCounters()
  let session: AudioSession
  let logger: Logger
  let configuration: AudioConfiguration
  let sampleRate: Int
  let bytesPerFrame: Int
  let declickStep: Float
  private let isFloat: Bool
  private let deviceChannels: Int
  private let nextVoiceID = Atomic<UInt64>(1)
  private let requests = Mutex<PendingRequests>(PendingRequests())
  /// The session policy of each category; read by the game thread's gate while inactive.
  let policies = Mutex(PolicyTable())
  /// SDL's id of the opened output device; 0 while there is none.
  let deviceID = Atomic<UInt32>(0)

  // Queue-confined state.
  private var isOpen = true
  /// False after the device was lost and none could be reopened yet.
  private var hasDevice = true
  /// The session state last applied to the voices.
  private var sessionState = AudioSession.State()
  /// Voices kept while there is no device, as the slots they will be restored into: each one's
  /// `chunkOffset` is where to continue and `loops` the whole passes after that.
  private var orphans: [Slot] = []
  private var hasWarnedAboutDevice = false
  private var slots: [Slot?] = []
  private var gains: [ChannelGain] = []
  private var channelOfVoice: [UInt64: Int] = [:]
  private var startOrder: UInt64 = 0
  private var instancesOfSound: [ObjectIdentifier: Int] = [:]
  private var lastStartOfSound: [ObjectIdentifier: UInt64] = [:]
  private var deferredOperations: [DeferredOperation] = []
  private var soundsByData: [Data: Result<Sound, SoundError>] = [:]
  private var soundsByName: [String: Result<Sound, SoundError>] = [:]
  private var timer: (any DispatchSourceTimer)?

  /// Extra physical channels beyond the voice cap, where stolen and stopped voices ramp out.
  private let releaseReserve = 16

  init(configuration: AudioConfiguration, format: AudioDeviceFormat, session: AudioSession, logger: Logger) {
    self.configuration = configuration
    self.session = session
    self.logger = logger
    sampleRate = format.sampleRate
    isFloat = format.sampleFormat == .float32
    deviceChannels = format.channels
    bytesPerFrame = (isFloat ? 4 : 2) * format.channels
    declickStep = Float(1 / max(1, configuration.declickDuration * Double(format.sampleRate)))
  }

  // MARK: - Start and stop

  /// Allocates the first channels and starts the housekeeping timer. Called once, on the queue,
  /// right after the device opened.
  func start() {
    dispatchPrecondition(condition: .onQueue(queue))
    Mix_ChannelFinished(channelFinishedCallback)
    _ = finishedChannelInbox.drain()
    growChannels(to: max(1, min(configuration.initialChannels, configuration.maximumChannels)))
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + .milliseconds(5), repeating: .milliseconds(5), leeway: .milliseconds(2))
    timer.setEventHandler { [unowned self] in self.housekeeping() }
    timer.resume()
    self.timer = timer
  }

  /// Halts every channel and closes the mixer. Called once, on the queue.
  func shutDown() {
    dispatchPrecondition(condition: .onQueue(queue))
    guard isOpen else { return }
    isOpen = false
    timer?.cancel()
    timer = nil
    if hasDevice {
      Mix_HaltChannel(-1)
      processFinishedChannels()
    }
    for request in requests.withLock({ $0.take() }) { finish(request.voice, counting: .failed) }
    for orphan in orphans { orphan.voice.setState(.finished) }
    orphans.removeAll()
    Mix_ChannelFinished(nil)
    if hasDevice { Mix_CloseAudio() }
    hasDevice = false
    deviceID.store(0, ordering: .releasing)
    // The effects are gone with the device; the gain states can go too.
    for slot in slots.compactMap({ $0 }) { slot.freeOwnedChunk() }
    slots.removeAll()
    gains.removeAll()
    soundsByData.removeAll()
    soundsByName.removeAll()
  }

  func syncOnQueue<T>(_ work: () throws -> T) rethrows -> T {
    dispatchPrecondition(condition: .notOnQueue(queue))
    return try queue.sync(execute: work)
  }

  // MARK: - Requests from the game thread

  /// Queues a play and returns its voice at once. Gate one: an inactive session suppresses it here.
  func requestPlay(
    _ source: PlaySource, volume: Double, pan: Double, groupVolume: Double, loops: Int = 0
  ) -> Voice {
    counters.bump(.requested)
    guard session.isActive || mayPlayWhileInactive(source.category, state: session.state) else {
      counters.bump(.suppressed)
      return .finished()
    }
    let voice = Voice(
      id: nextVoiceID.add(1, ordering: .relaxed).oldValue, core: self, state: .pending,
      volume: min(max(volume, 0), 1), pan: min(max(pan, -1), 1))
    if groupVolume != 1 { voice.groupVolume = groupVolume }
    let needsSchedule = requests.withLock { pending in
      pending.list.append(PlayRequest(source: source, voice: voice, loops: max(-1, loops)))
      defer { pending.isScheduled = true }
      return !pending.isScheduled
    }
    // One queue hop for however many plays a frame asks for.
    if needsSchedule { queue.async { self.servePlayRequests() } }
    return voice
  }

  private func servePlayRequests() {
    let batch = requests.withLock { $0.take() }
    guard isOpen else {
      for request in batch { finish(request.voice, counting: .failed) }
      return
    }
    processFinishedChannels()
    for request in batch {
      guard request.voice.state == .pending else { continue }  // stopped before it started
      guard let sound = resolve(request.source) else {
        finish(request.voice, counting: .failed)
        continue
      }
      // Gate two: the session may have gone inactive since the action ran.
      guard hasDevice, session.isActive || mayPlayWhileInactive(sound.settings.category, state: session.state)
      else {
        finish(request.voice, counting: .suppressed)
        continue
      }
      start(request.voice, playing: sound, loops: request.loops)
    }
  }

  private func resolve(_ source: PlaySource) -> Sound? {
    switch source {
    case .sound(let sound):
      guard sound.core === self else {
        logger.error("sound '\(sound.name)' belongs to another audio engine")
        return nil
      }
      return sound
    case .data(let data, let name):
      return try? sound(for: data, name: name)
    case .named(let name, let url):
      return try? sound(named: name, at: url)
    }
  }

  /// The sound for `data`, decoding it the first time only. A failure is remembered too, so bad
  /// bytes played every frame log once and are not decoded again.
  func sound(for data: Data, name: String?) throws(SoundError) -> Sound {
    dispatchPrecondition(condition: .onQueue(queue))
    try requireDevice(name ?? "sound data (\(data.count) bytes)")
    if let cached = soundsByData[data] { return try cached.get() }
    let label = name ?? "sound data (\(data.count) bytes)"
    let result = Result<Sound, SoundError> { () throws(SoundError) in try decodeSound(data, name: label) }
    soundsByData[data] = result
    return try remember(result)
  }

  /// The sound in the file `name` at `url`, read and decoded the first time only.
  func sound(named name: String, at url: URL) throws(SoundError) -> Sound {
    dispatchPrecondition(condition: .onQueue(queue))
    try requireDevice(name)
    if let cached = soundsByName[name] { return try cached.get() }
    let result = Result<Sound, SoundError> { () throws(SoundError) in
      let data: Data
      do {
        data = try Data(contentsOf: url)
      } catch {
        throw SoundError(.unreadable, asset: name, message: "\(url.path): \(error.localizedDescription)")
      }
      return try decodeSound(data, name: name)
    }
    soundsByName[name] = result
    return try remember(result)
  }

  /// SDL_mixer decodes into the open device's format, so without a device nothing can be decoded;
  /// that failure is not remembered, the bytes may be fine.
  private func requireDevice(_ name: String) throws(SoundError) {
    guard isOpen else { throw SoundError(.engineClosed, asset: name) }
    guard hasDevice else { throw SoundError(.noDevice, asset: name) }
  }

  /// Logs a new failure once; returns the sound or throws the error.
  private func remember(_ result: Result<Sound, SoundError>) throws(SoundError) -> Sound {
    if case .failure(let error) = result { logger.error("\(error)") }
    return try result.get()
  }

  private func decodeSound(_ data: Data, name: String) throws(SoundError) -> Sound {
    Sound(chunk: try decode(data, name: name), name: name, settings: SoundSettings(), core: self)
  }

  /// Decodes bytes into a chunk in the device's format. On the queue only.
  func decode(_ data: Data, name: String) throws(SoundError) -> UnsafeMutablePointer<Mix_Chunk> {
    dispatchPrecondition(condition: .onQueue(queue))
    try requireDevice(name)
    guard !data.isEmpty else { throw SoundError(.empty, asset: name) }
    guard data.count <= Int(Int32.max) else {
      throw SoundError(.undecodable, asset: name, message: "larger than 2 GiB")
    }
    let chunk = data.withUnsafeBytes { bytes -> UnsafeMutablePointer<Mix_Chunk>? in
      guard let stream = CSDL2_RWFromConstMem(bytes.baseAddress, Int32(bytes.count)) else { return nil }
      return Mix_LoadWAV_RW(stream, 1)
    }
    guard let chunk else {
      let error = SDLError.fromSDL("Mix_LoadWAV_RW")
      throw SoundError(.undecodable, asset: name, message: error.message)
    }
    counters.bump(.decoded)
    return chunk
  }

  // MARK: - Channels

  private func start(_ voice: Voice, playing sound: Sound, loops: Int) {
    let key = ObjectIdentifier(sound)
    let settings = sound.settings
    let now = DispatchTime.now().uptimeNanoseconds
    if settings.minimumInterval > 0, let last = lastStartOfSound[key],
      Double(now - last) / 1e9 < settings.minimumInterval
    {
      finish(voice, counting: .rejected)
      return
    }
    if let limit = settings.maximumInstances, instancesOfSound[key, default: 0] >= limit {
      // The sound's own limit: only stealing its own oldest voice makes sense.
      guard settings.policy == .stealOldest, limit > 0,
        let victim = oldestChannel(where: { $0.soundKey == key })
      else {
        finish(voice, counting: .rejected)
        return
      }
      steal(channel: victim)
    }
    if activeVoiceCount >= configuration.maximumChannels {
      let victim: Int?
      switch settings.policy {
      case .stealOldest:
        victim = oldestChannel(where: { _ in true })
      case .stealLowestPriority:
        victim = lowestPriorityChannel(below: settings.priority)
      case .reject:
        victim = nil
      }
      guard let victim else {
        finish(voice, counting: .rejected)
        return
      }
      steal(channel: victim)
    }
    guard let channel = freeChannel() else {
      finish(voice, counting: .rejected)
      return
    }
    startOrder += 1
    let slot = Slot(
      voice: voice, sound: sound, order: startOrder, priority: settings.priority, loops: loops,
      sessionMode: mode(for: settings.category))
    guard play(slot, on: channel, chunk: sound.chunk, loops: loops, paused: false) else {
      finish(voice, counting: .failed)
      return
    }
    instancesOfSound[key, default: 0] += 1
    lastStartOfSound[key] = now
    voice.setState(.playing)
    counters.bump(.started)
    counters.voiceStarted()
  }

  /// Puts `slot` on `channel` with its gain stage in front; false (logged) when SDL_mixer refuses.
  private func play(
    _ slot: Slot, on channel: Int, chunk: UnsafeMutablePointer<Mix_Chunk>, loops: Int, paused: Bool
  ) -> Bool {
    let gain = gains[channel]
    if paused {
      gain.reset(left: 0, right: 0)
    } else {
      let (left, right) = gainPair(for: slot)
      gain.reset(left: left, right: right)
    }
    // The effect goes on before the play so the very first buffer is already shaped.
    Mix_RegisterEffect(Int32(channel), channelGainEffect, nil, Unmanaged.passUnretained(gain).toOpaque())
    guard CSDL2_Mix_PlayChannel(Int32(channel), chunk, Int32(loops)) >= 0 else {
      let error = SDLError.fromSDL("Mix_PlayChannel")
      Mix_UnregisterAllEffects(Int32(channel))
      logger.error("cannot play '\(slot.sound.name)': \(error.message)")
      return false
    }
    if paused { Mix_Pause(Int32(channel)) }
    slots[channel] = slot
    channelOfVoice[slot.voice.id] = channel
    return true
  }

  private var activeVoiceCount: Int { counters.activeVoices.load(ordering: .relaxed) }

  private func oldestChannel(where matches: (Slot) -> Bool) -> Int? {
    var best: (channel: Int, order: UInt64)?
    for (channel, slot) in slots.enumerated() {
      guard let slot, !slot.isReleasing, matches(slot) else { continue }
      if best == nil || slot.order < best!.order { best = (channel, slot.order) }
    }
    return best?.channel
  }

  private func lowestPriorityChannel(below priority: Int) -> Int? {
    var best: (channel: Int, priority: Int, order: UInt64)?
    for (channel, slot) in slots.enumerated() {
      guard let slot, !slot.isReleasing, slot.priority < priority else { continue }
      if best == nil || (slot.priority, slot.order) < (best!.priority, best!.order) {
        best = (channel, slot.priority, slot.order)
      }
    }
    return best?.channel
  }

  /// A channel with nothing on it, growing the pool when needed; as a last resort the channel
  /// that has been ramping out longest is cut (it is already nearly silent).
  private func freeChannel() -> Int? {
    if let free = slots.firstIndex(where: { $0 == nil }) { return free }
    let limit = configuration.maximumChannels + releaseReserve
    if slots.count < limit {
      let before = slots.count
      growChannels(to: min(limit, max(before * 2, before + 1)))
      if slots.count > before { return before }
    }
    guard let releasing = deferredOperations.first(where: { $0.kind == .halt }) else { return nil }
    Mix_HaltChannel(Int32(releasing.channel))
    processFinishedChannels()
    return slots.firstIndex(where: { $0 == nil })
  }

  private func growChannels(to count: Int) {
    let allocated = Int(Mix_AllocateChannels(Int32(count)))
    while slots.count < allocated {
      slots.append(nil)
      gains.append(ChannelGain(isFloat: isFloat, channelCount: deviceChannels, defaultStep: declickStep))
    }
  }

  /// Turns a playing voice into a releasing one: it no longer counts, ramps out and is halted.
  private func steal(channel: Int) {
    guard let slot = slots[channel] else { return }
    release(channel: channel, slot: slot, fadeOut: 0)
    finish(slot.voice, counting: .stolen)
  }

  private func release(channel: Int, slot: Slot, fadeOut: Double) {
    var slot = slot
    slot.isReleasing = true
    slots[channel] = slot
    stopCounting(slot)
    deferredOperations.removeAll { $0.channel == channel }
    if Mix_Paused(Int32(channel)) != 0 {
      // A paused channel is already silent: halting it cannot click.
      Mix_HaltChannel(Int32(channel))
      return
    }
    let step = fadeOut > 0 ? min(declickStep, Float(1 / (fadeOut * Double(sampleRate)))) : declickStep
    gains[channel].setTarget(left: 0, right: 0, step: step)
    deferredOperations.append(
      DeferredOperation(channel: channel, kind: .halt, deadline: deadline(after: fadeOut)))
  }

  private func deadline(after fade: Double) -> UInt64 {
    // The ramp, plus two device buffers for it to be mixed, plus margin.
    let buffer = Double(configuration.bufferFrames) / Double(sampleRate)
    let seconds = max(fade, configuration.declickDuration) + 2 * buffer + 0.02
    return DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
  }

  private func finish(_ voice: Voice, counting outcome: AudioCounters.Outcome) {
    voice.setState(.finished)
    counters.bump(outcome)
  }

  /// Applies what SDL_mixer reported finished since the last look.
  private func processFinishedChannels() {
    for channel in finishedChannelInbox.drain() {
      let index = Int(channel)
      guard slots.indices.contains(index), var slot = slots[index] else { continue }
      slot.freeOwnedChunk()
      slots[index] = nil
      deferredOperations.removeAll { $0.channel == index }
      if !slot.isReleasing, slot.chunkOffset > 0, slot.loops != 0 {
        // A looping voice restored mid-pass finished that pass: carry on with whole passes.
        slot.chunkOffset = 0
        slot.ownedChunk = nil
        slot.loops = slot.loops < 0 ? -1 : slot.loops - 1
        if play(slot, on: index, chunk: slot.sound.chunk, loops: slot.loops, paused: false) { continue }
      }
      if !slot.isReleasing {
        stopCounting(slot)
        slot.voice.setState(.finished)
      }
    }
  }

  /// The voice on `slot` no longer counts against limits and can no longer be reached by its
  /// handle; its channel may still be ramping out.
  private func stopCounting(_ slot: Slot) {
    uncount(soundKey: slot.soundKey, voiceID: slot.voice.id)
  }

  private func uncount(soundKey: ObjectIdentifier, voiceID: UInt64) {
    instancesOfSound[soundKey, default: 1] -= 1
    counters.activeVoices.subtract(1, ordering: .relaxed)
    channelOfVoice[voiceID] = nil
  }

  /// Runs every few milliseconds: completes ramps that reached silence and collects finished voices.
  private func housekeeping() {
    guard isOpen, hasDevice else { return }
    processFinishedChannels()
    guard !deferredOperations.isEmpty else { return }
    let now = DispatchTime.now().uptimeNanoseconds
    var remaining: [DeferredOperation] = []
    for operation in deferredOperations {
      guard gains[operation.channel].isSilent || now >= operation.deadline else {
        remaining.append(operation)
        continue
      }
      switch operation.kind {
      case .halt: Mix_HaltChannel(Int32(operation.channel))
      case .pause: Mix_Pause(Int32(operation.channel))
      }
    }
    deferredOperations = remaining
    processFinishedChannels()
  }

  // MARK: - Voice control

  func stop(_ voice: Voice, fadeOut: Double) {
    queue.async { [self] in
      guard isOpen else { return }
      processFinishedChannels()
      if let orphan = orphans.firstIndex(where: { $0.voice === voice }) {
        orphans.remove(at: orphan)
        counters.activeVoices.subtract(1, ordering: .relaxed)
        voice.setState(.finished)
        return
      }
      guard let channel = channelOfVoice[voice.id], let slot = slots[channel] else {
        // Not started yet: the request is skipped when it is served.
        if voice.state == .pending { voice.setState(.finished) }
        return
      }
      release(channel: channel, slot: slot, fadeOut: fadeOut)
      voice.setState(.finished)
    }
  }

  func pause(_ voice: Voice) {
    queue.async { [self] in
      guard isOpen, voice.state == .playing else { return }
      if orphans.contains(where: { $0.voice === voice }) {
        voice.setState(.paused)
        return
      }
      guard let channel = channelOfVoice[voice.id], var slot = slots[channel] else { return }
      // The game's pause wins: the session will not resume this voice.
      let alreadyPaused = slot.sessionMode == .paused
      slot.sessionMode = .normal
      slots[channel] = slot
      voice.setState(.paused)
      guard !alreadyPaused else { return }
      rampToPause(channel)
    }
  }

  private func rampToPause(_ channel: Int) {
    gains[channel].setTarget(left: 0, right: 0, step: declickStep)
    deferredOperations.append(DeferredOperation(channel: channel, kind: .pause, deadline: deadline(after: 0)))
  }

  /// Undoes a pause that is pending or done, ramping up to the slot's gains.
  private func rampToResume(_ channel: Int) {
    guard let slot = slots[channel] else { return }
    let pendingPause = deferredOperations.firstIndex { $0.channel == channel && $0.kind == .pause }
    if let pendingPause {
      deferredOperations.remove(at: pendingPause)
    } else {
      Mix_Resume(Int32(channel))
    }
    let (left, right) = gainPair(for: slot)
    gains[channel].setTarget(left: left, right: right, step: declickStep)
  }

  func resume(_ voice: Voice) {
    queue.async { [self] in
      guard isOpen, voice.state == .paused else { return }
      if orphans.contains(where: { $0.voice === voice }) {
        voice.setState(.playing)
        return
      }
      guard let channel = channelOfVoice[voice.id], var slot = slots[channel] else { return }
      voice.setState(.playing)
      // Resumed while the session keeps its category silent: it waits for the session.
      slot.sessionMode = mode(for: slot.sound.settings.category)
      slots[channel] = slot
      if slot.sessionMode != .paused { rampToResume(channel) }
    }
  }

  func updateGain(of voice: Voice) {
    queue.async { [self] in
      guard isOpen, voice.state == .playing, let channel = channelOfVoice[voice.id],
        let slot = slots[channel],
        slot.sessionMode != .paused
      else { return }
      let (left, right) = gainPair(for: slot)
      gains[channel].setTarget(left: left, right: right, step: declickStep)
    }
  }

  /// Left and right gains from the sound's and the voice's volume and pan (linear balance law:
  /// the centre is at full level in both ears, so two centred plays simply add).
  private func gainPair(for slot: Slot) -> (Float, Float) {
    let voice = slot.voice
    let sound = slot.sound
    let volume = sound.settings.volume * voice.volume * voice.groupVolume * Double(slot.sessionMode.gain)
    let pan = min(max(sound.settings.pan + voice.pan, -1), 1)
    return (Float(volume * min(1, 1 - pan)), Float(volume * min(1, 1 + pan)))
  }

  // MARK: - Session

  enum SessionMode: Equatable {
    case normal
    case ducked(Float)
    case paused

    var gain: Float {
      switch self {
      case .normal: 1
      case .ducked(let gain): gain
      case .paused: 0
      }
    }
  }

  struct PolicyTable: Sendable {
    var standard: SessionPolicy = .ambient
    var byCategory: [SoundCategory: SessionPolicy] = [:]

    func policy(for category: SoundCategory) -> SessionPolicy { byCategory[category] ?? standard }
  }

  /// Whether a new play of `category` may start in `state`: the gate for unfocused categories
  /// whose policy keeps them playing.
  func mayPlayWhileInactive(_ category: SoundCategory, state: AudioSession.State) -> Bool {
    if state.isActive { return true }
    if state.silencesEverything { return false }
    return policies.withLock { $0.policy(for: category) }.unfocusedGain != nil
  }

  private func mode(for category: SoundCategory) -> SessionMode {
    if sessionState.isActive { return .normal }
    if sessionState.silencesEverything { return .paused }
    guard let gain = policies.withLock({ $0.policy(for: category) }).unfocusedGain else { return .paused }
    return gain >= 1 ? .normal : .ducked(gain)
  }

  /// Brings every voice in line with the session: pauses (with a ramp), ducks or resumes it.
  /// Voices the game paused are left alone, so they stay paused across the transition.
  func applySession(_ change: StateChange) {
    dispatchPrecondition(condition: .onQueue(queue))
    sessionState = change.new
    reapplySessionModes(resumingPausedVoices: change.resumesPausedVoices)
  }

  /// Re-evaluates each voice's session mode, after a transition or a policy change.
  func reapplySessionModes(resumingPausedVoices: Bool = true) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard isOpen else { return }
    if !resumingPausedVoices {
      // `endInterruption(shouldResume: false)`: what the session paused becomes the game's to resume.
      for index in orphans.indices where orphans[index].sessionMode == .paused {
        orphans[index].sessionMode = .normal
        orphans[index].voice.setState(.paused)
      }
    }
    guard hasDevice else { return }
    processFinishedChannels()
    for channel in slots.indices {
      guard var slot = slots[channel], !slot.isReleasing else { continue }
      if !resumingPausedVoices, slot.sessionMode == .paused {
        slot.sessionMode = .normal
        slots[channel] = slot
        slot.voice.setState(.paused)
        continue
      }
      guard slot.voice.state == .playing else { continue }
      let target = mode(for: slot.sound.settings.category)
      guard target != slot.sessionMode else { continue }
      let wasPaused = slot.sessionMode == .paused
      slot.sessionMode = target
      slots[channel] = slot
      if target == .paused {
        rampToPause(channel)
      } else if wasPaused {
        rampToResume(channel)
      } else {
        let (left, right) = gainPair(for: slot)
        gains[channel].setTarget(left: left, right: right, step: declickStep)
      }
    }
  }

  /// When the mixer first mixed `voice`'s samples (uptime ns), or nil if not yet or not playing.
  func firstMixTime(of voice: Voice) -> UInt64? {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let channel = channelOfVoice[voice.id] else { return nil }
    let time = gains[channel].firstMixedAt.load(ordering: .acquiring)
    return time == 0 ? nil : time
  }

  func census() -> VoiceCensus {
    dispatchPrecondition(condition: .onQueue(queue))
    processFinishedChannels()
    var census = VoiceCensus()
    census.waitingForDevice = orphans.count
    for slot in slots.compactMap({ $0 }) {
      if slot.isReleasing {
        census.releasing += 1
      } else if slot.voice.state == .paused {
        census.pausedByGame += 1
      } else if slot.sessionMode == .paused {
        census.pausedBySession += 1
      } else {
        census.audible += 1
        if case .ducked = slot.sessionMode { census.ducked += 1 }
      }
    }
    return census
  }

  // MARK: - Device loss

  /// Closes the (lost) device, keeping the voices, and tries to open the default device in the
  /// same format. Returns whether a device is open afterwards.
  func replaceDevice() -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    guard isOpen else { return false }
    if hasDevice { closeDeviceKeepingVoices() }
    return reopenDevice()
  }

  /// With no device: one more attempt, for `SDL_AUDIODEVICEADDED`; never a retry loop. Returns
  /// whether this attempt opened a device (false when there already was one).
  func retryDevice() -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    guard isOpen, !hasDevice else { return false }
    return reopenDevice()
  }

  private func closeDeviceKeepingVoices() {
    processFinishedChannels()
    // The halts below end channels, not sounds: nobody must hear about them as finished.
    Mix_ChannelFinished(nil)
    for channel in slots.indices {
      guard let slot = slots[channel], !slot.isReleasing else { continue }
      let frames = Int(slot.sound.chunk.pointee.alen) / bytesPerFrame
      let played = gains[channel].playedFrames
      var position: Int
      var passesAfter: Int
      var ended: Bool
      if slot.chunkOffset == 0 {
        position = frames > 0 ? played % frames : 0
        let passesDone = frames > 0 ? played / frames : 1
        passesAfter = slot.loops < 0 ? -1 : slot.loops - passesDone
        ended = passesAfter < -1 || (slot.loops >= 0 && passesAfter < 0)
      } else if slot.loops < 0 {
        // A rotated copy looping forever (see `restore`): positions wrap.
        position = (slot.chunkOffset + played) % frames
        passesAfter = -1
        ended = false
      } else {
        position = slot.chunkOffset + played
        passesAfter = slot.loops
        ended = false
        if position >= frames {
          ended = slot.loops == 0
          position = 0
          passesAfter = slot.loops < 0 ? -1 : slot.loops - 1
        }
      }
      if ended || frames == 0 {
        stopCounting(slot)
        slot.voice.setState(.finished)
        continue
      }
      var kept = slot
      kept.chunkOffset = position
      kept.loops = passesAfter
      kept.ownedChunk = nil  // freed with the channels below
      orphans.append(kept)
    }
    Mix_HaltChannel(-1)
    Mix_CloseAudio()
    _ = finishedChannelInbox.drain()
    for slot in slots.compactMap({ $0 }) { slot.freeOwnedChunk() }
    slots.removeAll()
    gains.removeAll()
    channelOfVoice.removeAll()
    deferredOperations.removeAll()
    hasDevice = false
    deviceID.store(0, ordering: .releasing)
  }

  private func reopenDevice() -> Bool {
    let before = AudioEngine.openDeviceIDs()
    guard let format = AudioEngine.openMixer(configuration, deviceName: nil) else {
      let error = SDLError.fromSDL("Mix_OpenAudioDevice")
      if hasWarnedAboutDevice {
        logger.info("still no audio device: \(error.message)")
      } else {
        hasWarnedAboutDevice = true
        logger.warning(
          "audio device lost and none opens (\(error.message)); silent until a device is added")
      }
      return false
    }
    hasDevice = true
    hasWarnedAboutDevice = false
    deviceID.store(AudioEngine.openDeviceIDs().subtracting(before).min() ?? 0, ordering: .releasing)
    Mix_ChannelFinished(channelFinishedCallback)
    _ = finishedChannelInbox.drain()
    growChannels(
      to: max(1, min(max(configuration.initialChannels, orphans.count), configuration.maximumChannels)))
    var restored = 0
    for orphan in orphans.sorted(by: { $0.order < $1.order }) {
      if restore(orphan) {
        restored += 1
      } else {
        uncount(soundKey: orphan.soundKey, voiceID: orphan.voice.id)
        orphan.voice.setState(.finished)
      }
    }
    orphans.removeAll()
    logger.info("audio device reopened: \(format.driver), restored \(restored) voice(s)")
    return true
  }

  private func restore(_ orphan: Slot) -> Bool {
    guard let channel = freeChannel() else { return false }
    let paused = orphan.voice.state == .paused || orphan.sessionMode == .paused
    let position = orphan.chunkOffset
    guard position > 0 else {
      return play(orphan, on: channel, chunk: orphan.sound.chunk, loops: orphan.loops, paused: paused)
    }
    let chunk = orphan.sound.chunk.pointee
    let offset = position * bytesPerFrame
    let length = Int(chunk.alen)
    let rest: UnsafeMutablePointer<Mix_Chunk>
    let loops: Int
    if orphan.loops < 0 {
      // Looping forever: a copy of the sound rotated to start here loops on seamlessly (a
      // separate chunk for the rest of the pass would leave a gap while the queue restarts it).
      guard let buffer = SDL_malloc(length)?.assumingMemoryBound(to: UInt8.self) else { return false }
      memcpy(buffer, chunk.abuf + offset, length - offset)
      memcpy(buffer + (length - offset), chunk.abuf, offset)
      guard let rotated = Mix_QuickLoad_RAW(buffer, UInt32(length)) else {
        SDL_free(buffer)
        return false
      }
      rotated.pointee.allocated = 1  // so Mix_FreeChunk frees the copy as well
      rest = rotated
      loops = -1
    } else {
      // Continue mid-sound: a chunk that views the rest of the sound's samples (no copy); the
      // whole passes still to play follow when it finishes.
      guard let view = Mix_QuickLoad_RAW(chunk.abuf + offset, UInt32(length - offset)) else { return false }
      rest = view
      loops = 0
    }
    var slot = orphan
    slot.ownedChunk = rest
    guard play(slot, on: channel, chunk: rest, loops: loops, paused: paused) else {
      Mix_FreeChunk(rest)
      return false
    }
    return true
  }

  // MARK: - Types

  enum PlaySource: Sendable {
    case sound(Sound)
    case data(Data, name: String?)
    case named(String, url: URL)

    /// Sounds from bytes and files use default settings, so they are effects.
    var category: SoundCategory {
      if case .sound(let sound) = self { return sound.settings.category }
      return .effects
    }
  }

  struct PlayRequest: Sendable {
    let source: PlaySource
    let voice: Voice
    let loops: Int
  }

  struct PendingRequests: Sendable {
    var list: [PlayRequest] = []
    var isScheduled = false

    mutating func take() -> [PlayRequest] {
      defer {
        list.removeAll(keepingCapacity: true)
        isScheduled = false
      }
      return list
    }
  }

  private struct Slot {
    let voice: Voice
    let sound: Sound
    let order: UInt64
    let priority: Int
    /// Mix_PlayChannel's loops for the chunk on the channel (-1: forever); for a restored
    /// partial pass, the whole passes still to play after it.
    var loops: Int
    var sessionMode: SessionMode
    var isReleasing = false
    /// Where the channel's chunk starts within the sound, in frames (non-zero after a restore).
    var chunkOffset = 0
    /// A chunk made for a restore (a view into the sound's samples, or a rotated copy of them)
    /// that the slot must free.
    var ownedChunk: UnsafeMutablePointer<Mix_Chunk>?
    var soundKey: ObjectIdentifier { ObjectIdentifier(sound) }

    func freeOwnedChunk() {
      // Mix_QuickLoad_RAW chunks do not own their samples: this frees only the struct.
      if let ownedChunk { Mix_FreeChunk(ownedChunk) }
    }
  }

  private struct DeferredOperation {
    enum Kind { case halt, pause }
    let channel: Int
    let kind: Kind
    let deadline: UInt64
  }
}
