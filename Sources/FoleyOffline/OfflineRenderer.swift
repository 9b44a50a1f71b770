internal import CFoleyCrypto
public import FoleyAudio
public import FoleyCore
import FoleyRecording
import FoleySession
public import Foundation
public import Logging

/// Renders a game's sound without a device, as fast as the machine goes, and the same bytes on
/// every run: for trailers, replays, golden-file tests and a sound designer's preview.
///
/// The renderer owns an engine on an `EmbeddedMixer` and a session of its own (no window focus
/// can silence it). You load sounds, attach scenes and start music on ``engine`` as a game
/// would; ``render(seconds:step:to:update:consume:)`` then calls your `update` with a fixed time step
/// (step your scenes there), waits until the engine has served everything asked of it (decodes,
/// track checks, stream refills: the clock waits for the machine, never the other way round),
/// and mixes exactly that step's frames.
///
/// ```swift
/// let renderer = try OfflineRenderer()
/// let scene = GameScene(size: Size(width: 800, height: 600))
/// renderer.engine.attach(to: scene)
/// SceneView().presentScene(scene)
/// let result = try renderer.render(seconds: 60, to: URL(fileURLWithPath: "trailer.wav")) { step in
///   scene.update(deltaTime: step)
/// }
/// print(result.sha256, result.speed)     // the same hash on every run; 20× real time or more
/// ```
///
/// What makes it deterministic: a fixed step, whole frames per step from one integer sequence,
/// sounds decoded before they are mixed, music checked and its stream filled before each buffer,
/// seeded randomness (`Scene(seed:)`, `SoundMap(seed:)`), and float32 throughout. What breaks the
/// guarantee: another CPU architecture or another build of a decoder library (libvorbis, libopus,
/// libmpg123, libFLAC) or of libsamplerate can round differently; speech depends on espeak-ng's
/// version; `Double.random` without a seed, wall-clock time in the game's code, and the
/// microphone are the game's to avoid.
@MainActor
public final class OfflineRenderer {
  public let engine: AudioEngine
  public let mixer: EmbeddedMixer
  public var sampleRate: Int { mixer.sampleRate }

  /// What a render produced.
  public struct Result: Sendable, Equatable {
    /// Frames written (per channel).
    public var frames: Int
    /// Seconds of audio.
    public var seconds: Double
    /// The SHA-256 of the WAV file's bytes (or of the float samples when rendering to buffers),
    /// in lowercase hexadecimal.
    public var sha256: String
    /// Seconds of audio rendered per second of wall time.
    public var speed: Double
  }

  /// Opens an engine on an embedded mixer at `sampleRate` (8,000…192,000 Hz), float32 stereo,
  /// mixing `bufferFrames` frames at a time (64…16,384; a live device's buffer, to mix as it did).
  /// - Throws: `AudioEngineError` when the engine cannot open (a configuration out of range).
  public init(
    sampleRate: Int = 48_000, bufferFrames: Int = 512,
    configuration: AudioConfiguration = AudioConfiguration(),
    assetRoots: [URL] = AudioEngine.defaultAssetRoots, logger: Logger = .foley("foley.offline")
  ) throws(AudioEngineError) {
    guard (8_000...192_000).contains(sampleRate) else {
      throw .invalidConfiguration("sampleRate \(sampleRate) is not in 8000...192000")
    }
    guard (64...16_384).contains(bufferFrames) else {
      throw .invalidConfiguration("bufferFrames \(bufferFrames) is not in 64...16384")
    }
    var configuration = configuration
    configuration.sampleRate = sampleRate
    configuration.sampleFormat = .float32
    configuration.channels = 2
    configuration.bufferFrames = bufferFrames
    mixer = EmbeddedMixer(
      sampleRate: sampleRate, sampleFormat: .float32, channels: 2, bufferFrames: bufferFrames)
    engine = try AudioEngine(
      embedded: mixer, configuration: configuration, session: AudioSession(), assetRoots: assetRoots,
      logger: logger)
  }

  /// Closes the engine.
  public func close() { engine.close() }

  /// Renders `seconds` seconds to a 32-bit float stereo WAV at `url` (replaced), calling `update`
  /// with `step` before each step's frames are mixed, and `consume` with each step's mixed
  /// buffer (interleaved stereo float) as it is written — what a player would hear, for a game
  /// that reacts to its own sound.
  /// - Throws: ``OfflineRenderError`` for a bad duration or step, or a file that cannot be written.
  @discardableResult
  public func render(
    seconds: Double, step: Double = 1.0 / 60, to url: URL, update: (Double) -> Void,
    consume: (UnsafeBufferPointer<Float>) -> Void = { _ in }
  ) throws(OfflineRenderError) -> Result {
    try writingWAV(to: url) { sink throws(OfflineRenderError) in
      try mix(seconds: seconds, step: step, update: update, digest: nil) { samples in
        consume(samples)
        sink(samples)
      }
    }
  }

  /// Writes what `produce` hands its sink to a 32-bit float stereo WAV at `url` (replaced), and
  /// returns its result with the finished file's hash.
  func writingWAV(
    to url: URL,
    _ produce: ((UnsafeBufferPointer<Float>) -> Void) throws(OfflineRenderError) -> Result
  ) throws(OfflineRenderError) -> Result {
    let format = RecordingFormat(sampleRate: sampleRate, channels: 2, sampleFormat: .float32)
    let header = WAVHeader(format: format, frames: 0).bytes
    guard FileManager.default.createFile(atPath: url.path, contents: Data(header)),
      let handle = try? FileHandle(forWritingTo: url)
    else {
      throw OfflineRenderError.cannotWrite(url, "cannot create the file")
    }
    defer { try? handle.close() }
    let digest = SHA256Digest()
    var failure: String?
    do {
      try handle.seekToEnd()
    } catch {
      throw OfflineRenderError.cannotWrite(url, error.localizedDescription)
    }
    // The samples are not hashed on the way: the hash is the finished file's, read back below.
    let result = try produce { samples in
      guard failure == nil else { return }
      let bytes = Data(buffer: samples)
      do { try handle.write(contentsOf: bytes) } catch { failure = error.localizedDescription }
    }
    if let failure { throw OfflineRenderError.cannotWrite(url, failure) }
    // The header again, now that the length is known (the same size: only its counts change).
    let patched = WAVHeader(format: format, frames: result.frames).bytes
    do {
      try handle.seek(toOffset: 0)
      try handle.write(contentsOf: Data(patched))
      try handle.synchronize()
    } catch {
      throw OfflineRenderError.cannotWrite(url, error.localizedDescription)
    }
    // The hash of the file as it lies on disk.
    guard let file = try? FileHandle(forReadingFrom: url) else {
      throw OfflineRenderError.cannotWrite(url, "cannot read it back")
    }
    defer { try? file.close() }
    while let chunk = try? file.read(upToCount: 1 << 20), !chunk.isEmpty { digest.update(chunk) }
    var finished = result
    finished.sha256 = digest.finish()
    return finished
  }

  /// Renders `seconds` seconds, handing each mixed buffer (interleaved stereo float) to
  /// `consume`, calling `update` with `step` before each step's frames are mixed.
  /// - Throws: ``OfflineRenderError/invalid(_:)`` for a duration outside 0…86,400 s or a step
  ///   outside 0.001…1 s.
  @discardableResult
  public func render(
    seconds: Double, step: Double = 1.0 / 60, update: (Double) -> Void,
    consume: (UnsafeBufferPointer<Float>) -> Void
  ) throws(OfflineRenderError) -> Result {
    let digest = SHA256Digest()
    var result = try mix(seconds: seconds, step: step, update: update, digest: digest, consume: consume)
    result.sha256 = digest.finish()
    return result
  }

  /// The render itself; its result's hash is left empty (the callers hash what they deliver).
  private func mix(
    seconds: Double, step: Double, update: (Double) -> Void, digest: SHA256Digest?,
    consume: (UnsafeBufferPointer<Float>) -> Void
  ) throws(OfflineRenderError) -> Result {
    guard seconds.isFinite, (0...86_400).contains(seconds) else {
      throw .invalid("seconds must be in 0…86400, not \(seconds)")
    }
    guard step.isFinite, (0.001...1).contains(step) else {
      throw .invalid("step must be in 0.001…1 s, not \(step)")
    }
    let total = Int((seconds * Double(sampleRate)).rounded())
    let started = ContinuousClock.now
    var written = 0
    var steps = 0
    engine.waitUntilIdle()  // what was set up before the render (a map's pitch variants, decodes)
    while written < total {
      // Held: what the update asks for reaches the queue in one hop, in the order it was asked
      // for, after the streams it started (see `AudioEngine.holdingRequests`).
      engine.holdingRequests { update(step) }
      engine.waitUntilIdle()
      // Whole frames per step from one integer sequence: no drift, the same on every run.
      steps += 1
      let end = min(total, Int((Double(steps) * step * Double(sampleRate)).rounded()))
      let count = end - written
      guard count > 0 else { continue }
      mixer.advance(frames: count)
      let output = mixer.takeOutput()
      output.withUnsafeBufferPointer { samples in
        digest?.update(UnsafeRawBufferPointer(samples))
        consume(samples)
      }
      written = end
    }
    return result(frames: written, since: started)
  }

  /// What a render of `frames` frames begun at `started` made, its hash left empty (the callers
  /// hash what they deliver).
  func result(frames: Int, since started: ContinuousClock.Instant) -> Result {
    let elapsed = (ContinuousClock.now - started).components
    let wall = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    let seconds = Double(frames) / Double(sampleRate)
    return Result(frames: frames, seconds: seconds, sha256: "", speed: wall > 0 ? seconds / wall : .infinity)
  }
}

/// Why an offline render could not be made.
public enum OfflineRenderError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A duration or step out of range; the text says which.
  case invalid(String)
  /// The output file could not be written.
  case cannotWrite(URL, String)

  public var description: String {
    switch self {
    case .invalid(let what): "invalid render: \(what)"
    case .cannotWrite(let url, let why): "cannot write \(url.path): \(why)"
    }
  }
}

/// SHA-256 through OpenSSL's libcrypto.
final class SHA256Digest {
  private let context: OpaquePointer

  init() {
    context = EVP_MD_CTX_new()
    EVP_DigestInit_ex(context, EVP_sha256(), nil)
  }

  deinit { EVP_MD_CTX_free(context) }

  func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    EVP_DigestUpdate(context, base, bytes.count)
  }

  func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

  func finish() -> String {
    var hash = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    EVP_DigestFinal_ex(context, &hash, &length)
    return hash.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
  }
}
