package import Dispatch
public import FoleyCore
import FoleySession
import Synchronization

/// A mixer that runs inside the process and only when told to: SDL_mixer's part (channels as
/// leases, the post-mix hook that runs Foley's voice mixer) re-enacted over a buffer the test
/// asks for, on a clock that is the frames mixed so far.
///
/// Tests give it to an engine and advance time by hand; nothing sleeps, so allocation, policies,
/// ramps, session modes and device restore are checked frame by frame, on any machine load.
///
/// ```swift
/// let mixer = EmbeddedMixer()
/// let engine = try AudioEngine(embedded: mixer, session: AudioSession())
/// let voice = engine.play(tone)
/// mixer.advance(seconds: 0.1)            // mixes 0.1 s and lets the engine react
/// voice.stop()
/// mixer.advance(frames: 480)
/// let output = mixer.takeOutput()        // interleaved float samples
/// ```
///
/// Invariant behind `@unchecked Sendable`: the channel table and the output live in a mutex, held
/// while mixing (as SDL_mixer holds its audio lock), so the engine's queue and the test thread
/// never touch them at once.
public final class EmbeddedMixer: MixerBackend, @unchecked Sendable {
  private struct State {
    var channels = 0
    var output: [Float] = []
    var framesMixed: UInt64 = 0
    var mixer: VoiceMixer?
    var isOpen = false
    var deviceID: UInt32 = 0
    var opens: UInt32 = 0
    var deadline: UInt64?
    var services = 0
  }

  private let state = Locked(State())
  // Closures live in a box: a function value kept directly in a generic `Locked` is re-wrapped
  // in two reabstraction thunks on every `withLock` (the inout write-back), so after 100,000
  // buffers calling it walked 200,000 nested thunks.
  private let service = Locked<Callback?>(nil)
  private let queue = Locked<DispatchQueue?>(nil)
  private let signal = Locked<WakeSignal?>(nil)
  private let available = Atomic<Bool>(true)
  private let devices = Locked<[String]>(["Embedded output"])
  private let refused = Locked<Set<String>>([])
  private let openedName = Locked<String?>(nil)
  /// Runs before each buffer is mixed: the engine's stream filler tops up its rings here, as its
  /// timer does on SDL, so streams play deterministically.
  private let beforeEachBuffer = Locked<Callback?>(nil)
  /// The format the device opens with, whatever the configuration asks.
  public let sampleRate: Int
  public let sampleFormat: SampleFormat
  public let channelCount: Int
  public let bufferFrames: Int

  public init(
    sampleRate: Int = 48_000, sampleFormat: SampleFormat = .float32, channels: Int = 2,
    bufferFrames: Int = 512
  ) {
    self.sampleRate = sampleRate
    self.sampleFormat = sampleFormat
    self.channelCount = channels
    self.bufferFrames = bufferFrames
  }

  /// Whether a device can be opened: false simulates a machine with no audio device.
  public var isDeviceAvailable: Bool {
    get { available.load(ordering: .acquiring) }
    set { available.store(newValue, ordering: .releasing) }
  }

  /// The output devices it pretends to have (the first is the default): for tests of device
  /// choice and switching.
  public var outputDeviceNames: [String] {
    get { devices.withLock { $0 } }
    set { devices.withLock { $0 = newValue } }
  }

  /// Devices that are listed but do not open (a headset unplugged between the list and the
  /// switch).
  public var refusedDeviceNames: Set<String> {
    get { refused.withLock { $0 } }
    set { refused.withLock { $0 = newValue } }
  }

  /// The device it was last opened on (nil: the default).
  public var openedDeviceName: String? { openedName.withLock { $0 } }

  /// Everything mixed since the last call, interleaved (16-bit output is scaled to ±1).
  public func takeOutput() -> [Float] {
    state.withLock { state in
      defer { state.output.removeAll() }
      return state.output
    }
  }

  /// The fallback wake the engine has asked for, if any (nil while nothing ramps).
  public var scheduledDeadline: UInt64? { state.withLock { $0.deadline } }

  /// How many times the engine's service has run: an idle engine should cause none.
  public var servicesRun: Int { state.withLock { $0.services } }

  /// Frames mixed since the device first opened.
  public var framesMixed: UInt64 { state.withLock { $0.framesMixed } }

  /// The mixer channels the engine has allocated (as `Mix_AllocateChannels` counts them).
  public var allocatedChannels: Int { state.withLock { $0.channels } }

  /// Mixes `frames` frames, one device buffer at a time. Before each buffer it waits for the work
  /// already handed to the engine's queue; after it, it runs the engine's service when the mix
  /// signalled (a channel finished, a ramp reached silence) or a deadline passed, as SDL's thread
  /// and the queue would.
  public func advance(frames: Int) {
    var left = frames
    while left > 0 {
      let count = min(left, bufferFrames)
      beforeEachBuffer.withLock { $0 }?.run()
      queue.withLock { $0 }?.sync {}
      mixBuffer(frames: count)
      runServiceIfDue()
      left -= count
    }
  }

  /// Mixes `seconds` of audio (rounded to whole frames).
  public func advance(seconds: Double) {
    advance(frames: Int((seconds * Double(sampleRate)).rounded()))
  }

  private func runServiceIfDue() {
    guard let queue = queue.withLock({ $0 }), let service = service.withLock({ $0 })?.run else { return }
    let now = self.now
    let deadlinePassed = state.withLock { state -> Bool in
      guard let deadline = state.deadline, now >= deadline else { return false }
      state.deadline = nil
      return true
    }
    guard signal.withLock({ $0?.isPending }) == true || deadlinePassed else { return }
    state.withLock { $0.services += 1 }
    queue.sync(execute: service)
  }

  private func mixBuffer(frames: Int) {
    state.withLock { state in
      guard state.isOpen else {
        state.framesMixed += UInt64(frames)
        return
      }
      let length = frames * sampleFormat.bytesPerSample * channelCount
      var mix = [UInt8](repeating: 0, count: length)
      // SDL_mixer's carriers mix nothing; the voice mixer, on the post-mix hook, is the mix.
      if let mixer = state.mixer {
        mix.withUnsafeMutableBytes { mixer.render($0.baseAddress!, byteCount: length) }
      }
      mix.withUnsafeBytes { bytes in
        if sampleFormat == .float32 {
          state.output.append(contentsOf: bytes.bindMemory(to: Float.self))
        } else {
          state.output.append(contentsOf: bytes.bindMemory(to: Int16.self).map { Float($0) / 32_768 })
        }
      }
      state.framesMixed += UInt64(frames)
    }
  }

  // MARK: - MixerBackend

  package func open(
    _ configuration: AudioConfiguration, deviceName: String?
  ) throws(SDLError) -> AudioDeviceFormat {
    guard isDeviceAvailable else {
      throw SDLError(operation: "Mix_OpenAudioDevice", message: "no audio device (embedded mixer)")
    }
    if let deviceName, !outputDeviceNames.contains(deviceName) || refusedDeviceNames.contains(deviceName) {
      throw SDLError(
        operation: "Mix_OpenAudioDevice", message: "no device named '\(deviceName)' (embedded mixer)")
    }
    openedName.withLock { $0 = deviceName }
    state.withLock { state in
      state.isOpen = true
      state.opens += 1
      state.deviceID = state.opens
    }
    return AudioDeviceFormat(
      driver: "embedded", sampleRate: sampleRate, sampleFormat: sampleFormat, channels: channelCount,
      bufferFrames: bufferFrames)
  }

  package var deviceID: UInt32 { state.withLock { $0.isOpen ? $0.deviceID : 0 } }

  package func outputDevices() -> [AudioDevice] {
    outputDeviceNames.enumerated().map { AudioDevice(name: $1, isDefault: $0 == 0) }
  }

  package func close() {
    state.withLock { state in
      state.isOpen = false
      state.mixer?.disarmAll()
      state.mixer = nil
    }
  }

  package func allocateChannels(_ count: Int) -> Int {
    state.withLock { state in
      state.channels = max(state.channels, count)
      return state.channels
    }
  }

  package func play(_ start: LaneStart, on channel: Int) throws(SDLError) -> UInt64? {
    let armed = state.withLock { state -> UInt64?? in
      guard state.isOpen, channel < state.channels, let mixer = state.mixer else { return nil }
      return .some(mixer.arm(channel, start))
    }
    guard let armed else {
      throw SDLError(operation: "Mix_PlayChannel", message: "no such channel \(channel)")
    }
    return armed
  }

  package func halt(_ channel: Int) {
    state.withLock { state in
      guard let mixer = state.mixer, mixer.disarm(channel) else { return }
      mixer.inbox.post(Int32(channel))
    }
  }

  package func cut(_ channel: Int) -> Bool {
    state.withLock { $0.mixer?.disarm(channel) ?? false }
  }

  package func pause(_ channel: Int) {
    state.withLock { $0.mixer?.setPaused(channel, true) }
  }

  package func resume(_ channel: Int) {
    state.withLock { $0.mixer?.setPaused(channel, false) }
  }

  package func isPaused(_ channel: Int) -> Bool {
    state.withLock { $0.mixer.map { $0.isArmed(channel) && $0.isPaused(channel) } ?? false }
  }

  package func isPlaying(_ channel: Int) -> Bool {
    state.withLock { $0.mixer?.isArmed(channel) ?? false }
  }

  package func freeChunk(_ chunk: MixChunk) {
    state.withLock { state in
      guard let mixer = state.mixer else { return }
      for channel in mixer.disarm(using: chunk) { mixer.inbox.post(Int32(channel)) }
    }
    chunk.freeWithoutMixer()
  }

  package func connect(mixer: VoiceMixer?) {
    state.withLock { $0.mixer = mixer }
  }

  package func withAudioLock<T>(_ body: () -> T) -> T {
    state.withLock { _ in body() }
  }

  package func holdingAudioLock<T>(_ body: () -> T) -> T { body() }

  package var now: UInt64 {
    let frames = state.withLock { $0.framesMixed }
    return frames * 1_000_000_000 / UInt64(sampleRate)
  }

  package func makeWakeSignal(queue: DispatchQueue, service: @escaping @Sendable () -> Void) -> WakeSignal {
    let wake = WakeSignal {}
    self.queue.withLock { $0 = queue }
    self.service.withLock { $0 = Callback(service) }
    signal.withLock { $0 = wake }
    return wake
  }

  /// The embedded mixer mixes only when a test advances it.
  package var mixesOnDemand: Bool { true }

  package func runBeforeEachBuffer(_ work: @escaping @Sendable () -> Void) {
    beforeEachBuffer.withLock { $0 = Callback(work) }
  }

  package func detach() {
    beforeEachBuffer.withLock { $0 = nil }
    service.withLock { $0 = nil }
    queue.withLock { $0 = nil }
    signal.withLock { $0 = nil }
    state.withLock { $0.deadline = nil }
  }

  package func scheduleService(at deadline: UInt64?) {
    state.withLock { $0.deadline = deadline }
  }
}

/// A closure kept by reference, so storing it behind a lock never re-wraps it.
final class Callback: Sendable {
  let run: @Sendable () -> Void

  init(_ run: @escaping @Sendable () -> Void) {
    self.run = run
  }
}
