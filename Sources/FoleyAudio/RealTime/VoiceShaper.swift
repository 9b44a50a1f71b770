internal import CFoleySamplerate
import Foundation

/// What a voice needs beyond a straight copy of its samples: libsamplerate's band-limited
/// resampler for a playback rate other than 1, and a low-pass filter. One per mixer channel that
/// ever needed it, made on the audio queue (where allocation is allowed) and kept for the
/// channel's later voices; the mixing thread only uses it.
///
/// Invariant behind `@unchecked Sendable`: the queue makes it and resets it only under the audio
/// lock (no mix runs then); otherwise only the mixing thread touches it.
final class VoiceShaper: @unchecked Sendable {
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
  func reset(voice: Voice, clock: UInt64) {
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
    rate.follow(voice.rateRequest, at: clock)
    doppler.reset(to: 1, request: RampRequest(target: 1, frames: 0).packed)
    doppler.follow(voice.dopplerRequest, at: clock)
    let open = VoiceShaping.openCutoffLog2
    cutoff.reset(to: open, request: RampRequest(target: open, frames: 0).packed)
    cutoff.follow(voice.cutoffRequest, at: clock)
    filter.reset()
    isFiltering = false
    configuredCutoff = .nan
  }

  /// Forgets the input it holds (the lane jumped to another place): the resampler starts over
  /// from the new place, its followers untouched.
  func dropQueuedInput() {
    src_reset(state)
    inputStart = 0
    inputCount = 0
    discard = 0
    sourceEnded = false
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
  /// The same filter as a linear system on its two states s = (ic1, ic2), for the stereo path:
  /// s' = A·s + B·x, y = C·s + D·x, and two samples at a time, s'' = A²·s + A·B·x₀ + B·x₁,
  /// y₁ = C·A·s + C·B·x₀ + D·x₁. The states are the SVF's own, so a cutoff that moves between
  /// blocks, or `prime(with:)`, means what it does per sample. Stepping two samples at once
  /// halves the chain each sample waits on (a recursive filter is bound by it, not by its
  /// arithmetic).
  private var stepA = SIMD4<Float>(1, 0, 0, 1)  // A, by rows: a11, a12, a21, a22
  private var stepB = SIMD2<Float>(0, 0)
  private var outC = SIMD2<Float>(0, 1)
  private var outD: Float = 0
  private var pairA = SIMD4<Float>(1, 0, 0, 1)  // A²
  private var pairB = SIMD2<Float>(0, 0)  // A·B
  private var pairC = SIMD2<Float>(0, 1)  // C·A
  private var pairD: Float = 0  // C·B

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
    // ic1' = (2a1 − 1)·ic1 − 2a2·ic2 + 2a2·x;  ic2' = 2a2·ic1 + (1 − 2a3)·ic2 + 2a3·x
    // y = (m1·a1 + m2·a2)·ic1 + (m2·(1 − a3) − m1·a2)·ic2 + (m0 + m1·a2 + m2·a3)·x
    let (s11, s12, s21, s22) = (2 * a1 - 1, -2 * a2, 2 * a2, 1 - 2 * a3)
    let (b1, b2) = (2 * a2, 2 * a3)
    let (c1, c2) = (m1 * a1 + m2 * a2, m2 * (1 - a3) - m1 * a2)
    stepA = SIMD4(s11, s12, s21, s22)
    stepB = SIMD2(b1, b2)
    outC = SIMD2(c1, c2)
    outD = m0 + m1 * a2 + m2 * a3
    pairA = SIMD4(s11 * s11 + s12 * s21, s11 * s12 + s12 * s22, s21 * s11 + s22 * s21, s21 * s12 + s22 * s22)
    pairB = SIMD2(s11 * b1 + s12 * b2, s21 * b1 + s22 * b2)
    pairC = SIMD2(c1 * s11 + c2 * s21, c1 * s12 + c2 * s22)
    pairD = c1 * b1 + c2 * b2
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

  /// Both sides of a stereo block at once, in SIMD lanes, two frames a step (see `stepA`).
  @inline(__always)
  private func processStereo(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
    var ic1 = SIMD2<Float>(state[0], state[2])
    var ic2 = SIMD2<Float>(state[1], state[3])
    let raw = UnsafeMutableRawPointer(samples)
    let (c1, c2, d) = (SIMD2(repeating: outC[0]), SIMD2(repeating: outC[1]), SIMD2(repeating: outD))
    let (e1, e2, f) = (SIMD2(repeating: pairC[0]), SIMD2(repeating: pairC[1]), SIMD2(repeating: pairD))
    let (p11, p12) = (SIMD2(repeating: pairA[0]), SIMD2(repeating: pairA[1]))
    let (p21, p22) = (SIMD2(repeating: pairA[2]), SIMD2(repeating: pairA[3]))
    let (q1, q2) = (SIMD2(repeating: pairB[0]), SIMD2(repeating: pairB[1]))
    let (b1, b2) = (SIMD2(repeating: stepB[0]), SIMD2(repeating: stepB[1]))
    var frame = 0
    while frame &+ 2 <= frames {
      let x0 = raw.loadUnaligned(fromByteOffset: frame &* 8, as: SIMD2<Float>.self)
      let x1 = raw.loadUnaligned(fromByteOffset: frame &* 8 &+ 8, as: SIMD2<Float>.self)
      // The inputs' parts first: each state then waits on one product and two sums.
      let y0 = (d * x0 + c2 * ic2) + c1 * ic1
      let y1 = ((f * x0 + d * x1) + e2 * ic2) + e1 * ic1
      let next1 = ((q1 * x0 + b1 * x1) + p12 * ic2) + p11 * ic1
      let next2 = ((q2 * x0 + b2 * x1) + p22 * ic2) + p21 * ic1
      raw.storeBytes(of: y0, toByteOffset: frame &* 8, as: SIMD2<Float>.self)
      raw.storeBytes(of: y1, toByteOffset: frame &* 8 &+ 8, as: SIMD2<Float>.self)
      ic1 = next1
      ic2 = next2
      frame &+= 2
    }
    if frame < frames {
      // An odd frame left: one step.
      let (s11, s12) = (SIMD2(repeating: stepA[0]), SIMD2(repeating: stepA[1]))
      let (s21, s22) = (SIMD2(repeating: stepA[2]), SIMD2(repeating: stepA[3]))
      let x = raw.loadUnaligned(fromByteOffset: frame &* 8, as: SIMD2<Float>.self)
      raw.storeBytes(of: (d * x + c2 * ic2) + c1 * ic1, toByteOffset: frame &* 8, as: SIMD2<Float>.self)
      let next1 = (b1 * x + s12 * ic2) + s11 * ic1
      ic2 = (b2 * x + s22 * ic2) + s21 * ic1
      ic1 = next1
    }
    state[0] = abs(ic1[0]) < 1e-20 ? 0 : ic1[0]
    state[1] = abs(ic2[0]) < 1e-20 ? 0 : ic2[0]
    state[2] = abs(ic1[1]) < 1e-20 ? 0 : ic1[1]
    state[3] = abs(ic2[1]) < 1e-20 ? 0 : ic2[1]
  }
}
