public import FoleyAudio
public import Foundation
public import Logging

extension OfflineRenderer {
  /// What a replay rendered, and what it could not do as the live engine did.
  public struct ReplayResult: Sendable, Equatable {
    /// The render: frames, hash, speed.
    public var render: Result
    /// Commands applied.
    public var commands: Int
    /// What the replay could not do as the live engine did: a sound missing or changed (when
    /// allowed), commands of kinds the capture does not record, voices older than the capture.
    /// Empty: the replay is the live mix, sample for sample.
    public var warnings: [String]
  }

  /// Renders `capture` again to a 32-bit float stereo WAV at `url`: an engine opened as the
  /// captured one was (its rate, buffer length, limiter, channel budget and mix), each command
  /// applied on the frame it took effect on live. A capture of a run on SDL's disk driver
  /// replays to the samples that run wrote, after the device's fixed latency.
  ///
  /// ```swift
  /// let capture = try CaptureFile(contentsOf: URL(fileURLWithPath: "round.foleycapture"))
  /// let replay = try OfflineRenderer.replay(capture, to: URL(fileURLWithPath: "round.wav"))
  /// for warning in replay.warnings { print("warning:", warning) }
  /// ```
  /// - Parameters:
  ///   - capture: the capture, as `CaptureFile` read it.
  ///   - url: the WAV file to write (replaced).
  ///   - assetRoots: where the captured sounds are found by name.
  ///   - sounds: the bytes of sounds the game made in code rather than read from its assets, by
  ///     the name it gave them (a generated effect, a synthesised texture).
  ///   - allowingChangedSounds: replay anyway when a sound is missing (its plays left out) or its
  ///     samples changed (played as they are now), each named in the warnings.
  ///   - logger: the replay engine's logger.
  /// - Throws: `CaptureError`: `.missingSound` or `.changedSound` naming the sound (unless
  ///   allowed), `.invalid` for a capture the renderer cannot open, `.cannotWrite` for the WAV.
  public static func replay(
    _ capture: CaptureFile, to url: URL, assetRoots: [URL] = AudioEngine.defaultAssetRoots,
    sounds: [String: Data] = [:], allowingChangedSounds: Bool = false,
    logger: Logger = .foley("foley.offline")
  ) throws(CaptureError) -> ReplayResult {
    let header = capture.header
    var configuration = AudioConfiguration()
    configuration.maximumChannels = header.engine.maximumChannels
    configuration.initialChannels = min(configuration.initialChannels, header.engine.maximumChannels)
    configuration.maximumAudibleVoices = header.engine.maximumAudibleVoices
    configuration.virtualizesInaudibleVoices = header.engine.virtualizesInaudibleVoices
    configuration.declickDuration = header.engine.declickDuration
    configuration.closeFadeDuration = header.engine.closeFadeDuration
    if let ceiling = header.engine.limiterCeilingDecibels {
      var limiter = LimiterSettings()
      limiter.ceilingDecibels = ceiling
      if let lookAhead = header.engine.limiterLookAhead { limiter.lookAhead = lookAhead }
      if let release = header.engine.limiterRelease { limiter.release = release }
      configuration.limiter = limiter
    } else {
      configuration.limiter = nil
    }
    let renderer: OfflineRenderer
    do {
      renderer = try OfflineRenderer(
        sampleRate: header.sampleRate, bufferFrames: header.bufferFrames, configuration: configuration,
        assetRoots: assetRoots, logger: logger)
    } catch {
      throw .invalid("the captured engine cannot be opened: \(error)")
    }
    defer { renderer.close() }
    let replayer = try CaptureReplayer(
      engine: renderer.engine, capture: capture, sounds: sounds, allowingChangedSounds: allowingChangedSounds)
    let result: Result
    do {
      result = try renderer.writingWAV(to: url) { sink in
        renderer.mix(capture, replayer: replayer, consume: sink)
      }
    } catch {
      if case .cannotWrite(let url, let why) = error { throw .cannotWrite(url, why) }
      throw .invalid("\(error)")
    }
    replayer.finish()
    return ReplayResult(render: result, commands: replayer.commands, warnings: replayer.warnings)
  }

  /// Mixes up to each command's frame, applies it, and mixes on to the capture's last frame.
  private func mix(
    _ capture: CaptureFile, replayer: CaptureReplayer, consume: (UnsafeBufferPointer<Float>) -> Void
  ) -> Result {
    let started = ContinuousClock.now
    var written: UInt64 = 0
    var records = capture.records[...]
    engine.waitUntilIdle()
    while true {
      // Mixed up to the next command's frame (the capture's last frame after the last one).
      let frame = records.first?.frame ?? capture.frames
      if frame > written {
        replayer.settle()
        mixer.advance(frames: Int(frame - written))
        let output = mixer.takeOutput()
        output.withUnsafeBufferPointer { consume($0) }
        written = frame
      }
      guard let record = records.popFirst() else { break }
      replayer.apply(record.command)
    }
    return result(frames: Int(written), since: started)
  }
}
