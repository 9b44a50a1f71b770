public import FoleyCore
public import FoleySession
public import Foundation
public import Logging
import Synchronization

/// Opens the audio device through SDL_mixer and plays sounds: one mixer channel per play, every
/// mixer call on one serial Dispatch queue.
///
/// The game thread only enqueues: `play(_:)` returns a ``Voice`` at once and the audio queue
/// starts it, so a frame never waits on the mixer. The mix runs in float32 by default, so voices
/// stack without saturating, and a master limiter keeps the output under its ceiling (and leaves
/// it untouched below it). Every ``SoundCategory`` is a bus with a ramped volume. Plays are gated
/// by an `AudioSession`: while it is inactive they are dropped and counted as suppressed.
///
/// If no device can be opened, the engine logs one warning and runs silent: every API works,
/// nothing is heard (``isSilent``), and a device that appears later is picked up.
///
/// ```swift
/// let engine = try AudioEngine()                       // 48 kHz, float32, stereo, 512 frames
/// print(engine.deviceFormat)                           // what the device actually gave
/// let coin = try engine.sound(data: coinBytes, name: "coin.wav")
/// engine.play(coin)
/// engine.play(coin, volume: 0.5, pan: -0.8)            // overlaps the first
/// engine.bus(.music).setVolume(0.4, tween: 1)  // the music bus, ramped
/// print(engine.statistics.started, engine.masterMeter.gainReductionDecibels)
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
  /// The format the mix runs in (SDL converts it for the device).
  public let deviceFormat: AudioDeviceFormat
  /// The session whose flag gates this engine's sounds.
  public let session: AudioSession
  /// Where ``sound(named:)`` and `Action.playSoundFileNamed(_:waitForCompletion:)` look for
  /// files, in order.
  public let assetRoots: [URL]
  /// The first asset root.
  public var assetRoot: URL { assetRoots[0] }
  /// The formats Foley decodes.
  public static let supportedFormats = ["WAV", "AIFF", "OGG Vorbis", "Opus", "FLAC", "MP3"]

  package let core: MixerCore
  package var library: SoundLibrary { core.library }
  /// The stream thread: keeps every streamed voice's ring (music, speech) filled.
  package let streamFiller: StreamFiller
  /// What the modules above the core keep per engine (music's track checker and player, …),
  /// one entry per type, made on first use.
  private let features = Locked<[ObjectIdentifier: any Sendable & AnyObject]>([:])
  /// Work other modules do in the background for this engine (a sound map's pitch variants),
  /// which `waitUntilIdle()` waits for too: an offline render must not outrun it.
  private let idleWaiters = Locked<[Int: WaitForIdle]>([:])
  private let nextIdleWaiter = Locked(0)
  private let closed = Atomic<Bool>(false)
  /// Whether a use after ``close()`` has been logged (once an engine).
  private let warnedUseAfterClose = Atomic<Bool>(false)
  private let sdlBackend: SDLMixerBackend?
  private let fellBackToDummy: Bool
  /// Whether this engine put `deviceLost` on the session (cleared again when it closes).
  let addedDeviceLost = Atomic<Bool>(false)

  /// Opens the default (or configured) output device through SDL_mixer.
  /// - Parameters:
  ///   - configuration: the format, channel limits, limiter and decoding limits.
  ///   - session: the flag that gates sound; by default the process's shared session.
  ///   - assetRoots: where named sounds are found, in order; by default ``defaultAssetRoots``.
  ///     A package that ships sounds passes `Bundle.module.resourceURL!` (or a folder in it).
  ///   - logger: where the engine logs (its label is `foley.audio`); pass one at `.warning` to
  ///     keep the engine's info lines out of a game's log.
  /// - Throws: ``AudioEngineError`` when another engine (or the host) has SDL_mixer open, a
  ///   configuration value is out of range, or SDL's audio cannot start at all.
  public convenience init(
    configuration: AudioConfiguration = AudioConfiguration(),
    session: AudioSession = .shared,
    assetRoots: [URL] = AudioEngine.defaultAssetRoots,
    logger: Logger = .foley("foley.audio")
  ) throws(AudioEngineError) {
    let valid = try configuration.validated()
    let backend = try SDLMixerBackend()
    try self.init(
      validated: valid, backend: backend, sdlBackend: backend, session: session, assetRoots: assetRoots,
      logger: logger)
  }

  /// Opens an engine on another mixer: FoleyAudioTesting's `EmbeddedMixer`, which tests drive by
  /// hand.
  package convenience init(
    backend: any MixerBackend, configuration: AudioConfiguration = AudioConfiguration(),
    session: AudioSession = AudioSession(), assetRoots: [URL] = AudioEngine.defaultAssetRoots,
    logger: Logger = .foley("foley.audio")
  ) throws(AudioEngineError) {
    try self.init(
      validated: try configuration.validated(), backend: backend, sdlBackend: nil, session: session,
      assetRoots: assetRoots, logger: logger)
  }

  private init(
    validated configuration: AudioConfiguration, backend: any MixerBackend, sdlBackend: SDLMixerBackend?,
    session: AudioSession, assetRoots: [URL], logger: Logger
  ) throws(AudioEngineError) {
    // The decoding service takes about 20 ms to start (the game's executable, run again): it
    // starts now, beside the device's opening, and decodes asked before it is up run in a
    // forked child while the game is small.
    if configuration.isolatesDecoders { SoundDecoder.prewarmService() }
    var format: AudioDeviceFormat
    var hasDevice = true
    var fellBack = false
    do {
      format = try backend.open(configuration, deviceName: configuration.deviceName)
    } catch {
      if let sdlBackend, sdlBackend.wasSoleAudioUser {
        // Nobody else uses SDL audio: its dummy driver keeps time, so sounds still end on time.
        logger.warning("no audio device (\(error)); running silent on SDL's dummy audio driver")
        do {
          try sdlBackend.switchToDummyDriver()
          format = try backend.open(configuration, deviceName: nil)
          fellBack = true
        } catch {
          sdlBackend.release()
          throw .noAudio(error)
        }
      } else {
        // Someone else holds SDL audio: switching its driver would take their device away, so
        // run without one and try again when a device is added.
        logger.warning("no audio device (\(error)); running silent until a device is added")
        format = AudioDeviceFormat(
          driver: "none", sampleRate: configuration.sampleRate, sampleFormat: configuration.sampleFormat,
          channels: configuration.channels, bufferFrames: configuration.bufferFrames)
        hasDevice = false
      }
    }
    self.deviceFormat = format
    self.session = session
    self.assetRoots = assetRoots.isEmpty ? AudioEngine.defaultAssetRoots : assetRoots
    self.sdlBackend = sdlBackend
    self.fellBackToDummy = fellBack
    let queueHolder = DispatchQueueHolder()
    let library = SoundLibrary(
      decoder: SoundDecoder(
        format: format, maximumDuration: configuration.maximumSoundDuration,
        isolated: configuration.isolatesDecoders, timeout: configuration.decodeTimeout),
      assets: AssetRoots(self.assetRoots), limit: configuration.soundCacheLimit,
      maximumFileSize: configuration.maximumSoundFileSize,
      releaser: ChunkReleaser(queue: queueHolder.queue, backend: backend), logger: logger)
    core = MixerCore(
      configuration: configuration, format: format, hasDevice: hasDevice, backend: backend,
      queue: queueHolder.queue,
      session: session, library: library, logger: logger)
    // A backend that mixes only when told tops the streams up before each buffer (no timer, so
    // streams are deterministic); SDL mixes on its own clock, and the filler runs a timer.
    let refillsOnDemand = backend.mixesOnDemand
    streamFiller = StreamFiller(core: core, assets: library.assets, refillsByItself: !refillsOnDemand)
    if refillsOnDemand {
      backend.runBeforeEachBuffer { [streamFiller] in
        streamFiller.queue.sync { streamFiller.fillAll(waitingForChecks: true) }
      }
    }
    core.outputDeviceName.withLock { $0 = hasDevice && !fellBack ? configuration.deviceName : nil }
    core.queue.sync { core.start() }
    session.addParticipant(self)
    // Opened while the session is already inactive: the voices to come must know.
    let state = session.state
    if !state.isActive {
      core.syncOnQueue {
        core.applySession(
          AudioSession.Transition(
            old: AudioSession.State(), new: state, reason: .host("open"), isClearing: false))
      }
    }
    if !hasDevice { addDeviceLost() }
    logger.info("audio open: \(format)")
  }

  /// `./Assets` in the working directory, then `Assets` beside the executable and one and three
  /// folders up from it (a SwiftPM build runs from `.build/<triple>/<configuration>/`).
  public static var defaultAssetRoots: [URL] {
    let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
      .deletingLastPathComponent()
    var roots = [workingDirectory.appendingPathComponent("Assets", isDirectory: true)]
    var folder = executable
    for _ in 0..<4 {
      roots.append(folder.appendingPathComponent("Assets", isDirectory: true))
      folder = folder.deletingLastPathComponent()
    }
    var seen = Set<String>()
    return roots.filter { seen.insert($0.standardizedFileURL.path).inserted }
  }

  /// True when no device is open: none could be opened (the engine runs on SDL's dummy driver or
  /// without a device), or the device was lost and none has opened since.
  public var isSilent: Bool { fellBackToDummy || core.deviceID.load(ordering: .acquiring) == 0 }

  /// SDL's id of the output device the mixer has open (what `SDL_AUDIODEVICEREMOVED` reports),
  /// or nil while there is none.
  public var deviceID: UInt32? {
    let id = core.deviceID.load(ordering: .acquiring)
    return id == 0 ? nil : id
  }

  /// Whether the engine has been closed.
  public var isClosed: Bool { closed.load(ordering: .acquiring) }

  /// True, after logging once for this engine that `use` found it closed, when the engine is
  /// closed: what a caller then does is nothing (a closed engine plays no sound, and says so
  /// rather than failing each play silently).
  package func refusesUseAfterClose(_ use: @autoclosure () -> String) -> Bool {
    guard isClosed else { return false }
    if !warnedUseAfterClose.exchange(true, ordering: .relaxed) {
      core.logger.warning(
        "\(use()): the audio engine is closed, so this does nothing (said once); open a new engine and attach the scene to it"
      )
    }
    return true
  }

  /// Stops every voice and closes the device. Safe to call more than once. Reasons this engine
  /// put on the session (a lost device) are cleared, so the next engine is not silenced by them.
  public func close() {
    guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    else { return }
    session.removeParticipant(self)
    fadeOutBeforeClosing()
    streamFiller.shutDown()
    core.syncOnQueue { core.shutDown() }
    sdlBackend?.release()
    if addedDeviceLost.exchange(false, ordering: .acquiringAndReleasing) {
      session.activate(reason: .deviceLost)
    }
  }

  deinit {
    close()
  }

  /// Whether anything is still heard: a voice playing (or paused), or an effect's tail (a
  /// reverb, a delay) ringing out. Once false the output is exact silence until something
  /// starts. A tool waits for it before ``close()`` so that tails end decayed, not cut:
  ///
  /// ```swift
  /// engine.play(click)
  /// while engine.isSounding { try await Task.sleep(for: .milliseconds(20)) }
  /// engine.close()
  /// ```
  public var isSounding: Bool {
    core.counters.activeVoices.load(ordering: .relaxed) > 0
      || core.mixer.isSounding.load(ordering: .acquiring)
  }

  /// Fades the output to silence over the configured ``AudioConfiguration/closeFadeDuration``
  /// and waits, bounded, until the mixing thread has written the silence: whatever still plays
  /// ends on a ramp, not a click. Skipped without a real device (the embedded mixer), and given
  /// up when the device stops calling back (a lost device, a stalled driver).
  private func fadeOutBeforeClosing() {
    guard sdlBackend != nil, core.configuration.closeFadeDuration > 0 else { return }
    let rate = Double(deviceFormat.sampleRate)
    let master = core.mixer.master
    master.beginClosingFade(frames: Int(core.configuration.closeFadeDuration * rate))
    // The fade takes its length plus the buffers already on their way; a device that has not
    // called back for 20 buffers (or 100 ms) is not coming back to finish it.
    let bound = ContinuousClock.now + .seconds(core.configuration.closeFadeDuration + 0.5)
    let stall = Duration.seconds(max(0.1, 20 * deviceFormat.bufferDuration))
    var mixed = core.mixer.framesMixed.load(ordering: .acquiring)
    var lastProgress = ContinuousClock.now
    while !master.hasFadedOut, ContinuousClock.now < bound {
      Thread.sleep(forTimeInterval: 0.001)
      let now = core.mixer.framesMixed.load(ordering: .acquiring)
      if now != mixed {
        mixed = now
        lastProgress = .now
      } else if ContinuousClock.now - lastProgress > stall {
        break
      }
    }
  }

  func addDeviceLost() {
    addedDeviceLost.store(true, ordering: .releasing)
    session.deactivate(reason: .deviceLost)
  }

  func clearDeviceLost() {
    if addedDeviceLost.exchange(false, ordering: .acquiringAndReleasing) {
      session.activate(reason: .deviceLost)
    }
  }

  /// A snapshot of the counters.
  public var statistics: AudioStatistics {
    var statistics = core.counters.snapshot
    statistics.decodes = library.decodes
    statistics.nonFiniteSamples = core.master.nonFiniteSamples
    return statistics
  }

  /// What each voice is doing right now (waits briefly for the audio queue).
  public func voiceCensus() -> VoiceCensus {
    guard !isClosed else { return VoiceCensus() }
    return core.syncOnQueue { core.census() }
  }

  /// The state `Feature`'s module keeps for this engine, made by `make` the first time it is
  /// asked for (music's track checker and default player, for example).
  package func feature<Feature: Sendable & AnyObject>(
    _ type: Feature.Type = Feature.self, make: () -> Feature
  ) -> Feature {
    features.withLock { features in
      if let made = features[ObjectIdentifier(type)] { return made as! Feature }
      let made = make()
      features[ObjectIdentifier(type)] = made
      return made
    }
  }

  /// Registers background work that `waitUntilIdle()` must wait for; returns a token for
  /// ``removeIdleWaiter(_:)``.
  package func addIdleWaiter(_ wait: @escaping @Sendable () -> Void) -> Int {
    let token = nextIdleWaiter.withLock { token in
      token += 1
      return token
    }
    idleWaiters.withLock { $0[token] = WaitForIdle(run: wait) }
    return token
  }

  package func removeIdleWaiter(_ token: Int) {
    idleWaiters.withLock { _ = $0.removeValue(forKey: token) }
  }

  /// Runs every registered waiter (each blocks until its module's background work is done).
  func waitForBackgroundWork() {
    for waiter in idleWaiters.withLock({ Array($0.values) }) { waiter.run() }
  }

  /// The state of `Feature`'s module for this engine, if it was made.
  func featureIfMade<Feature: Sendable & AnyObject>(_ type: Feature.Type = Feature.self) -> Feature? {
    features.withLock { $0[ObjectIdentifier(type)] as? Feature }
  }
}

/// The audio queue, made before the core so the sound library's releaser can share it.
private struct DispatchQueueHolder {
  package let queue = DispatchQueue(label: "foley.audio", qos: .userInteractive)
}

/// A registered waiter, kept by reference so the lock never re-wraps the closure.
private final class WaitForIdle: Sendable {
  let run: @Sendable () -> Void
  init(run: @escaping @Sendable () -> Void) { self.run = run }
}
