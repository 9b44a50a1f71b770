internal import CFoleySamplerate
import Foundation

/// What a voice needs beyond a straight copy of its samples: libsamplerate's band-limited
/// resampler for a playback rate other than 1, and a low-pass filter. One per mixer channel that
/// ever needed it, made on the audio queue (where allocation is allowed) and kept for the
/// channel's later voices; the mixing thread only uses it.
///
/// Invariant behind `@unchecked Sendable`: the queue makes it and resets it only under the audio
/// lock (no mix runs then); otherwise only the mixing thread touches it.
package final class VoiceShaper: @unchecked Sendable {
  /// Frames of the sound before the voice's current place, fed to the resampler (and its output
  /// dropped) when it takes over mid-play, so its filter starts full instead of from silence.
  static let historyFrames = 64
  let channels: Int
  let state: OpaquePointer
  /// Rate-1 input waiting for the resampler, interleaved float.
  let input: UnsafeMutablePointer<Float>
  let inputCapacity: Int
  var inputStart = 0
  var inputCount = 0
  /// The last ``historyFrames`` frames a stream lane played (a stream cannot be read backwards).
  let history: UnsafeMutablePointer<Float>
  var isEngaged = false
  /// Source frames read into the resampler since it took over, and the source frames its output
  /// since then stands for (each output frame after the discard, times its rate): the
  /// difference is what it holds read but not yet heard, its input and its filter's.
  var framesReadSinceEngaged = 0
  var framesHeardSinceEngaged = 0.0
  /// Source frames read and not yet heard: the voice is heard this far behind its lane's place.
  var unheardFrames: Int {
    isEngaged ? max(0, Int((Double(framesReadSinceEngaged) - framesHeardSinceEngaged).rounded())) : 0
  }
  /// The low-pass is in the path (it was out while the cutoff stood open).
  var isFiltering = false
  /// The cutoff (log2 hertz) the filter's coefficients were last set for.
  var configuredCutoff: Float = .nan
  /// Output frames still to drop after priming.
  var discard = 0
  var sourceEnded = false
  var rate = RampFollower(value: 1, request: RampRequest(target: 1, frames: 0).packed)
  /// The scene's doppler factor, multiplied into the rate.
  var doppler = RampFollower(value: 1, request: RampRequest(target: 1, frames: 0).packed)
  var cutoff = RampFollower(
    value: VoiceShaping.openCutoffLog2,
    request: RampRequest(target: VoiceShaping.openCutoffLog2, frames: 0).packed)
  let filter: StateVariableFilter

  /// Nil if libsamplerate cannot make a converter (out of memory).
  package init?(channels: Int, blockFrames: Int, sampleRate: Int) {
    var error: Int32 = 0
    guard let state = src_new(Int32(SRC_SINC_FASTEST), Int32(channels), &error) else { return nil }
    self.state = state
    self.channels = channels
    // A block at the highest rate, plus room for the history and the converter's look-ahead.
    inputCapacity = blockFrames * Int(VoiceShaping.rates.upperBound) + 2 * Self.historyFrames + 64
    input = .allocate(capacity: inputCapacity * channels)
    history = .allocate(capacity: Self.historyFrames * channels)
    history.initialize(repeating: 0, count: Self.historyFrames * channels)
    filter = StateVariableFilter(channels: channels, sampleRate: Double(sampleRate))
  }

  deinit {
    src_delete(state)
    input.deallocate()
    history.deallocate()
  }

  /// Ready for a new voice (under the audio lock).
  func reset(voice: Voice) {
    src_reset(state)
    inputStart = 0
    inputCount = 0
    isEngaged = false
    framesReadSinceEngaged = 0
    framesHeardSinceEngaged = 0
    discard = 0
    sourceEnded = false
    history.update(repeating: 0, count: Self.historyFrames * channels)
    rate.reset(to: 1, request: RampRequest(target: 1, frames: 0).packed)
    rate.follow(voice.rateRequest.load(ordering: .relaxed))
    doppler.reset(to: 1, request: RampRequest(target: 1, frames: 0).packed)
    doppler.follow(voice.dopplerRequest.load(ordering: .relaxed))
    let open = VoiceShaping.openCutoffLog2
    cutoff.reset(to: open, request: RampRequest(target: open, frames: 0).packed)
    cutoff.follow(voice.cutoffRequest.load(ordering: .relaxed))
    filter.reset()
    isFiltering = false
    configuredCutoff = .nan
  }

  /// Drops `count` input frames from the front of the queue.
  func consume(_ count: Int) {
    inputStart += count
    inputCount -= count
    if inputCount == 0 { inputStart = 0 }
  }

  /// Moves the waiting input to the front, so at least `frames` more fit after it.
  func makeRoom(for frames: Int) {
    guard inputStart + inputCount + frames > inputCapacity, inputStart > 0 else { return }
    (input).update(from: input + inputStart * channels, count: inputCount * channels)
    inputStart = 0
  }

  /// Resamples the waiting input into `output` at 1/`ratio`; returns (used, generated).
  func process(into output: UnsafeMutablePointer<Float>, frames: Int, ratio: Double) -> (used: Int, made: Int)
  {
    var data = SRC_DATA(
      data_in: UnsafePointer(input + inputStart * channels), data_out: output, input_frames: inputCount,
      output_frames: frames, input_frames_used: 0, output_frames_gen: 0, end_of_input: sourceEnded ? 1 : 0,
      src_ratio: ratio)
    guard src_process(state, &data) == 0 else { return (inputCount, 0) }
    consume(Int(data.input_frames_used))
    return (Int(data.input_frames_used), Int(data.output_frames_gen))
  }
}

/// A state-variable filter (Andrew Simper's trapezoidal SVF, Cytomic 2013), whose responses are
/// the RBJ cookbook's: it stays stable and click-free while its cutoff moves every few samples,
/// which a direct-form biquad does not.
///
/// Invariant behind `@unchecked Sendable`: used by one mixing thread; reset under the audio lock.
package final class StateVariableFilter: @unchecked Sendable {
  package enum Response: UInt8, Sendable {
    case lowPass, highPass, bandPass, lowShelf, highShelf, peaking, notch
  }

  let channels: Int
  let sampleRate: Double
  private let state: UnsafeMutablePointer<Float>
  private var a1: Float = 1
  private var a2: Float = 0
  private var a3: Float = 0
  // Output mix: m0·input + m1·band + m2·low.
  private var m0: Float = 0
  private var m1: Float = 0
  private var m2: Float = 1

  package init(channels: Int, sampleRate: Double) {
    self.channels = channels
    self.sampleRate = sampleRate
    state = .allocate(capacity: 2 * channels)
    state.initialize(repeating: 0, count: 2 * channels)
  }

  deinit { state.deallocate() }

  package func reset() { state.update(repeating: 0, count: 2 * channels) }

  /// Starts a low-pass as if it had long been passing the frame at `samples` (its steady state
  /// for that input), so switching it into a playing voice's path makes no step.
  package func prime(with samples: UnsafePointer<Float>) {
    for channel in 0..<channels {
      state[2 * channel] = 0
      state[2 * channel + 1] = samples[channel]
    }
  }

  /// Sets the coefficients for `response` at `frequency` hertz (clamped below Nyquist), quality
  /// `q`, and `gainDB` for shelves and peaks.
  @inline(__always)
  package func configure(_ response: Response, frequency: Double, q: Double, gainDB: Double = 0) {
    let nyquistSafe = min(max(frequency, 10), sampleRate * 0.49)
    let a = Float(pow(10, gainDB / 40))
    var g = Float(tan(Double.pi * nyquistSafe / sampleRate))
    let k = Float(1 / max(q, 0.05))
    switch response {
    case .lowShelf: g /= a.squareRoot()
    case .highShelf: g *= a.squareRoot()
    default: break
    }
    let kk = response == .peaking ? k / a : k
    a1 = 1 / (1 + g * (g + kk))
    a2 = g * a1
    a3 = g * a2
    switch response {
    case .lowPass: (m0, m1, m2) = (0, 0, 1)
    case .highPass: (m0, m1, m2) = (1, -kk, -1)
    case .bandPass: (m0, m1, m2) = (0, 1, 0)
    case .notch: (m0, m1, m2) = (1, -kk, 0)
    case .peaking: (m0, m1, m2) = (1, kk * (a * a - 1), 0)
    case .lowShelf: (m0, m1, m2) = (1, kk * (a - 1), a * a - 1)
    case .highShelf: (m0, m1, m2) = (a * a, kk * (1 - a) * a, 1 - a * a)
    }
  }

  /// Filters `frames` interleaved frames in place.
  @inline(__always)
  package func process(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    if channels == 2 {
      processStereo(samples, frames: frames)
      return
    }
    for channel in 0..<channels {
      var ic1 = state[2 * channel]
      var ic2 = state[2 * channel + 1]
      var index = channel
      for _ in 0..<frames {
        let v0 = samples[index]
        let v3 = v0 - ic2
        let v1 = a1 * ic1 + a2 * v3
        let v2 = ic2 + a2 * ic1 + a3 * v3
        ic1 = 2 * v1 - ic1
        ic2 = 2 * v2 - ic2
        samples[index] = m0 * v0 + m1 * v1 + m2 * v2
        index += channels
      }
      // Denormals would cost far more than the silence they encode.
      state[2 * channel] = abs(ic1) < 1e-20 ? 0 : ic1
      state[2 * channel + 1] = abs(ic2) < 1e-20 ? 0 : ic2
    }
  }

  /// Both sides of a stereo block at once, in SIMD lanes.
  @inline(__always)
  private func processStereo(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    var ic1 = SIMD2<Float>(state[0], state[2])
    var ic2 = SIMD2<Float>(state[1], state[3])
    let (a1, a2, a3) = (SIMD2(repeating: self.a1), SIMD2(repeating: self.a2), SIMD2(repeating: self.a3))
    let (m0, m1, m2) = (SIMD2(repeating: self.m0), SIMD2(repeating: self.m1), SIMD2(repeating: self.m2))
    let raw = UnsafeMutableRawPointer(samples)
    for frame in 0..<frames {
      let v0 = raw.loadUnaligned(fromByteOffset: frame * 8, as: SIMD2<Float>.self)
      let v3 = v0 - ic2
      let v1 = a1 * ic1 + a2 * v3
      let v2 = ic2 + a2 * ic1 + a3 * v3
      ic1 = 2 * v1 - ic1
      ic2 = 2 * v2 - ic2
      raw.storeBytes(of: m0 * v0 + m1 * v1 + m2 * v2, toByteOffset: frame * 8, as: SIMD2<Float>.self)
    }
    state[0] = abs(ic1[0]) < 1e-20 ? 0 : ic1[0]
    state[1] = abs(ic2[0]) < 1e-20 ? 0 : ic2[0]
    state[2] = abs(ic1[1]) < 1e-20 ? 0 : ic1[1]
    state[3] = abs(ic2[1]) < 1e-20 ? 0 : ic2[1]
  }
}
