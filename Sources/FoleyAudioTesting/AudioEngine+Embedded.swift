public import FoleyAudio
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
    core.flushRequests()
    while core.syncOnQueue({ core.isAwaitingDecodes }) {
      library.decodeQueue.sync {}
    }
  }
}
