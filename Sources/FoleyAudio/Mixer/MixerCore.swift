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
/// Any thread may call the front: ``requestPlay(_:volume:pan:groupVolume:loops:deferred:placement:)``,
/// ``flushRequests()``, the voice controls that enqueue (`stop`, `updateGain`, …) and the
/// atomics and locked tables. Everything else runs on `queue`.
///
/// Invariant behind `@unchecked Sendable`: every `var` is a view of a ``QueueBound`` box, so each
/// access is checked against `queue` in debug builds; the `let`s are immutable or thread-safe
/// (atomics, mutexes).
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
  let nextVoiceID = Atomic<UInt64>(1)
  let requests = Locked(PendingRequests())

  // Queue-owned state. In debug builds each value is in a box that checks the queue on every
  // access, behind a property of the name the code uses; in release builds it is a plain stored
  // property, with the runtime's exclusivity checks left off: only the queue touches them, one
  // access at a time, and the debug builds' boxes check both. (The state gathered in one box, or
  // each value behind a computed property in release builds, made a trigger measurably dearer
  // on the queue: see BENCHMARKS.md.)
  #if DEBUG
    var isOpen: Bool {
      _read { yield isOpenBox.value }
      _modify { yield &isOpenBox.value }
    }
    private var isOpenBox: QueueBound<Bool>
  #else
    @exclusivity(unchecked) var isOpen: Bool
  #endif
  /// False while there is no device (none at start, or lost and not reopened yet).
  #if DEBUG
    var hasDevice: Bool {
      _read { yield hasDeviceBox.value }
      _modify { yield &hasDeviceBox.value }
    }
    private var hasDeviceBox: QueueBound<Bool>
  #else
    @exclusivity(unchecked) var hasDevice: Bool
  #endif
  /// The session state last applied to the voices.
  #if DEBUG
    var sessionState: AudioSession.State {
      _read { yield sessionStateBox.value }
      _modify { yield &sessionStateBox.value }
    }
    private var sessionStateBox: QueueBound<AudioSession.State>
  #else
    @exclusivity(unchecked) var sessionState: AudioSession.State
  #endif
  /// The bus settings last applied to the voices (a change clears ``busGains``).
  #if DEBUG
    var appliedBuses: BusSettings {
      _read { yield appliedBusesBox.value }
      _modify {
        yield &appliedBusesBox.value
        busGains.forget()
      }
    }
    private var appliedBusesBox: QueueBound<BusSettings>
  #else
    @exclusivity(unchecked) var appliedBuses: BusSettings { didSet { busGains.forget() } }
  #endif
  let busGains = CategoryMemo<Double>()
  /// Each category's bus index as the queue last looked it up (``busIndices`` never changes one).
  let busIndexMemo = CategoryMemo<Int>()
  #if DEBUG
    package var table: ChannelTable {
      _read { yield tableBox.value }
    }
    private var tableBox: QueueBound<ChannelTable>
  #else
    package let table: ChannelTable
  #endif
  #if DEBUG
    package var releases: ReleaseScheduler {
      _read { yield releasesBox.value }
      _modify { yield &releasesBox.value }
    }
    private var releasesBox: QueueBound<ReleaseScheduler>
  #else
    @exclusivity(unchecked) package var releases: ReleaseScheduler
  #endif
  /// Voices kept while there is no device, as the slots they will be restored into: each one's
  /// `position` is where to continue and `loops` the whole passes after that.
  #if DEBUG
    var orphans: [Slot] {
      _read { yield orphansBox.value }
      _modify { yield &orphansBox.value }
    }
    private var orphansBox: QueueBound<[Slot]>
  #else
    @exclusivity(unchecked) var orphans: [Slot]
  #endif
  #if DEBUG
    var hasWarnedAboutDevice: Bool {
      _read { yield hasWarnedAboutDeviceBox.value }
      _modify { yield &hasWarnedAboutDeviceBox.value }
    }
    private var hasWarnedAboutDeviceBox: QueueBound<Bool>
  #else
    @exclusivity(unchecked) var hasWarnedAboutDevice: Bool
  #endif
  #if DEBUG
    var startOrder: UInt64 {
      _read { yield startOrderBox.value }
      _modify { yield &startOrderBox.value }
    }
    private var startOrderBox: QueueBound<UInt64>
  #else
    @exclusivity(unchecked) var startOrder: UInt64
  #endif
  #if DEBUG
    var lastStartOfSound: [ObjectIdentifier: UInt64] {
      _read { yield lastStartOfSoundBox.value }
      _modify { yield &lastStartOfSoundBox.value }
    }
    private var lastStartOfSoundBox: QueueBound<[ObjectIdentifier: UInt64]>
  #else
    @exclusivity(unchecked) var lastStartOfSound: [ObjectIdentifier: UInt64]
  #endif
  /// Voices playing without a channel (see `MixerCore+Virtual.swift`).
  #if DEBUG
    package var virtual: VirtualVoices {
      _read { yield virtualBox.value }
      _modify { yield &virtualBox.value }
    }
    private var virtualBox: QueueBound<VirtualVoices>
  #else
    @exclusivity(unchecked) package var virtual: VirtualVoices
  #endif
  /// The silent chunk each category's streamed voices loop (see `MixerCore+Streams.swift`).
  #if DEBUG
    var carriers: [SoundCategory: Sound] {
      _read { yield carriersBox.value }
      _modify { yield &carriersBox.value }
    }
    private var carriersBox: QueueBound<[SoundCategory: Sound]>
  #else
    @exclusivity(unchecked) var carriers: [SoundCategory: Sound]
  #endif
  /// Plays waiting for their bytes or file to be decoded, by what they wait for.
  #if DEBUG
    var awaitingDecode: [DecodeKey: [PlayRequest]] {
      _read { yield awaitingDecodeBox.value }
      _modify { yield &awaitingDecodeBox.value }
    }
    private var awaitingDecodeBox: QueueBound<[DecodeKey: [PlayRequest]]>
  #else
    @exclusivity(unchecked) var awaitingDecode: [DecodeKey: [PlayRequest]]
  #endif
  #if DEBUG
    var finishedChannels: [Int] {
      _read { yield finishedChannelsBox.value }
      _modify { yield &finishedChannelsBox.value }
    }
    private var finishedChannelsBox: QueueBound<[Int]>
  #else
    @exclusivity(unchecked) var finishedChannels: [Int]
  #endif
  /// While a batch of plays is served, the backend's clock is read at most once (on SDL it is a
  /// system call, and a burst of steals would read it per voice); nil outside a batch.
  #if DEBUG
    var batchClock: UInt64?? {
      _read { yield batchClockBox.value }
      _modify { yield &batchClockBox.value }
    }
    private var batchClockBox: QueueBound<UInt64??>
  #else
    @exclusivity(unchecked) var batchClock: UInt64??
  #endif

  /// Now, on the backend's clock.
  package var now: UInt64 {
    guard let cached = batchClock else { return backend.now }
    if let reading = cached { return reading }
    let reading = backend.now
    batchClock = .some(reading)
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
      isOpenBox = QueueBound(true, on: queue)
    #else
      isOpen = true
    #endif
    #if DEBUG
      hasDeviceBox = QueueBound(hasDevice, on: queue)
    #else
      self.hasDevice = hasDevice
    #endif
    #if DEBUG
      sessionStateBox = QueueBound(AudioSession.State(), on: queue)
    #else
      sessionState = AudioSession.State()
    #endif
    #if DEBUG
      appliedBusesBox = QueueBound(BusSettings(), on: queue)
    #else
      appliedBuses = BusSettings()
    #endif
    #if DEBUG
      tableBox = QueueBound(ChannelTable(), on: queue)
    #else
      table = ChannelTable()
    #endif
    #if DEBUG
      releasesBox = QueueBound(ReleaseScheduler(), on: queue)
    #else
      releases = ReleaseScheduler()
    #endif
    #if DEBUG
      orphansBox = QueueBound([], on: queue)
    #else
      orphans = []
    #endif
    #if DEBUG
      hasWarnedAboutDeviceBox = QueueBound(false, on: queue)
    #else
      hasWarnedAboutDevice = false
    #endif
    #if DEBUG
      startOrderBox = QueueBound(0, on: queue)
    #else
      startOrder = 0
    #endif
    #if DEBUG
      lastStartOfSoundBox = QueueBound([:], on: queue)
    #else
      lastStartOfSound = [:]
    #endif
    #if DEBUG
      virtualBox = QueueBound(VirtualVoices(), on: queue)
    #else
      virtual = VirtualVoices()
    #endif
    #if DEBUG
      carriersBox = QueueBound([:], on: queue)
    #else
      carriers = [:]
    #endif
    #if DEBUG
      awaitingDecodeBox = QueueBound([:], on: queue)
    #else
      awaitingDecode = [:]
    #endif
    #if DEBUG
      finishedChannelsBox = QueueBound([], on: queue)
    #else
      finishedChannels = []
    #endif
    #if DEBUG
      batchClockBox = QueueBound(nil, on: queue)
    #else
      batchClock = nil
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
