internal import CSDL2
internal import CSDL2Mixer
public import Foundation
public import Logging
import Synchronization

/// Opens the audio device through SDL_mixer and plays sounds: one mixer channel per play, every
/// mixer call on one serial Dispatch queue.
///
/// The game thread only enqueues: `play(_:)` returns a ``Voice`` at once and the audio queue
/// starts it, so a frame never waits on the mixer. SDL_mixer's channel-finished callback only
/// posts to an inbox that the queue drains. Plays are gated by an ``AudioSession``: while it is
/// inactive they are dropped and counted as suppressed.
///
/// If no device can be opened, the engine logs one warning and runs on SDL's dummy driver: every
/// API works, sounds decode and "finish" on time, nothing is heard (``isSilent``).
///
/// ```swift
/// let engine = try AudioEngine()                       // 48 kHz, s16, stereo, 512 frames
/// print(engine.deviceFormat)                           // what the device actually gave
/// let coin = try engine.sound(data: coinBytes, name: "coin.wav")
/// engine.play(coin)
/// engine.play(coin, volume: 0.5, pan: -0.8)            // overlaps the first
/// print(engine.statistics.started)
/// engine.close()
/// ```
///
/// With scenes, attach the engine and use the sound actions:
///
/// ```swift
/// engine.attach(to: scene)
/// sprite.run(.playSound(data: coinBytes, waitForCompletion: true))
/// ```
///
/// One engine may have the mixer open at a time (SDL_mixer is process-wide); opening a second
/// throws ``AudioEngineError/alreadyOpen``.
public final class AudioEngine: Sendable {
  /// The device format actually obtained.
  public let deviceFormat: AudioDeviceFormat
  /// True when no device could be opened and the engine runs on SDL's dummy driver, or when the
  /// device was lost and none has opened since.
  public var isSilent: Bool { fellBackToDummy || core.deviceID.load(ordering: .acquiring) == 0 }
  /// SDL's id of the output device the mixer has open (what `SDL_AUDIODEVICEREMOVED` reports),
  /// or nil while there is none.
  public var deviceID: UInt32? {
    let id = core.deviceID.load(ordering: .acquiring)
    return id == 0 ? nil : id
  }
  /// The session whose flag gates this engine's sounds.
  public let session: AudioSession
  /// Where `Action.playSoundFileNamed(_:)` and ``sound(named:)`` look for files.
  public let assetRoot: URL
  /// The decoders this SDL_mixer offers for sounds (e.g. `["WAVE", "OGG", "MP3", "FLAC"]`).
  public let chunkDecoders: [String]

  let core: MixerCore
  private let closed = Atomic<Bool>(false)
  private let ownsAudioSubsystem: Bool
  private let fellBackToDummy: Bool
  let nodeVolumes = NodeVolumeTable()

  /// Opens the device.
  /// - Parameters:
  ///   - configuration: the format and channel limits to ask for.
  ///   - session: the flag that gates sound; by default the process's shared session.
  ///   - assetRoot: where named sounds are loaded from; by default `Assets/` in the working directory.
  /// - Throws: ``AudioEngineError`` when another engine is open or SDL's audio cannot start at all
  ///   (not even the dummy driver).
  public init(
    configuration: AudioConfiguration = AudioConfiguration(),
    session: AudioSession = .shared,
    assetRoot: URL = URL(fileURLWithPath: "Assets", isDirectory: true),
    logger: Logger = Logger(label: "foley.audio")
  ) throws {
    guard
      AudioEngine.mixerInUse.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { throw AudioEngineError.alreadyOpen }
    let opened: (format: AudioDeviceFormat, ownsSubsystem: Bool, fellBack: Bool, id: UInt32)
    do {
      opened = try AudioEngine.openDevice(configuration, logger: logger)
    } catch {
      AudioEngine.mixerInUse.store(false, ordering: .releasing)
      throw error
    }
    self.deviceFormat = opened.format
    self.fellBackToDummy = opened.fellBack
    self.ownsAudioSubsystem = opened.ownsSubsystem
    self.session = session
    self.assetRoot = assetRoot
    self.chunkDecoders = (0..<Mix_GetNumChunkDecoders()).compactMap { index in
      Mix_GetChunkDecoder(index).map { String(cString: $0) }
    }
    let core = MixerCore(
      configuration: configuration, format: opened.format, session: session, logger: logger)
    self.core = core
    core.deviceID.store(opened.id, ordering: .releasing)
    core.queue.sync { core.start() }
    session.addParticipant(self)
    // Opened while the session is already inactive: the voices to come must know.
    let state = session.state
    if !state.isActive {
      core.syncOnQueue {
        core.applySession(
          StateChange(old: AudioSession.State(), new: state, reason: .host("open"), resumesPausedVoices: true)
        )
      }
    }
    logger.info("audio open: \(opened.format)")
  }

  /// Opens SDL audio (if the host has not) and the mixer; falls back to the dummy driver.
  private static func openDevice(
    _ configuration: AudioConfiguration, logger: Logger
  ) throws(AudioEngineError)
    -> (AudioDeviceFormat, Bool, Bool, UInt32)
  {
    var ownsSubsystem = false
    var failure: SDLError?
    // SDL counts subsystem references: the engine always takes its own and gives it back on close,
    // so a host (or a recorder) quitting audio cannot pull the device out from under it.
    if SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 {
      ownsSubsystem = true
    } else {
      failure = SDLError.fromSDL("SDL_InitSubSystem(audio)")
    }
    _ = Mix_Init(Int32(MIX_INIT_OGG.rawValue | MIX_INIT_MP3.rawValue | MIX_INIT_FLAC.rawValue))
    // Mix_Init fails for codecs that are not installed; that is not an error worth keeping.
    SDL_ClearError()
    if failure == nil {
      let before = openDeviceIDs()
      if let format = openMixer(configuration, deviceName: configuration.deviceName) {
        return (format, ownsSubsystem, false, openDeviceIDs().subtracting(before).min() ?? 0)
      }
      failure = SDLError.fromSDL("Mix_OpenAudioDevice")
    }
    // No usable device: keep the game running on SDL's dummy driver, and say so once.
    logger.warning(
      "no audio device (\(failure?.description ?? "unknown")); running silent on SDL's dummy audio driver")
    if SDL_AudioInit("dummy") != 0 {
      throw .noAudio(SDLError.fromSDL("SDL_AudioInit(dummy)"))
    }
    guard let format = openMixer(configuration, deviceName: nil) else {
      let error = SDLError.fromSDL("Mix_OpenAudioDevice(dummy)")
      SDL_AudioQuit()
      throw .noAudio(error)
    }
    return (format, ownsSubsystem, true, 0)
  }

  /// The ids of the audio devices open right now. SDL_mixer does not say which id it opened, so
  /// the engine compares this before and after opening; the new one is the mixer's.
  static func openDeviceIDs() -> Set<UInt32> {
    // SDL hands out ids from a small table (open devices + 1), so the first 64 cover it.
    Set((1...64).filter { SDL_GetAudioDeviceStatus(SDL_AudioDeviceID($0)) != SDL_AUDIO_STOPPED })
  }

  static func openMixer(
    _ configuration: AudioConfiguration, deviceName: String?
  ) -> AudioDeviceFormat? {
    let sdlFormat = configuration.sampleFormat == .float32 ? CSDL2_AUDIO_F32SYS() : CSDL2_AUDIO_S16SYS()
    // No format changes allowed: SDL converts for the device, so the mixer (and the gain stage)
    // always sees the format asked for.
    guard
      Mix_OpenAudioDevice(
        Int32(configuration.sampleRate), sdlFormat, Int32(configuration.channels),
        Int32(configuration.bufferFrames), deviceName, 0) == 0
    else { return nil }
    var rate: Int32 = 0
    var format: UInt16 = 0
    var channels: Int32 = 0
    Mix_QuerySpec(&rate, &format, &channels)
    return AudioDeviceFormat(
      driver: SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? "unknown",
      sampleRate: Int(rate), sampleFormat: CSDL2_AUDIO_ISFLOAT(format) != 0 ? .float32 : .signed16,
      channels: Int(channels), bufferFrames: configuration.bufferFrames)
  }

  /// Whether the engine has been closed.
  public var isClosed: Bool { closed.load(ordering: .acquiring) }

  /// Stops every voice and closes the device. Safe to call more than once.
  public func close() {
    guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    else { return }
    session.removeParticipant(self)
    core.syncOnQueue { core.shutDown() }
    if fellBackToDummy { SDL_AudioQuit() }
    if ownsAudioSubsystem { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
    AudioEngine.mixerInUse.store(false, ordering: .releasing)
  }

  deinit {
    close()
  }

  // MARK: - Sounds

  /// Decodes `data` (or returns the sound already decoded from the same bytes).
  /// - Throws: ``SoundError`` for empty or undecodable bytes.
  public func sound(data: Data, name: String? = nil) throws -> Sound {
    try core.syncOnQueue { try core.sound(for: data, name: name) }
  }

  /// Loads `name` from ``assetRoot`` (or returns the sound already loaded under that name).
  /// - Throws: ``SoundError`` when the file is missing or undecodable.
  public func sound(named name: String) throws -> Sound {
    let url = assetRoot.appendingPathComponent(name)
    return try core.syncOnQueue { try core.sound(named: name, at: url) }
  }

  /// Loads named sounds ahead of time so their first play does not decode.
  /// - Returns: the errors of the ones that failed (the others are ready).
  @discardableResult
  public func preload(_ names: [String]) -> [SoundError] {
    names.compactMap { name in
      do {
        _ = try sound(named: name)
        return nil
      } catch {
        return error as? SoundError ?? SoundError(.unreadable, asset: name, message: "\(error)")
      }
    }
  }

  // MARK: - Playing

  /// Plays `sound` on a channel of its own and returns its voice at once.
  /// - Parameter loops: extra passes after the first; -1 loops until the voice is stopped.
  @discardableResult
  public func play(_ sound: Sound, volume: Double = 1, pan: Double = 0, loops: Int = 0) -> Voice {
    core.requestPlay(.sound(sound), volume: volume, pan: pan, groupVolume: 1, loops: loops)
  }

  /// Plays the sound decoded from `data`, decoding it only the first time these bytes are seen.
  @discardableResult
  public func play(data: Data, name: String? = nil, volume: Double = 1, pan: Double = 0) -> Voice {
    core.requestPlay(.data(data, name: name), volume: volume, pan: pan, groupVolume: 1)
  }

  func play(_ source: MixerCore.PlaySource, volume: Double, pan: Double, groupVolume: Double) -> Voice {
    core.requestPlay(source, volume: volume, pan: pan, groupVolume: groupVolume)
  }

  // MARK: - Session

  /// What every category without a policy of its own does while the session is inactive for an
  /// unfocused reason. ``SessionPolicy/ambient`` by default.
  public var sessionPolicy: SessionPolicy {
    get { core.policies.withLock { $0.standard } }
    set {
      core.policies.withLock { $0.standard = newValue }
      core.queue.async { [core] in core.reapplySessionModes() }
    }
  }

  /// Gives `category` a policy of its own (nil: back to ``sessionPolicy``).
  public func setSessionPolicy(_ policy: SessionPolicy?, for category: SoundCategory) {
    core.policies.withLock { $0.byCategory[category] = policy }
    core.queue.async { [core] in core.reapplySessionModes() }
  }

  /// The policy `category` follows.
  public func sessionPolicy(for category: SoundCategory) -> SessionPolicy {
    core.policies.withLock { $0.policy(for: category) }
  }

  /// A snapshot of the counters.
  public var statistics: AudioStatistics { core.counters.snapshot }

  /// When the mixer first mixed `voice` (uptime nanoseconds, `DispatchTime`'s clock), or nil if it
  /// has not yet. For the latency benchmark.
  package func firstMixTime(of voice: Voice) -> UInt64? {
    core.syncOnQueue { core.firstMixTime(of: voice) }
  }

  /// What each voice is doing right now (waits briefly for the audio queue).
  public func voiceCensus() -> VoiceCensus {
    guard !isClosed else { return VoiceCensus() }
    return core.syncOnQueue { core.census() }
  }

  /// Waits until the audio queue has served everything asked of it so far. For tools and tests.
  public func waitUntilIdle() {
    core.syncOnQueue {}
  }

  /// SDL_mixer can be open only once per process.
  private static let mixerInUse = Atomic<Bool>(false)
}

extension AudioEngine: AudioSessionParticipant {
  public func sessionDidChange(_ change: StateChange) {
    guard !isClosed else { return }
    core.syncOnQueue { core.applySession(change) }
  }

  /// Our device went away: pause everything (the session's `deviceLost`), reopen the default
  /// device in the same format and restore the voices where they were. If none opens, stay
  /// silent until a device is added.
  public func audioDeviceRemoved(deviceID: UInt32, isCapture: Bool) {
    guard !isCapture, !isClosed, deviceID != 0, deviceID == core.deviceID.load(ordering: .acquiring) else {
      return
    }
    session.deactivate(reason: .deviceLost)
    if core.syncOnQueue({ core.replaceDevice() }) { session.activate(reason: .deviceLost) }
  }

  /// A device appeared: if we have none, try once to open it.
  public func audioDeviceAdded(index: UInt32, isCapture: Bool) {
    guard !isCapture, !isClosed else { return }
    if core.syncOnQueue({ core.retryDevice() }) { session.activate(reason: .deviceLost) }
  }
}

/// Why an ``AudioEngine`` could not open.
public enum AudioEngineError: Error, Sendable, CustomStringConvertible {
  /// Another engine has SDL_mixer open; close it first.
  case alreadyOpen
  /// SDL audio could not start at all, not even on the dummy driver.
  case noAudio(SDLError)

  public var description: String {
    switch self {
    case .alreadyOpen: "another AudioEngine already has SDL_mixer open; close it first"
    case .noAudio(let error): "SDL audio cannot start, not even silently: \(error)"
    }
  }
}
