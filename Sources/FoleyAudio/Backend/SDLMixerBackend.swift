internal import CFoleySDL2
internal import CFoleySDL2Mixer
import Dispatch
import FoleyCore
import Foundation
import Synchronization

/// The real mixer: SDL_mixer's channels on SDL's audio device. Every `Mix_*` call Foley makes is
/// in this file.
///
/// SDL_mixer is process-wide, so one backend may have it open at a time.
///
/// Invariant behind `@unchecked Sendable`: the `var`s are touched only on the engine's audio
/// queue (open, close and every channel call come from there); the wake source and timer are
/// Dispatch objects, safe from any thread.
final class SDLMixerBackend: MixerBackend, @unchecked Sendable {
  private static let mixerInUse = Atomic<Bool>(false)

  private var ownsAudioSubsystem = false
  /// Whether this backend holds the process's claim on SDL_mixer (``release()`` gives it back).
  private var claimsMixer = false
  private var isOpen = false
  private let openDevice = Atomic<UInt32>(0)
  private var wakeSource: (any DispatchSourceUserDataOr)?
  private var timer: (any DispatchSourceTimer)?
  /// The deadline the timer is armed for, nil once it fired (or never armed).
  private var armedDeadline: UInt64?
  private var connectedMixer: VoiceMixer?
  /// The silent chunk every channel loops while its voice plays in the ``VoiceMixer``.
  private var carrier: MixChunk?
  /// What SDL played between opening the device and connecting the voice mixer.
  private let playedBeforeMix = PlayedBeforeMix()

  /// How long SDL's audio thread sleeps after a buffer it wrote while the device was still
  /// paused, on the drivers whose thread keeps its own time (disk and dummy: `SDL_Delay` of the
  /// buffer's whole milliseconds, or `SDL_DISKAUDIODELAY`); nil on the others.
  static func pausedIterationNanoseconds(driver: String, configuration: AudioConfiguration) -> UInt64? {
    guard driver == "disk" || driver == "dummy" else { return nil }
    var milliseconds = configuration.bufferFrames * 1_000 / max(1, configuration.sampleRate)
    if driver == "disk", let text = getenv("SDL_DISKAUDIODELAY") {
      milliseconds = Int(atoi(text))
    }
    return milliseconds > 0 ? UInt64(milliseconds) * 1_000_000 : nil
  }

  /// Claims SDL_mixer for this process's one engine and takes a reference on SDL's audio
  /// subsystem.
  /// - Throws: ``AudioEngineError/alreadyOpen`` when another engine has the mixer,
  ///   ``AudioEngineError/mixerOpenedByHost`` when something else opened SDL_mixer, and
  ///   ``AudioEngineError/noAudio(_:)`` when SDL audio cannot start.
  package init() throws(AudioEngineError) {
    guard
      Self.mixerInUse.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { throw .alreadyOpen }
    guard Mix_QuerySpec(nil, nil, nil) == 0 else {
      Self.mixerInUse.store(false, ordering: .releasing)
      throw .mixerOpenedByHost
    }
    wasSoleAudioUser = SDL_WasInit(SDL_INIT_AUDIO) == 0
    // SDL counts subsystem references: the engine always takes its own and gives it back on
    // release, so a host (or a recorder) quitting audio cannot pull the device out from under it.
    // alsa-lib's own error lines, printed while SDL probes, are quieted first (Foley says in one
    // line when there is no device).
    CFoleySDL2_QuietALSAErrors()
    guard SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 else {
      Self.mixerInUse.store(false, ordering: .releasing)
      throw .noAudio(SDLError.fromSDL("SDL_InitSubSystem(audio)"))
    }
    ownsAudioSubsystem = true
    claimsMixer = true
  }

  /// Gives back the audio subsystem reference and the claim on SDL_mixer. Called once, after
  /// ``close()``.
  package func release() {
    if ownsAudioSubsystem {
      ownsAudioSubsystem = false
      detach()
      SDL_QuitSubSystem(SDL_INIT_AUDIO)
    }
    // Given back even when the subsystem's reference went with a failed restart on the dummy
    // driver: the next engine may open.
    if claimsMixer {
      claimsMixer = false
      Self.mixerInUse.store(false, ordering: .releasing)
    }
  }

  /// Whether SDL audio was not running before this backend took its reference: then switching it
  /// to the dummy driver (the no-device fallback) pulls no device from under anyone else.
  let wasSoleAudioUser: Bool

  /// Restarts SDL audio on its dummy driver: the no-device fallback when this backend is SDL
  /// audio's only user. The reference stays counted (no raw `SDL_AudioInit`).
  func switchToDummyDriver() throws(SDLError) {
    SDL_QuitSubSystem(SDL_INIT_AUDIO)
    SDL_SetHintWithPriority(SDL_HINT_AUDIODRIVER, "dummy", SDL_HINT_OVERRIDE)
    defer { _ = SDL_ResetHint(SDL_HINT_AUDIODRIVER) }
    guard SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 else {
      ownsAudioSubsystem = false
      throw SDLError.fromSDL("SDL_InitSubSystem(audio, dummy)")
    }
  }

  deinit { release() }

  // MARK: - Device

  package func open(
    _ configuration: AudioConfiguration, deviceName: String?
  ) throws(SDLError) -> AudioDeviceFormat {
    let before = Self.openDeviceIDs()
    let sdlFormat =
      configuration.sampleFormat == .float32 ? CFoleySDL2_AUDIO_F32SYS() : CFoleySDL2_AUDIO_S16SYS()
    // SDL starts the device inside Mix_OpenAudioDevice and may play a buffer or two before the
    // voice mixer is connected: a hook set first counts them, and the mixer's clock starts past
    // them, so its frame 0 is always the device's first frame.
    playedBeforeMix.bytes.store(0, ordering: .relaxed)
    playedBeforeMix.firstCallback.store(0, ordering: .relaxed)
    playedBeforeMix.opening.store(HostTime.now.nanoseconds, ordering: .relaxed)
    Mix_SetPostMix(countingPostMix, Unmanaged.passUnretained(playedBeforeMix).toOpaque())
    // No format changes allowed: SDL converts for the device, so the mixer (and the gain stage)
    // always sees the format asked for.
    guard
      Mix_OpenAudioDevice(
        Int32(configuration.sampleRate), sdlFormat, Int32(configuration.channels),
        Int32(configuration.bufferFrames), deviceName, 0) == 0
    else { throw SDLError.fromSDL("Mix_OpenAudioDevice") }
    isOpen = true
    let driver = SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? "unknown"
    playedBeforeMix.pausedIteration = Self.pausedIterationNanoseconds(
      driver: driver, configuration: configuration)
    // The disk driver's file holds every buffer SDL wrote, paused or not (SDL_diskaudio.c names
    // it: the device name, else SDL_DISKAUDIOFILE, else sdlaudio.raw).
    playedBeforeMix.diskFile =
      driver == "disk"
      ? deviceName ?? getenv("SDL_DISKAUDIOFILE").map { String(cString: $0) } ?? "sdlaudio.raw" : nil
    // SDL_mixer does not say which device id it opened; the new one is its.
    openDevice.store(Self.openDeviceIDs().subtracting(before).min() ?? 0, ordering: .releasing)
    var rate: Int32 = 0
    var format: UInt16 = 0
    var channels: Int32 = 0
    Mix_QuerySpec(&rate, &format, &channels)
    return AudioDeviceFormat(
      driver: driver,
      sampleRate: Int(rate), sampleFormat: CFoleySDL2_AUDIO_ISFLOAT(format) != 0 ? .float32 : .signed16,
      channels: Int(channels), bufferFrames: configuration.bufferFrames)
  }

  package var deviceID: UInt32 { openDevice.load(ordering: .acquiring) }

  package func outputDevices() -> [AudioDevice] {
    // The default's name, where the driver knows it (SDL 2.24+); otherwise the first device.
    var defaultName: UnsafeMutablePointer<CChar>?
    var spec = SDL_AudioSpec()
    let knowsDefault = SDL_GetDefaultAudioInfo(&defaultName, &spec, 0) == 0
    defer { if let defaultName { SDL_free(defaultName) } }
    let named = defaultName.map { String(cString: $0) }
    let names = (0..<max(0, SDL_GetNumAudioDevices(0))).compactMap { index in
      SDL_GetAudioDeviceName(index, 0).map { String(cString: $0) }
    }
    return names.enumerated().map { index, name in
      AudioDevice(name: name, isDefault: knowsDefault ? name == named : index == 0)
    }
  }

  package func close() {
    guard isOpen else { return }
    isOpen = false
    // Channels stopped by closing are not "finished" sounds: nobody may hear about them.
    withAudioLock { connectedMixer?.disarmAll() }
    connect(mixer: nil)
    Mix_HaltChannel(-1)
    Mix_CloseAudio()
    carrier?.freeWithoutMixer()
    carrier = nil
    openDevice.store(0, ordering: .releasing)
  }

  /// The ids of the audio devices open right now. SDL hands out ids from a small table (open
  /// devices + 1), so the first 64 cover it.
  private static func openDeviceIDs() -> Set<UInt32> {
    Set((1...64).filter { SDL_GetAudioDeviceStatus(SDL_AudioDeviceID($0)) != SDL_AUDIO_STOPPED })
  }

  // MARK: - Channels

  func allocateChannels(_ count: Int) -> Int { Int(Mix_AllocateChannels(Int32(count))) }

  package func play(_ start: LaneStart, on channel: Int) throws(SDLError) -> UInt64? {
    guard let mixer = connectedMixer, let carrier = carrierChunk() else {
      throw SDLError(operation: "Mix_PlayChannel", message: "the mixer is not connected")
    }
    // Arming and starting under one hold of the audio lock: SDL's device lock is recursive, so
    // SDL_mixer's own lock inside ours costs less than a second round trip.
    let armed: Result<UInt64?, SDLError> = withAudioLock {
      guard let startFrame = mixer.arm(channel, start) else { return .success(nil) }
      // The channel is the voice's lease: the carrier loops at volume 0, so SDL_mixer mixes
      // nothing, and with no effects registered it copies nothing either.
      guard CFoleySDL2Mixer_PlayChannel(Int32(channel), carrier.pointer, -1) >= 0 else {
        let error = SDLError.fromSDL("Mix_PlayChannel")
        _ = mixer.disarm(channel)
        return .failure(error)
      }
      if start.paused { Mix_Pause(Int32(channel)) }
      return .success(startFrame)
    }
    return try armed.get()
  }

  /// The carrier, made once per open device.
  private func carrierChunk() -> MixChunk? {
    if let carrier { return carrier }
    let bytes = 4_096 * 8
    guard let samples = SDL_calloc(1, bytes), let chunk = MixChunk.owning(samples, byteCount: bytes) else {
      return nil
    }
    Mix_VolumeChunk(chunk.pointer, 0)
    carrier = chunk
    return chunk
  }

  package func halt(_ channel: Int) {
    // Two round trips of the audio lock, not one around both: the closure that held both cost
    // more than the nested lock it saved.
    if let mixer = connectedMixer {
      withAudioLock { if mixer.disarm(channel) { mixer.inbox.post(Int32(channel)) } }
    }
    Mix_HaltChannel(Int32(channel))
  }

  package func cut(_ channel: Int) -> Bool {
    guard let mixer = connectedMixer else { return false }
    return withAudioLock { mixer.disarm(channel) }
  }

  package func pause(_ channel: Int) {
    withAudioLock { connectedMixer?.setPaused(channel, true) }
    Mix_Pause(Int32(channel))
  }

  package func resume(_ channel: Int) {
    withAudioLock { connectedMixer?.setPaused(channel, false) }
    Mix_Resume(Int32(channel))
  }

  package func isPaused(_ channel: Int) -> Bool {
    withAudioLock { connectedMixer?.isPaused(channel) ?? false }
  }
  package func isPlaying(_ channel: Int) -> Bool {
    withAudioLock { connectedMixer?.isArmed(channel) ?? false }
  }

  func freeChunk(_ chunk: MixChunk) {
    if let mixer = connectedMixer {
      withAudioLock {
        for channel in mixer.disarm(using: chunk) { mixer.inbox.post(Int32(channel)) }
      }
    }
    chunk.freeWithoutMixer()
  }

  package func connect(mixer: VoiceMixer?) {
    guard connectedMixer !== mixer else { return }
    if mixer != nil { playedBeforeMix.waitForFirstCallback() }
    let bufferBytes = mixer.map { $0.format.bufferFrames * $0.bytesPerFrame } ?? 0
    // On the disk driver the file says how many buffers SDL wrote: it is read under the audio
    // lock until it and the hook's count hold still for two milliseconds (SDL writes a buffer
    // just after its callback, outside the lock), and the connection is made under that lock.
    var previous: PlayedBeforeMix.DiskSample?
    var settled: PlayedBeforeMix.DiskSample?
    let deadline = HostTime.now.nanoseconds &+ 300_000_000
    while true {
      let connected = withAudioLock { () -> Bool in
        // What the device played since it opened, before this mixer took over: its clock counts it.
        if let mixer {
          var played: Int?
          if let file = playedBeforeMix.diskFile, HostTime.now.nanoseconds < deadline,
            let sample = playedBeforeMix.diskSample(file: file, bufferBytes: bufferBytes)
          {
            guard sample == previous else {
              previous = sample
              return false
            }
            guard let written = sample.bytesWritten(after: settled, bufferBytes: bufferBytes) else {
              settled = sample
              return false
            }
            played = playedBeforeMix.bytesPlayed(written: written)
          }
          mixer.advanceClock(
            byFramesPlayedBefore: played ?? playedBeforeMix.bytesPlayed(bufferBytes: bufferBytes))
        }
        // Takes the audio lock again (SDL's is recursive): once it returns, no mix uses the old mixer.
        Mix_SetPostMix(
          mixer == nil ? nil : voiceMixerPostMix, mixer.map { Unmanaged.passUnretained($0).toOpaque() })
        return true
      }
      if connected { break }
      usleep(2_000)
    }
    connectedMixer = mixer
  }

  package func withAudioLock<T>(_ body: () -> T) -> T {
    let device = openDevice.load(ordering: .acquiring)
    guard device != 0 else { return body() }
    SDL_LockAudioDevice(device)
    defer { SDL_UnlockAudioDevice(device) }
    return body()
  }

  package func holdingAudioLock<T>(_ body: () -> T) -> T { withAudioLock(body) }

  // MARK: - Time

  package var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

  func makeWakeSignal(queue: DispatchQueue, service: @escaping @Sendable () -> Void) -> WakeSignal {
    let source = DispatchSource.makeUserDataOrSource(queue: queue)
    source.setEventHandler(handler: service)
    source.activate()
    let timer = DispatchSource.makeTimerSource(queue: queue)
    // Holds the backend until `detach()` drops the handler (as the wake source's holds the core).
    timer.setEventHandler { [self] in
      armedDeadline = nil
      service()
    }
    timer.schedule(deadline: .distantFuture)
    timer.activate()
    wakeSource = source
    self.timer = timer
    let wake = SendableSource(source)
    return WakeSignal { wake.source.or(data: 1) }
  }

  package func detach() {
    wakeSource?.setEventHandler(handler: nil)
    wakeSource?.cancel()
    wakeSource = nil
    timer?.setEventHandler(handler: nil)
    timer?.cancel()
    timer = nil
    armedDeadline = nil
  }

  /// SDL mixes on its own clock (the device's callback).
  var mixesOnDemand: Bool { false }

  func runBeforeEachBuffer(_ work: @escaping @Sendable () -> Void) {
    preconditionFailure("SDL mixes on its own clock; the engine refills streams on a timer")
  }

  func scheduleService(at deadline: UInt64?) {
    // Arming a Dispatch timer allocates (libdispatch makes a new configuration each time), and
    // the queue asks several times a frame while voices fade. A timer armed for no later than
    // asked stays as it is: it fires early, and the service it runs asks again. One no longer
    // needed fires once more, to no effect.
    guard let deadline else { return }
    if let armed = armedDeadline, armed <= deadline { return }
    armedDeadline = deadline
    timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(1))
  }
}

/// A Dispatch source for a `@Sendable` closure: Dispatch sources are safe to signal from any
/// thread, but the overlay does not mark them `Sendable`.
private final class SendableSource: @unchecked Sendable {
  package let source: any DispatchSourceUserDataOr
  package init(_ source: any DispatchSourceUserDataOr) { self.source = source }
}

/// The bytes SDL_mixer's post-mix hook was handed before the voice mixer was connected.
///
/// SDL 2 opens a device paused, and SDL_mixer unpauses it at the end of its opening; SDL's thread
/// may meanwhile have written a buffer of silence without asking for it, which no hook sees. On
/// the drivers that keep their own time (disk, dummy) that buffer is followed by a sleep of the
/// buffer's length, so the first buffer asked for comes that much after the opening began: the
/// sleeps before it are counted as buffers played.
final class PlayedBeforeMix: @unchecked Sendable {
  let bytes = Atomic<Int>(0)
  /// The host instant of the first buffer SDL asked for (0: none yet).
  let firstCallback = Atomic<UInt64>(0)
  /// The host instant the device began to open.
  let opening = Atomic<UInt64>(0)
  /// Set by `open` (on the queue) before the device starts: see
  /// ``SDLMixerBackend/pausedIterationNanoseconds(driver:configuration:)``.
  var pausedIteration: UInt64?
  /// The disk driver's output file, whose length counts the buffers written; nil on the others.
  var diskFile: String?

  /// Waits (a buffer's sleep and a little more, at most) for SDL's first request, on the drivers
  /// whose paused buffers are counted by time: until then it is not known whether one was written.
  func waitForFirstCallback() {
    guard let pausedIteration else { return }
    let deadline = HostTime.now.nanoseconds &+ 4 &* pausedIteration &+ 100_000_000
    while firstCallback.load(ordering: .relaxed) == 0, HostTime.now.nanoseconds < deadline {
      usleep(250)
    }
  }

  /// The hook's count and the disk file's length at one moment.
  struct DiskSample: Equatable {
    var hooked: Int
    var length: Int
    var block: Int

    /// The bytes SDL has written, buffered or not, told from the file's length. SDL writes
    /// through stdio, which holds back at most a block: with buffers longer than a block that is
    /// less than a buffer, so the count is the length rounded up to a buffer. A buffer of exactly
    /// a block goes straight to the file one write in two and is held the next (glibc sends a write
    /// of a whole block through only when its buffer is empty), so the length says the count only
    /// beside the sample one buffer earlier: unchanged, the last write is held; two buffers on,
    /// it is not. Nil when it cannot be told yet.
    func bytesWritten(after earlier: DiskSample?, bufferBytes: Int) -> Int? {
      guard length % bufferBytes == 0 || block < bufferBytes else { return nil }
      if block < bufferBytes { return (length + bufferBytes - 1) / bufferBytes * bufferBytes }
      guard let earlier, hooked == earlier.hooked + bufferBytes else { return nil }
      if length == earlier.length { return length + bufferBytes }
      if length == earlier.length + 2 * bufferBytes { return length }
      return nil
    }
  }

  /// The hook's count and the disk file's length, read in that order; nil when the file cannot
  /// be read or stdio holds back more than a buffer of it (buffers shorter than its block).
  func diskSample(file: String, bufferBytes: Int) -> DiskSample? {
    var status = stat()
    guard bufferBytes > 0, stat(file, &status) == 0, status.st_blksize > 0,
      bufferBytes >= Int(status.st_blksize)
    else { return nil }
    return DiskSample(
      hooked: bytes.load(ordering: .relaxed), length: Int(status.st_size), block: Int(status.st_blksize))
  }

  /// The bytes played before the voice mixer took over, from the count of bytes SDL wrote to
  /// the disk file (every buffer, paused or asked for), and starts the count again.
  func bytesPlayed(written: Int) -> Int {
    bytes.store(0, ordering: .relaxed)
    return written
  }

  /// The bytes played before the voice mixer took over, and starts the count again: the buffers
  /// SDL asked for, and those it wrote paused, found from the time its first request took.
  func bytesPlayed(bufferBytes: Int) -> Int {
    var played = bytes.exchange(0, ordering: .relaxed)
    let first = firstCallback.load(ordering: .relaxed)
    let opened = opening.load(ordering: .relaxed)
    if let pausedIteration, first > opened {
      played += Int((first - opened) / pausedIteration) * bufferBytes
    }
    return played
  }
}

/// The post-mix hook set while the device opens: counts the buffers SDL plays before the voice
/// mixer is connected (their silence is what SDL_mixer mixed from no channels).
private let countingPostMix:
  @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Void = {
    userData, _, length in
    guard let userData, length > 0 else { return }
    Unmanaged<PlayedBeforeMix>.fromOpaque(userData)._withUnsafeGuaranteedRef {
      if $0.firstCallback.load(ordering: .relaxed) == 0 {
        $0.firstCallback.store(HostTime.now.nanoseconds, ordering: .relaxed)
      }
      _ = $0.bytes.add(Int(length), ordering: .relaxed)
    }
  }
