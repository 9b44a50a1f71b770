public import FoleyCore
public import FoleySession
public import Foundation
public import Logging

extension AudioEngine {
  /// Opens an engine on `mixer`, which mixes only when a test or tool advances it: logic that
  /// depends on time (ramps, policies, session modes, device restore, streams) runs frame by
  /// frame, the same on any machine, with no sleeping.
  ///
  /// ```swift
  /// let mixer = EmbeddedMixer()
  /// let engine = try AudioEngine(embedded: mixer)
  /// engine.play(try engine.sound(data: blip))
  /// mixer.advance(seconds: 0.1)
  /// let samples = mixer.takeOutput()   // interleaved float frames
  /// ```
  public convenience init(
    embedded mixer: EmbeddedMixer, configuration: AudioConfiguration = AudioConfiguration(),
    session: AudioSession = AudioSession(), assetRoots: [URL] = AudioEngine.defaultAssetRoots,
    logger: Logger = .foley("foley.audio")
  ) throws(AudioEngineError) {
    try self.init(
      backend: mixer, configuration: configuration, session: session, assetRoots: assetRoots, logger: logger)
  }

  /// Waits until the engine has served everything asked of it so far: the modules' background
  /// work (a sound map's pitch variants), the streams topped up, the plays handed over, and the
  /// plays waiting for their sound's decoding started. For tools
  /// and tests that need the engine settled before they look (it blocks the calling thread).
  public func waitUntilIdle() {
    waitForBackgroundWork()
    streamFiller.queue.sync { streamFiller.fillAll(waitingForChecks: true) }
    core.flushRequests(evenIfHeld: true)
    while core.syncOnQueue({ core.isAwaitingDecodes }) {
      library.decodeQueue.sync {}
    }
  }

  /// Runs `body` with the engine's requests held: the plays, moves and releases it asks for wait
  /// until ``waitUntilIdle()`` hands them to the audio queue in one hop, after whatever streams
  /// `body` started have been put on their channels.
  ///
  /// An offline render's step runs the game's update this way. Without it, the order the queue
  /// served a step's work in hung on timing: a stream started in the update (speech, music) is
  /// put on its channel by the stream thread whenever that thread gets to it, and the scene's
  /// hop at the end of the update went before or after it, so the plays got other channels, and
  /// the mix added them up in another order (a render of the demo's tour differed in its last
  /// bits under heavy load).
  package func holdingRequests<Result>(_ body: () throws -> Result) rethrows -> Result {
    core.holdRequests(true)
    defer { core.holdRequests(false) }
    return try body()
  }
}
