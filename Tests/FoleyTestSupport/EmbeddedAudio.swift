public import FoleyAudio
import FoleyAudioTesting
public import FoleyScene
public import FoleySession
public import Foundation

/// An engine on the ``EmbeddedMixer``, and the output it mixed: logic tests advance it frame by
/// frame, stepping a scene at 60 Hz in between, and nothing depends on the machine's speed.
///
/// ```swift
/// let audio = try EmbeddedAudio()
/// let voice = audio.engine.play(tone)
/// audio.advance(seconds: 0.1)
/// #expect(audio.left.peak > 0.4)
/// ```
@MainActor
public final class EmbeddedAudio {
  package let mixer: EmbeddedMixer
  public let engine: AudioEngine
  public var session: AudioSession { engine.session }
  /// Everything mixed so far, interleaved stereo.
  public private(set) var output: [Float] = []
  public let sampleRate = 48_000

  /// - Parameter limiter: false turns the master limiter off, so the output is not delayed by
  ///   its look-ahead (tests of exact sample positions).
  public init(
    configuration: AudioConfiguration = AudioConfiguration(), session: AudioSession = AudioSession(),
    assetRoots: [URL] = AudioEngine.defaultAssetRoots, limiter: Bool = true, bufferFrames: Int = 512
  ) throws {
    mixer = EmbeddedMixer(sampleFormat: configuration.sampleFormat, bufferFrames: bufferFrames)
    var configuration = configuration
    if !limiter { configuration.limiter = nil }
    engine = try AudioEngine(
      backend: mixer, configuration: configuration, session: session, assetRoots: assetRoots)
  }

  deinit {
    engine.close()
  }

  /// Mixes `frames` frames; with a scene, steps it by 1/60 s before each 800-frame slice, as a
  /// game loop interleaves updates with the audio.
  public func advance(frames: Int, stepping scene: Scene? = nil) {
    var left = frames
    while left > 0 {
      let slice = scene == nil ? left : min(left, sampleRate / 60)
      scene?.update(deltaTime: Double(slice) / Double(sampleRate))
      // Plays asked for (and sounds being decoded) land before the mix, so runs are repeatable.
      engine.waitUntilIdle()
      mixer.advance(frames: slice)
      output += mixer.takeOutput()
      left -= slice
    }
  }

  public func advance(seconds: Double, stepping scene: Scene? = nil) {
    advance(frames: Int((seconds * Double(sampleRate)).rounded()), stepping: scene)
  }

  /// Mixes until `condition` holds, at most `limit` seconds of audio; returns whether it did.
  @discardableResult
  public func advance(until condition: () -> Bool, limit: Double = 10, stepping scene: Scene? = nil) -> Bool {
    var mixed = 0.0
    while !condition() {
      guard mixed < limit else { return false }
      advance(seconds: 1.0 / 60.0, stepping: scene)
      mixed += 1.0 / 60.0
    }
    return true
  }

  public var left: Signal { Signal(interleaved: output, channel: 0) }
  public var right: Signal { Signal(interleaved: output, channel: 1) }
  /// Frames mixed so far.
  public var frames: Int { output.count / 2 }
}
