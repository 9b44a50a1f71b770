extension AudioEngine {
  /// A timeline for a game with rollback netcode, its simulation running at `framesPerSecond`
  /// (see ``RollbackTimeline``).
  ///
  /// ```swift
  /// let timeline = try engine.rollbackTimeline(framesPerSecond: 60)
  /// timeline.play(jump, key: RollbackKey(event: "jump", entity: 2, frame: 30), frame: 30)
  /// ```
  /// - Parameters:
  ///   - framesPerSecond: the simulation's rate, 1…1,000.
  ///   - origin: the engine frame simulation frame 0 sounds on; by default two buffers after the
  ///     frame the mix has reached, so that a request made on its own frame is heard on time.
  ///   - settings: the fade of a mispredicted sound, the de-click of a late one, the window.
  /// - Throws: ``RollbackError/invalidRate(_:)`` for a rate outside 1…1,000.
  public func rollbackTimeline(
    framesPerSecond: Int, origin: AudioFrame? = nil, settings: RollbackTimeline.Settings = .init()
  ) throws(RollbackError) -> RollbackTimeline {
    guard (1...1_000).contains(framesPerSecond) else { throw .invalidRate(framesPerSecond) }
    return RollbackTimeline(
      core: core, framesPerSecond: framesPerSecond,
      origin: origin ?? audioFrame + 2 * deviceFormat.bufferFrames, settings: settings)
  }
}
