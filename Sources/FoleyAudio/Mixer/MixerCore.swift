package import Dispatch
package import FoleyCore
package import FoleySession
import Foundation
package import Logging
package import Synchronization

/// The engine's mixing logic, confined to one serial queue: requests come in from the game
/// thread, sounds are resolved, voices are admitted onto channels, and what the mix reports
/// (finished channels, ramps that reached silence) is acted on.
///
/// It calls the mixer only through its ``MixerBackend`` and reads time only from it, so the same
/// logic runs on SDL_mixer or on the ``EmbeddedMixer`` that tests drive frame by frame. No timer
/// runs while nothing waits: the mix wakes the queue (see ``WakeSignal``), and a one-shot wake is
/// scheduled only while a ramp is under way, as a fallback.
///
/// The parts live in extensions by concept: admitting and releasing voices
/// (`MixerCore+Voices.swift`), the game's control of a voice (`+VoiceControl`), the session and
/// the buses (`+Session`), device loss and restore (`+Device`).
///
/// Any thread may call the front: ``requestPlay(_:volume:pan:groupVolume:loops:placement:rate:schedule:)``,
/// ``flushRequests(evenIfHeld:)``, the voice controls that enqueue (`stop`, `updateGain`, …) and the
/// atomics and locked tables. Everything else runs on `queue`.
///
/// Invariant behind `@unchecked Sendable`: the one `var`, ``state``, and the channel table are
/// only touched on `queue`, which every access checks in debug builds (``QueueBound``); the other
/// `let`s are immutable or thread-safe (atomics, locks).
package final class MixerCore: @unchecked Sendable {
  package let queue: DispatchQueue
  package let backend: any MixerBackend
  package let counters = AudioCounters()
  /// Each category's loudness target in LUFS, for sounds that normalize (any thread).
  package let loudnessTargets = Locked<[SoundCategory: Double]>([:])
  /// Each category's own voice budget (any thread; the queue reads it in its passes).
  let audibleLimits = Locked<[SoundCategory: Int]>([:])
  package let session: AudioSession
  package let logger: Logger
  package let configuration: AudioConfiguration
  /// The mix's format; a reopened device gets the same one.
  package let format: AudioDeviceFormat
  let declickStep: Float
  /// The play requests' hop to the queue: two user-data sources on it, raised in turn
  /// (``PendingRequests/scheduleHop()``), by a merge that allocates nothing. A `queue.async`
  /// allocated a continuation each frame on the game thread (libdispatch caches them per
  /// thread, and the game thread only ever gives them away).
  let requestSignals: [any DispatchSourceUserDataOr]
  package let library: SoundLibrary
  package let master: MasterBus
  let inbox: FinishedChannelInbox
  /// The mix itself, on SDL's thread: voices into buses, buses into the master.
  package let mixer: VoiceMixer
  /// The reverb on the return bus that voices send to.
  package let reverb = ReverbEffect()
  /// Each category's bus in the mixer, given out as categories first play (queue-owned; the
  /// lock only lets the game thread read it for `setEffects`).
  package let busIndices = Locked<[SoundCategory: Int]>([:])
  /// The session policy of each category; read by the game thread's gate while inactive.
  let policies = Locked(PolicyTable())
  /// Bus volumes as the game last set them; the queue applies them.
  package let buses = Locked(BusSettings())
  /// The plays of captioned sounds and of rumbling ones, for the game thread's captions and haptics.
  package let captionPlays = PlayInbox()
  package let rumblePlays = PlayInbox()
  /// The output device the engine was opened on or switched to (nil: the default). A device lost
  /// is replaced by the default.
  package let outputDeviceName = Locked<String?>(nil)
  /// SDL's id of the opened output device; 0 while there is none.
  package let deviceID = Atomic<UInt32>(0)
  let requests = Locked(PendingRequests())
  /// The game parameters and mix snapshots defined (`MixerCore+Parameters.swift`).
  let parameterRegistry = Locked(ParameterRegistry())
  /// Whether a capture runs: what the game thread reads before noting a command the capture
  /// does not record.
  let isCapturing = Atomic<Bool>(false)

  /// Everything only the queue touches but the channel table, as one value: ``state``.
  package struct QueueState {
    package var isOpen = true
    /// False while there is no device (none at start, or lost and not reopened yet).
    var hasDevice: Bool
    /// The session state last applied to the voices.
    var sessionState = AudioSession.State()
    /// The bus settings last applied to the voices (whoever changes them clears
    /// ``MixerCore/busGains``).
    var appliedBuses = BusSettings()
    /// The volume each bus's fader was last sent to, by bus, and the master's.
    var faderVolumes: [Int: Double] = [:]
    var masterFaderVolume = 1.0
    var releases = ReleaseScheduler()
    /// Voices kept while there is no device, as the slots they will be restored into: each
    /// one's `position` is where to continue and `loops` the whole passes after that.
    var orphans: [Slot] = []
    var hasWarnedAboutDevice = false
    var startOrder: UInt64 = 0
    var lastStartOfSound: [ObjectIdentifier: UInt64] = [:]
    /// Voices playing without a channel (see `MixerCore+Virtual.swift`).
    var virtual = VirtualVoices()
    /// The silent chunk each category's streamed voices loop (see `MixerCore+Streams.swift`).
    var carriers: [SoundCategory: Sound] = [:]
    /// Plays waiting for their bytes or file to be decoded, by what they wait for.
    var awaitingDecode: [DecodeKey: [WaitingPlay]] = [:]
    var finishedChannels: [Int] = []
    /// How long the moves the queue applies glide (``PlacementGlide``).
    var placementGlide = PlacementGlide()
    /// While a batch of plays is served, the backend's clock is read at most once (on SDL it is
    /// a system call, and a burst of steals would read it per voice); nil outside a batch.
    var batchClock: UInt64?? = nil
    /// The capture being written, if one runs (``CommandCapture``).
    var capture: CommandCapture?
    /// Whether this engine replays a capture: its moves, as a capture's, go through the queue.
    var isReplaying = false
  }
  // In debug builds the state is in a ``QueueBound`` box that checks the queue on every access,
  // and so is the channel table (a reference that never changes, kept apart from the state
  // because the passes read it while they change the state). In release builds both are stored
  // in the core, the state with the runtime's exclusivity checks left off: only the queue
  // touches it, one access at a time, which the debug builds' checks verify. (Either one read
  // through a computed property in release builds made the queue's side of a trigger dearer: see
  // BENCHMARKS.md.)
  #if DEBUG
    /// The queue-owned state; on `queue` only.
    package var state: QueueState {
      _read { yield box.value }
      _modify { yield &box.value }
    }
    private var box: QueueBound<QueueState>
    package var table: ChannelTable { tableBox.value }
    private let tableBox: QueueBound<ChannelTable>
  #else
    /// The queue-owned state; on `queue` only.
    @exclusivity(unchecked) package var state: QueueState
    package let table: ChannelTable
  #endif
  let busGains = CategoryMemo<Double>()
  /// Each category's bus index as the queue last looked it up (``busIndices`` never changes one).
  let busIndexMemo = CategoryMemo<Int>()

  /// Now, on the backend's clock.
  package var now: UInt64 {
    guard let cached = state.batchClock else { return backend.now }
    if let reading = cached { return reading }
    let reading = backend.now
    state.batchClock = .some(reading)
    return reading
  }
  /// Extra physical channels beyond the voice cap, where stolen and stopped voices ramp out.
  let releaseReserve = 16

  package init(
    configuration: AudioConfiguration, format: AudioDeviceFormat, hasDevice: Bool, backend: any MixerBackend,
    queue: DispatchQueue, session: AudioSession, library: SoundLibrary, logger: Logger
  ) {
    self.queue = queue
    self.configuration = configuration
    self.format = format
    // Queue-owned from here on.
    #if DEBUG
      box = QueueBound(QueueState(hasDevice: hasDevice), on: queue)
      tableBox = QueueBound(ChannelTable(), on: queue)
    #else
      state = QueueState(hasDevice: hasDevice)
      table = ChannelTable()
    #endif
    self.backend = backend
    self.session = session
    self.library = library
    self.logger = logger
    declickStep = Float(1 / max(1, configuration.declickDuration * Double(format.sampleRate)))
    master = MasterBus(format: format, limiter: configuration.limiter, volumeStep: declickStep)
    // The wake signal needs the core to exist; the inbox needs the signal. The service closure
    // holds the core strongly (a weak reference would put every retain of the core, one per
    // voice, on the slow side-table path); the backend drops it in `detach()` when the engine
    // shuts down, which breaks the cycle.
    let box = CoreBox()
    let wake = backend.makeWakeSignal(queue: queue) { box.core?.service() }
    // The hop holds the core unretained (a weak reference would cost as above, a strong one would
    // be a cycle); whoever queues it retains the core first, and the hop's run releases it.
    let hopBox = UnretainedCoreBox()
    requestSignals = (0..<2).map { _ in
      let signal = DispatchSource.makeUserDataOrSource(queue: queue)
      signal.setEventHandler { hopBox.core?.takeRetainedValue().servePlayRequests() }
      signal.activate()
      return signal
    }
    inbox = FinishedChannelInbox(wake: wake)
    mixer = VoiceMixer(
      format: format, inbox: inbox, master: master, allowsWideVectors: configuration.allowsWideVectors)
    box.core = self
    hopBox.core = Unmanaged.passUnretained(self)
    // Not connected to the device yet: no mix runs, so the chain goes on without the lock.
    _ = reverb.claim(for: ObjectIdentifier(self), sampleRate: format.sampleRate, channels: format.channels)
    mixer.setEffects([reverb], on: VoiceMixer.reverbBus)
  }

  deinit {
    // No run is waiting (each holds the core); a source is cancelled before it goes.
    for signal in requestSignals { signal.cancel() }
  }

  package func syncOnQueue<T>(_ work: () throws -> T) rethrows -> T {
    dispatchPrecondition(condition: .notOnQueue(queue))
    return try queue.sync(execute: work)
  }
}

/// Hands the wake handler the core, which does not exist yet when the handler is made.
///
/// Invariant behind `@unchecked Sendable`: `core` is set once, before any wake can fire, and
/// only read after.
private final class CoreBox: @unchecked Sendable {
  // Set once, right after the core is made, before any wake can fire; read only by the handler.
  package var core: MixerCore?
}

/// Hands the request hop the core without keeping it (``MixerCore/queueRequestHop()`` retains the
/// core for each hop it queues).
///
/// Invariant behind `@unchecked Sendable`: `core` is set once, before any play can be asked, and
/// only read after.
private final class UnretainedCoreBox: @unchecked Sendable {
  var core: Unmanaged<MixerCore>?
}
