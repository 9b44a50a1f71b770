internal import CFoleySDL2
import Dispatch
public import FoleyCore
public import FoleySession
public import Foundation
public import Logging
import Synchronization

/// Records a capture device (the microphone) to a WAV file, streamed as it goes: memory stays
/// flat however long the take. AVAudioRecorder's job, on SDL.
///
/// The header's sizes are patched as soon as the first samples land, then every quarter second,
/// and on stop: a process killed mid-take leaves a file that players read, missing at most the
/// last ~0.3 s (the patch interval, one 20 ms drain and SDL's capture buffer), which
/// ``WAVFile/repair(at:)`` recovers too. A recorder that is dropped without ``stop()`` stops
/// itself and finalises the file. An existing file is never replaced unless ``Options/overwrite`` is given.
/// A full disk or another write error stops the take with ``RecordingError/writeFailed(_:message:)``
/// and leaves a valid file with everything written so far.
///
/// ```swift
/// let recorder = try AudioRecorder(url: URL(fileURLWithPath: "take.wav"))
/// print(recorder.format)                      // what the device gave: 48000 Hz s16 1 ch
/// try recorder.record(forDuration: 5)
/// // each frame, on the game thread:
/// hud.level = recorder.averagePower(forChannel: 0)   // dBFS, -160...0
/// // later:
/// let summary = recorder.stop()
/// print(summary.duration, summary.error as Any)
/// ```
///
/// With an `AudioSession`, recording pauses while the session is inactive (unless
/// ``Options/keepsRecordingWhenInactive``) and resumes with it; nothing captured is lost.
///
/// Invariant behind `@unchecked Sendable`: the `var`s are touched only on `queue`; what other
/// threads read (state, frames, meters) is in atomics and a mutex.
public final class AudioRecorder: @unchecked Sendable {
  /// How to record.
  public struct Options: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Replace the file if it exists (by default that is an error).
    public static let overwrite = Options(rawValue: 1)
    /// Keep recording while the session is inactive (by default recording pauses with it).
    public static let keepsRecordingWhenInactive = Options(rawValue: 2)
  }

  /// Where the recorder is in its life.
  public enum State: UInt8, Sendable {
    case prepared, recording, paused, stopped
  }

  /// The file being written.
  public let url: URL
  /// The format actually obtained from the device (SDL converts from the hardware's to this).
  public let format: RecordingFormat
  /// The capture device's name, or nil for the default device.
  public let deviceName: String?
  public let options: Options

  private let session: AudioSession?
  private let logger: Logger
  let queue = DispatchQueue(label: "foley.recording", qos: .userInitiated)
  let device: SDL_AudioDeviceID
  private let ownsAudioSubsystem: Bool
  private let rawState = Atomic<UInt8>(State.prepared.rawValue)
  private let frames = Atomic<Int>(0)
  private let meterState: Locked<[ChannelMeter]>
  private let stopReport = Locked<RecordingSummary?>(nil)

  // Queue-confined.
  private var writer: WAVWriter?
  private var timer: (any DispatchSourceTimer)?
  private var buffer: UnsafeMutableRawBufferPointer
  private var frameLimit: Int?
  private var lastPatch = DispatchTime.now()
  private var patchedFrames = 0
  /// Whether any sample so far was not exactly zero: a take of pure digital silence usually means
  /// there is no microphone behind the device.
  private let heardSignal = Atomic<Bool>(false)
  var pausedBySession = false
  private var meterWindow: MeterWindow

  /// The capture devices SDL reports (names for ``init(url:format:deviceName:options:session:logger:)``).
  public static func captureDevices() -> [String] {
    CFoleySDL2_QuietALSAErrors()  // alsa-lib's own lines while SDL probes (see the engine)
    let started = SDL_InitSubSystem(SDL_INIT_AUDIO) == 0  // a counted reference of our own
    defer { if started { SDL_QuitSubSystem(SDL_INIT_AUDIO) } }
    return (0..<max(0, SDL_GetNumAudioDevices(1))).compactMap { index in
      SDL_GetAudioDeviceName(index, 1).map { String(cString: $0) }
    }
  }

  /// Opens the capture device (paused) for a recording to `url`. The file is created by the
  /// first ``record()``.
  /// - Parameters:
  ///   - url: the WAV file to write (streamed: its header is kept valid as it grows).
  ///   - options: `.overwrite` to replace an existing file; by default one is never replaced.
  ///   - format: the format to record in; SDL converts from whatever the hardware delivers.
  ///   - deviceName: a name from ``captureDevices()``, or nil for the default device.
  ///   - session: the session to follow (pause while inactive); nil to ignore sessions.
  ///   - logger: where the recorder logs (label `foley.recording`).
  /// - Throws: ``RecordingError`` when the file exists (without `.overwrite`), the format is
  ///   unusable, the named device does not exist, or no capture device opens.
  public init(
    url: URL, format: RecordingFormat = RecordingFormat(), deviceName: String? = nil, options: Options = [],
    session: AudioSession? = .shared, logger: Logger = .foley("foley.recording")
  ) throws(RecordingError) {
    guard (1...8).contains(format.channels), (8_000...192_000).contains(format.sampleRate) else {
      throw .unsupportedFormat(format)
    }
    if !options.contains(.overwrite), FileManager.default.fileExists(atPath: url.path) {
      throw .fileExists(url)
    }
    // SDL counts subsystem references; the recorder holds its own until the take is finished.
    CFoleySDL2_QuietALSAErrors()
    guard SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 else {
      throw .noCaptureDevice(SDLError.fromSDL("SDL_InitSubSystem(audio)"))
    }
    let ownsSubsystem = true
    if let deviceName {
      let available = AudioRecorder.captureDevices()
      guard available.contains(deviceName) else {
        if ownsSubsystem { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
        throw .deviceNotFound(deviceName, available: available)
      }
    }
    var desired = SDL_AudioSpec()
    desired.freq = Int32(format.sampleRate)
    desired.format = format.sampleFormat == .float32 ? CFoleySDL2_AUDIO_F32SYS() : CFoleySDL2_AUDIO_S16SYS()
    desired.channels = UInt8(format.channels)
    desired.samples = 1_024
    var obtained = SDL_AudioSpec()
    // No callback: SDL queues what it captures and the recorder's queue dequeues it. No changes
    // allowed: SDL converts, so the file is in exactly the format asked for.
    let device = SDL_OpenAudioDevice(deviceName, 1, &desired, &obtained, 0)
    guard device != 0 else {
      let error = SDLError.fromSDL("SDL_OpenAudioDevice(capture)")
      if ownsSubsystem { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
      throw .noCaptureDevice(error)
    }
    self.url = url
    self.format = RecordingFormat(
      sampleRate: Int(obtained.freq), channels: Int(obtained.channels),
      sampleFormat: CFoleySDL2_AUDIO_ISFLOAT(obtained.format) != 0 ? .float32 : .signed16)
    self.deviceName = deviceName
    self.options = options
    self.session = session
    self.logger = logger
    self.device = device
    self.ownsAudioSubsystem = ownsSubsystem
    // A quarter second of samples, reused for every dequeue: memory stays flat.
    buffer = .allocate(byteCount: self.format.bytesPerFrame * self.format.sampleRate / 4, alignment: 16)
    meterState = Locked(Array(repeating: ChannelMeter(), count: self.format.channels))
    meterWindow = MeterWindow(channels: self.format.channels, frames: self.format.sampleRate / 20)
    session?.addParticipant(self)
  }

  deinit {
    // Dropped without `stop()` (or never started): finish here. The timer holds the recorder only
    // weakly, so nothing else can be running on it now.
    if state != .stopped { finishOnQueue(error: nil) }
    buffer.deallocate()
  }

  // MARK: - State

  public var state: State { State(rawValue: rawState.load(ordering: .acquiring)) ?? .stopped }
  /// True while capturing (not paused, not stopped).
  public var isRecording: Bool { state == .recording }
  /// Seconds of audio written to the file so far.
  public var currentTime: Double { Double(frames.load(ordering: .acquiring)) / Double(format.sampleRate) }
  /// Why the recording stopped early, if it did.
  public var error: RecordingError? { stopReport.withLock { $0?.error } }

  // MARK: - Control

  /// Starts (or, after ``pause()``, continues) recording. Creates the file on the first call.
  /// - Throws: ``RecordingError/fileExists(_:)`` or ``RecordingError/cannotCreate(_:message:)``;
  ///   ``RecordingError/finished`` after ``stop()``.
  public func record() throws(RecordingError) {
    try queue.sync { Result { () throws(RecordingError) in try startOnQueue(limit: nil) } }.get()
  }

  /// Records `seconds` of audio, then stops by itself (``state`` becomes `.stopped`). An infinite
  /// (or absurdly long) duration records until ``stop()``.
  public func record(forDuration seconds: Double) throws(RecordingError) {
    let limit: Int? =
      seconds.isFinite && seconds < 1e9 ? max(0, Int((seconds * Double(format.sampleRate)).rounded())) : nil
    try queue.sync { Result { () throws(RecordingError) in try startOnQueue(limit: limit) } }.get()
  }

  /// Pauses capture; what was captured so far is written and the header patched.
  public func pause() {
    queue.sync { pauseOnQueue(bySession: false) }
  }

  /// Continues after ``pause()``.
  public func resume() {
    queue.sync {
      guard state == .paused else { return }
      pausedBySession = false
      resumeOnQueue()
    }
  }

  /// Stops: writes what is left, finalises the header, closes the file and the device. Safe to
  /// call more than once; every call returns the same summary.
  @discardableResult
  public func stop() -> RecordingSummary {
    queue.sync { finishOnQueue(error: nil) }
  }

  /// Average power (RMS) of the last 50 ms of `channel`, in dBFS: -160 (silence) ... 0.
  public func averagePower(forChannel channel: Int) -> Double {
    meterState.withLock { $0.indices.contains(channel) ? $0[channel].average : -160 }
  }

  /// Peak power of the last 50 ms of `channel`, in dBFS: -160 ... 0.
  public func peakPower(forChannel channel: Int) -> Double {
    meterState.withLock { $0.indices.contains(channel) ? $0[channel].peak : -160 }
  }

  // MARK: - On the queue

  private func startOnQueue(limit: Int?) throws(RecordingError) {
    switch state {
    case .stopped: throw .finished
    case .recording: return
    case .paused:
      pausedBySession = false
      resumeOnQueue()
      return
    case .prepared: break
    }
    writer = try WAVWriter(
      creating: url, format: format, mode: options.contains(.overwrite) ? .overwrite : .new)
    frameLimit = limit
    lastPatch = .now()
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(
      deadline: .now() + .milliseconds(20), repeating: .milliseconds(20), leeway: .milliseconds(5))
    // Weakly: a recorder the game drops stops (its deinit finalises the file) instead of
    // recording on, unreachable, until the disk is full.
    timer.setEventHandler { [weak self] in self?.drain() }
    timer.resume()
    self.timer = timer
    if let session, !session.isActive, !options.contains(.keepsRecordingWhenInactive) {
      pausedBySession = true
      rawState.store(State.paused.rawValue, ordering: .releasing)
      return
    }
    rawState.store(State.recording.rawValue, ordering: .releasing)
    SDL_PauseAudioDevice(device, 0)
    logger.info("recording \(url.path) as \(format)")
  }

  func pauseOnQueue(bySession: Bool) {
    guard state == .recording else { return }
    SDL_PauseAudioDevice(device, 1)
    drain()
    guard state == .recording else { return }  // the drain may have ended the take
    pausedBySession = bySession
    rawState.store(State.paused.rawValue, ordering: .releasing)
    patchHeader()
  }

  func resumeOnQueue() {
    rawState.store(State.recording.rawValue, ordering: .releasing)
    SDL_PauseAudioDevice(device, 0)
  }

  /// Moves what SDL has captured into the file and the meters.
  private func drain() {
    guard let writer, state == .recording || state == .paused else { return }
    switch writeCaptured(into: writer, metering: true) {
    case .failed(let error):
      logger.error("\(error)")
      finishOnQueue(error: error)
      return
    case .reachedLimit:
      finishOnQueue(error: nil)
      return
    case .drained: break
    }
    // The first samples are made readable at once; after that, every quarter second.
    let sincePatch = DispatchTime.now().uptimeNanoseconds - lastPatch.uptimeNanoseconds
    if (patchedFrames == 0 && writer.framesWritten > 0) || sincePatch >= 250_000_000 { patchHeader() }
  }

  private enum DrainOutcome {
    case drained, reachedLimit
    case failed(RecordingError)
  }

  /// Dequeues everything SDL holds, through the one reused buffer, into `writer` (and the meters),
  /// stopping at the take's frame limit or the first write error.
  private func writeCaptured(into writer: WAVWriter, metering: Bool) -> DrainOutcome {
    while true {
      if let limit = frameLimit, writer.framesWritten >= limit { return .reachedLimit }
      let queued = Int(SDL_GetQueuedAudioSize(device))
      guard queued >= format.bytesPerFrame else { return .drained }
      let wanted = min(queued, buffer.count) / format.bytesPerFrame * format.bytesPerFrame
      let got = Int(SDL_DequeueAudio(device, buffer.baseAddress, UInt32(wanted)))
      guard got > 0 else { return .drained }
      var frameCount = got / format.bytesPerFrame
      if let limit = frameLimit { frameCount = min(frameCount, limit - writer.framesWritten) }
      let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<(frameCount * format.bytesPerFrame)])
      if metering { meter(bytes, frames: frameCount) }
      defer { frames.store(writer.framesWritten, ordering: .releasing) }
      do {
        try writer.append(bytes)
      } catch {
        return .failed(.writeFailed(url, message: error.message))
      }
    }
  }

  private func patchHeader() {
    lastPatch = .now()
    patchedFrames = writer?.framesWritten ?? 0
    do {
      try writer?.patchSizes()
    } catch {
      logger.error("\(error)")
      finishOnQueue(error: .writeFailed(url, message: error.message))
    }
  }

  @discardableResult
  func finishOnQueue(error: RecordingError?) -> RecordingSummary {
    if let report = stopReport.withLock({ $0 }) { return report }
    let wasRunning = state == .recording
    timer?.cancel()
    timer = nil
    var failure = error
    if let writer {
      SDL_PauseAudioDevice(device, 1)
      if wasRunning && error == nil {
        // What SDL captured before the pause still belongs to the take.
        if case .failed(let error) = writeCaptured(into: writer, metering: false) { failure = error }
      }
      do {
        try writer.patchSizes()
      } catch {
        failure = failure ?? .writeFailed(url, message: error.message)
      }
      writer.close()
    }
    SDL_CloseAudioDevice(device)
    if ownsAudioSubsystem { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
    session?.removeParticipant(self)
    meterState.withLock { meters in meters = meters.map { _ in ChannelMeter() } }
    let report = RecordingSummary(
      url: url, format: format, frames: writer?.framesWritten ?? 0, error: failure,
      fileCreated: writer != nil, heardSignal: heardSignal.load(ordering: .acquiring))
    stopReport.withLock { $0 = report }
    self.writer = nil
    // Last: whoever waits for `.stopped` finds the file closed and SDL released.
    rawState.store(State.stopped.rawValue, ordering: .releasing)
    if let failure { logger.warning("\(failure)") }
    return report
  }

  private func meter(_ bytes: UnsafeRawBufferPointer, frames frameCount: Int) {
    if !heardSignal.load(ordering: .relaxed), bytes.contains(where: { $0 != 0 }) {
      heardSignal.store(true, ordering: .releasing)
    }
    let channels = format.channels
    if format.sampleFormat == .float32 {
      let samples = bytes.bindMemory(to: Float.self)
      for frame in 0..<frameCount {
        for channel in 0..<channels {
          meterWindow.add(Double(samples[frame * channels + channel]), channel: channel)
        }
        publishIfFull()
      }
    } else {
      let samples = bytes.bindMemory(to: Int16.self)
      for frame in 0..<frameCount {
        for channel in 0..<channels {
          meterWindow.add(Double(samples[frame * channels + channel]) / 32_768, channel: channel)
        }
        publishIfFull()
      }
    }
  }

  private func publishIfFull() {
    meterWindow.framesSeen += 1
    guard meterWindow.framesSeen >= meterWindow.frames else { return }
    let levels = meterWindow.takeLevels()
    meterState.withLock { $0 = levels }
  }
}
