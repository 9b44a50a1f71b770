package import Dispatch
package import FoleyCore

/// The few mixer operations the engine's core makes, and its clock: the seam between the core's
/// logic and SDL_mixer.
///
/// ``SDLMixerBackend`` is the real one. ``EmbeddedMixer`` mixes the same way inside the process,
/// driven by hand, so tests of allocation, policies, ramps, session modes and device restore
/// advance frames instead of sleeping (after swift-nio's `EmbeddedEventLoop`).
///
/// The core calls every method on its audio queue, except ``now``, which any thread may read.
package protocol MixerBackend: AnyObject, Sendable {
  /// Opens the output device for `configuration` (SDL converts for the hardware), or throws SDL's
  /// reason.
  func open(_ configuration: AudioConfiguration, deviceName: String?) throws(SDLError) -> AudioDeviceFormat
  /// The output devices there are (SDL's list; the embedded mixer's own).
  func outputDevices() -> [AudioDevice]
  /// SDL's id of the open output device (what `SDL_AUDIODEVICEREMOVED` reports), 0 when closed.
  var deviceID: UInt32 { get }
  /// Closes the device; channels stop without reporting that they finished.
  func close()

  /// Makes `count` channels exist; returns how many there are.
  func allocateChannels(_ count: Int) -> Int
  /// Starts `start` on `channel`: the connected ``VoiceMixer`` plays it, and the channel is its
  /// lease (SDL_mixer: a silent carrier at volume 0, no effects). Returns the mix frame it starts
  /// on, or nil, with nothing started, when its scheduled frame has already been mixed.
  func play(_ start: LaneStart, on channel: Int) throws(SDLError) -> UInt64?
  /// Stops `channel` at once; the inbox hears of it if it was playing.
  func halt(_ channel: Int)
  /// Stops `channel`'s lane at once for another start on the same channel, without a report:
  /// true when it was playing, and then no report of it is due (the core collects its voice
  /// itself); false when the mix had already finished it, and its report is in the inbox.
  /// SDL_mixer's channel keeps its silent carrier: the next `Mix_PlayChannel` on it replaces it.
  func cut(_ channel: Int) -> Bool
  func pause(_ channel: Int)
  func resume(_ channel: Int)
  func isPaused(_ channel: Int) -> Bool
  func isPlaying(_ channel: Int) -> Bool
  /// Frees a chunk, first halting any channel that still plays it.
  func freeChunk(_ chunk: MixChunk)

  /// Connects the mix: the ``VoiceMixer`` that renders every buffer (its inbox hears of finished
  /// channels, its master bus ends the mix). Nil disconnects; after it returns no mix uses the
  /// old one.
  func connect(mixer: VoiceMixer?)
  /// Runs `body` while no mix runs (SDL's audio lock; the embedded mixer's own): the only way
  /// the queue changes the voice mixer's lanes and buses.
  func withAudioLock<T>(_ body: () -> T) -> T
  /// Runs `body` holding the audio lock where taking it again inside costs little (SDL's device
  /// lock is recursive), so that a hop's many plays, cuts and halts take it once. The embedded
  /// mixer, whose lock is not recursive, runs `body` as it is.
  func holdingAudioLock<T>(_ body: () -> T) -> T

  /// Monotonic time in nanoseconds: wall time for SDL, frames mixed for the embedded mixer.
  var now: UInt64 { get }
  /// The signal the mix raises for the core, which then runs `service` on `queue`.
  func makeWakeSignal(queue: DispatchQueue, service: @escaping @Sendable () -> Void) -> WakeSignal
  /// Runs the `service` given to ``makeWakeSignal(queue:service:)`` once at `deadline` (on the
  /// backend's clock), replacing any earlier request; nil cancels. A fallback only: ramps and
  /// finishes wake the queue themselves.
  func scheduleService(at deadline: UInt64?)
  /// The engine is done with this backend: drop the service closure and any wake it scheduled.
  func detach()

  /// True for a backend that mixes only when told (the embedded mixer): the engine then tops its
  /// streams up before each buffer rather than on a timer. False for SDL, which mixes on its own
  /// clock.
  var mixesOnDemand: Bool { get }
  /// Runs `work` before each buffer is mixed, on the thread that mixes; only asked of a backend
  /// that ``mixesOnDemand``.
  func runBeforeEachBuffer(_ work: @escaping @Sendable () -> Void)
}
