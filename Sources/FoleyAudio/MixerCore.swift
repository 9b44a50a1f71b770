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

  // Queue-confined state.
  private var isOpen = true
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
    Mix_HaltChannel(-1)
    processFinishedChannels()
    for request in requests.withLock({ $0.take() }) { finish(request.voice, counting: .failed) }
    Mix_ChannelFinished(nil)
    Mix_CloseAudio()
    // The effects are gone with the device; the gain states can go too.
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
  func requestPlay(_ source: PlaySource, volume: Double, pan: Double, groupVolume: Double) -> Voice {
    counters.bump(.requested)
    guard session.isActive else {
      counters.bump(.suppressed)
      return .finished()
    }
    let voice = Voice(
      id: nextVoiceID.add(1, ordering: .relaxed).oldValue, core: self, state: .pending,
      volume: min(max(volume, 0), 1), pan: min(max(pan, -1), 1))
    if groupVolume != 1 { voice.groupVolume = groupVolume }
    let needsSchedule = requests.withLock { pending in
      pending.list.append(PlayRequest(source: source, voice: voice))
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
      guard session.isActive else {
        finish(request.voice, counting: .suppressed)
        continue
      }
      start(request.voice, playing: sound)
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
    if let cached = soundsByData[data] { return try cached.get() }
    let label = name ?? "sound data (\(data.count) bytes)"
    let result = Result<Sound, SoundError> { () throws(SoundError) in try decodeSound(data, name: label) }
    soundsByData[data] = result
    return try remember(result)
  }

  /// The sound in the file `name` at `url`, read and decoded the first time only.
  func sound(named name: String, at url: URL) throws(SoundError) -> Sound {
    dispatchPrecondition(condition: .onQueue(queue))
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
    guard isOpen else { throw SoundError(.engineClosed, asset: name) }
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

  private func start(_ voice: Voice, playing sound: Sound) {
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
    let (left, right) = gainPair(for: voice, sound: sound)
    let gain = gains[channel]
    gain.reset(left: left, right: right)
    // The effect goes on before the play so the very first buffer is already shaped.
    Mix_RegisterEffect(Int32(channel), channelGainEffect, nil, Unmanaged.passUnretained(gain).toOpaque())
    guard CSDL2_Mix_PlayChannel(Int32(channel), sound.chunk, 0) >= 0 else {
      let error = SDLError.fromSDL("Mix_PlayChannel")
      Mix_UnregisterAllEffects(Int32(channel))
      logger.error("cannot play '\(sound.name)': \(error.message)")
      finish(voice, counting: .failed)
      return
    }
    startOrder += 1
    slots[channel] = Slot(voice: voice, sound: sound, order: startOrder, priority: settings.priority)
    channelOfVoice[voice.id] = channel
    instancesOfSound[key, default: 0] += 1
    lastStartOfSound[key] = now
    voice.setState(.playing)
    counters.bump(.started)
    counters.voiceStarted()
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
      guard slots.indices.contains(index), let slot = slots[index] else { continue }
      slots[index] = nil
      deferredOperations.removeAll { $0.channel == index }
      if !slot.isReleasing {
        stopCounting(slot)
        slot.voice.setState(.finished)
      }
    }
  }

  /// The voice on `slot` no longer counts against limits and can no longer be reached by its
  /// handle; its channel may still be ramping out.
  private func stopCounting(_ slot: Slot) {
    instancesOfSound[slot.soundKey, default: 1] -= 1
    counters.activeVoices.subtract(1, ordering: .relaxed)
    channelOfVoice[slot.voice.id] = nil
  }

  /// Runs every few milliseconds: completes ramps that reached silence and collects finished voices.
  private func housekeeping() {
    guard isOpen else { return }
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
      guard isOpen, let channel = channelOfVoice[voice.id], voice.state == .playing else { return }
      gains[channel].setTarget(left: 0, right: 0, step: declickStep)
      deferredOperations.append(
        DeferredOperation(channel: channel, kind: .pause, deadline: deadline(after: 0)))
      voice.setState(.paused)
    }
  }

  func resume(_ voice: Voice) {
    queue.async { [self] in
      guard isOpen, let channel = channelOfVoice[voice.id], voice.state == .paused, let slot = slots[channel]
      else { return }
      let pendingPause = deferredOperations.firstIndex { $0.channel == channel && $0.kind == .pause }
      if let pendingPause {
        deferredOperations.remove(at: pendingPause)
      } else {
        Mix_Resume(Int32(channel))
      }
      let (left, right) = gainPair(for: voice, sound: slot.sound)
      gains[channel].setTarget(left: left, right: right, step: declickStep)
      voice.setState(.playing)
    }
  }

  func updateGain(of voice: Voice) {
    queue.async { [self] in
      guard isOpen, voice.state == .playing, let channel = channelOfVoice[voice.id], let slot = slots[channel]
      else { return }
      let (left, right) = gainPair(for: voice, sound: slot.sound)
      gains[channel].setTarget(left: left, right: right, step: declickStep)
    }
  }

  /// Left and right gains from the sound's and the voice's volume and pan (linear balance law:
  /// the centre is at full level in both ears, so two centred plays simply add).
  private func gainPair(for voice: Voice, sound: Sound) -> (Float, Float) {
    let volume = sound.settings.volume * voice.volume * voice.groupVolume
    let pan = min(max(sound.settings.pan + voice.pan, -1), 1)
    return (Float(volume * min(1, 1 - pan)), Float(volume * min(1, 1 + pan)))
  }

  // MARK: - Types

  enum PlaySource: Sendable {
    case sound(Sound)
    case data(Data, name: String?)
    case named(String, url: URL)
  }

  struct PlayRequest: Sendable {
    let source: PlaySource
    let voice: Voice
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
    var isReleasing = false
    var soundKey: ObjectIdentifier { ObjectIdentifier(sound) }
  }

  private struct DeferredOperation {
    enum Kind { case halt, pause }
    let channel: Int
    let kind: Kind
    let deadline: UInt64
  }
}
