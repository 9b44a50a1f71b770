import Foundation
import Synchronization

/// Limits and defaults of a voice's shaping.
package enum VoiceShaping {
  /// The playback rates a voice accepts (SpriteKit's `changePlaybackRate` has no limit; two
  /// octaves either way is what a band-limited resampler does cleanly).
  package static let rates: ClosedRange<Double> = 0.25...4
  /// The low-pass cutoffs a voice accepts, in hertz; at the top the filter is out of the path.
  static let cutoffs: ClosedRange<Double> = 20...20_000
  static let openCutoffLog2 = Float(log2(20_000.0))
  /// The requests of a voice that was never shaped (rate 1, cutoff open).
  static let unitRate = RampRequest(target: 1, frames: 0).packed
  static let openCutoff = RampRequest(target: openCutoffLog2, frames: 0).packed
  /// The reverb send of a voice that was never sent (none).
  static let noSend = RampRequest(target: 0, frames: 0).packed
}

/// Shaping a voice while it plays: its playback rate (pitch and tempo together), a low-pass
/// filter, and its send to the engine's reverb. Each change is a ``Tween``: it moves along its
/// easing, on the mixing thread, from its start (now, or a frame of the engine's clock); setting
/// it never waits for the mix.
///
/// ```swift
/// let voice = engine.play(engineHum, loops: -1)
/// voice.setPlaybackRate(1.5, tween: Tween(duration: 0.8, easing: .easeIn))  // spin up
/// voice.setLowPassCutoff(800, tween: 0.2)     // behind a wall
/// voice.setReverbSend(0.4)                    // into the cave
/// ```
///
/// A number outside its range is clamped to it; NaN leaves the value as it was.
extension Voice {
  /// The playback rate last asked for: 1 is as recorded, 2 an octave up and twice as fast.
  public var playbackRate: Double { Double(RampRequest(packed: rateRequest.value).target) }

  /// Moves the playback rate to `rate` (0.25…4) along `tween` (at once unless given). Rates
  /// other than 1 go through libsamplerate's band-limited sinc resampler; the rate is set once a
  /// block (about 10 ms), on the block the tween's start falls in.
  public func setPlaybackRate(_ rate: Double, tween: Tween = .immediate) {
    guard let core, !rate.isNaN else { return }
    let value = rate.clamped(to: VoiceShaping.rates, or: 1)
    shape(
      .rate, request(Float(value), tween: tween, core: core, minimumFrames: 0), needsShaper: value != 1,
      core: core)
  }

  /// The low-pass cutoff last asked for, in hertz (20,000: open). Walls between the voice and the
  /// listener may lower what is heard further.
  public var lowPassCutoff: Double { Double(bitPattern: ownCutoff.load(ordering: .relaxed)) }

  /// Moves the voice's low-pass filter to `hertz` (20…20,000; 20,000 opens it) along `tween`.
  /// The cutoff moves on a logarithmic scale (an octave takes as long at the top as at the
  /// bottom), at least over the engine's de-click time.
  public func setLowPassCutoff(_ hertz: Double, tween: Tween = .immediate) {
    guard core != nil, !hertz.isNaN else { return }
    ownCutoff.store(hertz.clamped(to: VoiceShaping.cutoffs, or: 20_000).bitPattern, ordering: .relaxed)
    applyCutoff(tween: tween)
  }

  /// What the scene's walls and rooms do to the voice: a low-pass cutoff (hertz) and a reverb
  /// send, combined with what the game asked for (the lower cutoff, the larger send), over
  /// `duration` seconds.
  package func setAcoustics(
    cutoff: Double, send: Double, occlusion: Double = 0, portal: Int? = nil, over duration: Double
  ) {
    guard core != nil, !cutoff.isNaN, !send.isNaN else { return }
    acousticOcclusion.store((occlusion.isFinite ? occlusion : -100).bitPattern, ordering: .relaxed)
    acousticPortal.store(portal ?? -1, ordering: .relaxed)
    let newCutoff = cutoff.clamped(to: VoiceShaping.cutoffs, or: 20_000)
    let newSend = send.clamped(to: 0...1, or: 0)
    if acousticCutoff.exchange(newCutoff.bitPattern, ordering: .relaxed) != newCutoff.bitPattern {
      applyCutoff(tween: Tween(duration: duration))
    }
    if acousticSend.exchange(newSend.bitPattern, ordering: .relaxed) != newSend.bitPattern {
      applySend(tween: Tween(duration: duration))
    }
  }

  private func applyCutoff(tween: Tween) {
    guard let core else { return }
    let hertz = min(
      Double(bitPattern: ownCutoff.load(ordering: .relaxed)),
      Double(bitPattern: acousticCutoff.load(ordering: .relaxed)))
    let value = log2(hertz)
    let frames = core.declickFrames
    shape(
      .cutoff, request(Float(value), tween: tween, core: core, minimumFrames: frames),
      needsShaper: Float(value) < VoiceShaping.openCutoffLog2, core: core)
  }

  /// The share of the voice sent to the engine's reverb last asked for (0…1). A room the voice is
  /// in may send more.
  public var reverbSend: Double { Double(bitPattern: ownSend.load(ordering: .relaxed)) }

  /// Moves the voice's send to the engine's reverb (``AudioEngine/reverb``) to `level` (0…1)
  /// along `tween`, post-fader: the send follows the voice's volume, pan and bus.
  public func setReverbSend(_ level: Double, tween: Tween = .immediate) {
    guard core != nil, !level.isNaN else { return }
    ownSend.store(level.clamped(to: 0...1, or: 0).bitPattern, ordering: .relaxed)
    applySend(tween: tween)
  }

  private func applySend(tween: Tween) {
    guard let core else { return }
    let value = Float(
      max(
        Double(bitPattern: ownSend.load(ordering: .relaxed)),
        Double(bitPattern: acousticSend.load(ordering: .relaxed))))
    shape(
      .send, request(value, tween: tween, core: core, minimumFrames: core.declickFrames), needsShaper: false,
      core: core)
  }

  /// Sets the doppler factor (0.5…2 in practice), reached over `frames` frames: the scene calls it
  /// for positional voices each update when its ``SpatialAudio/speedOfSound`` is set.
  package func setDoppler(_ factor: Double, overFrames frames: Int) {
    guard let core, factor.isFinite, factor > 0 else { return }
    shape(
      .doppler,
      RampRequest(
        target: Float(factor.clamped(to: VoiceShaping.rates, or: 1)), frames: UInt32(clamping: max(0, frames))
      ),
      needsShaper: factor != 1, core: core)
  }

  /// The rate a voice starts at, set before it is on a channel (its lane gets a shaper then).
  func startRate(_ rate: Double) {
    guard !rate.isNaN else { return }
    let value = rate.clamped(to: VoiceShaping.rates, or: 1)
    rateRequest.store(RampRequest(target: Float(value), frames: 0).packed)
    if value != 1 { needsShaper.store(true, ordering: .relaxed) }
  }

  private func request(_ value: Float, tween: Tween, core: MixerCore, minimumFrames: Int) -> RampRequest {
    RampRequest(target: value, tween: tween, sampleRate: core.format.sampleRate, minimumFrames: minimumFrames)
  }

  /// Hands a shaping request to the mix, and asks for the voice's shaper when it needs one. While a
  /// capture runs it goes through the audio queue instead, which stamps it with the frame it takes
  /// effect on and records it (``MixerCore/shapeCaptured(_:_:needsShaper:of:)``).
  private func shape(_ kind: ShapingKind, _ request: RampRequest, needsShaper: Bool, core: MixerCore) {
    guard !core.isCapturing.load(ordering: .relaxed) else {
      return core.shapeCaptured(kind, request, needsShaper: needsShaper, of: self)
    }
    store(kind, request)
    if needsShaper { requestShaper(core) }
  }

  /// The shaping request of `kind` stored last.
  func request(_ kind: ShapingKind) -> WordPair {
    switch kind {
    case .rate: rateRequest.value
    case .doppler: dopplerRequest.value
    case .cutoff: cutoffRequest.value
    case .send: sendRequest.value
    }
  }

  /// Stores a shaping request where the mixing thread reads it.
  func store(_ kind: ShapingKind, _ request: RampRequest) {
    switch kind {
    case .rate: rateRequest.store(request.packed)
    case .doppler: dopplerRequest.store(request.packed)
    case .cutoff: cutoffRequest.store(request.packed)
    case .send: sendRequest.store(request.packed)
    }
  }

  private func requestShaper(_ core: MixerCore) {
    guard !needsShaper.exchange(true, ordering: .relaxed) else { return }
    core.giveShaper(to: self)
  }
}

/// The shaping requests a voice's mix reads without the audio queue: its playback rate, the
/// scene's doppler factor, its low-pass cutoff (log2 of hertz) and its reverb send.
enum ShapingKind: String, Sendable, Hashable, Codable {
  case rate, doppler, cutoff, send
}
