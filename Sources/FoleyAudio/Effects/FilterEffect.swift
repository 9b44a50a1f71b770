import Foundation
import Synchronization

/// A filter on a bus: the RBJ cookbook's responses (low-pass, high-pass, band-pass, notch,
/// shelves, peaking), run as a state-variable filter so its frequency can glide without a click.
/// A parametric equaliser is a chain of them.
///
/// ```swift
/// let muffle = FilterEffect(.lowPass, frequency: 900)
/// try engine.bus(.ambience).setEffects([muffle])
/// muffle.setFrequency(6_000, tween: 1.5)     // out of the cave
///
/// let presence = FilterEffect(.peaking(gainDB: 4), frequency: 3_000, q: 1.2)
/// let rumbleCut = FilterEffect(.highPass, frequency: 60)
/// try engine.bus(.speech).setEffects([rumbleCut, presence])
/// ```
public final class FilterEffect: AudioEffect, @unchecked Sendable {
  /// The response.
  public enum Kind: Sendable, Equatable {
    case lowPass
    case highPass
    case bandPass
    case notch
    case lowShelf(gainDB: Double)
    case highShelf(gainDB: Double)
    case peaking(gainDB: Double)
  }

  public let kind: Kind
  /// The filter's quality (0.7071 is the flattest low- or high-pass; higher is a sharper peak).
  public let q: Double
  /// Target log2(hertz), and the tween's duration in microseconds.
  private let frequencyRequest: RampCell
  private var frequency = RampFollower(value: 0, request: WordPair(first: 0, second: 0))
  private var filter: StateVariableFilter?

  /// A filter of `kind` at `frequency` hertz (10…20,000, clamped; NaN is 1,000) and quality `q`
  /// (0.1…20, clamped).
  public init(_ kind: Kind, frequency: Double, q: Double = 0.5.squareRoot()) {
    self.kind = kind
    self.q = q.clamped(to: 0.1...20, or: 0.5.squareRoot())
    let value = Float(log2(frequency.clamped(to: 10...20_000, or: 1_000)))
    frequencyRequest = RampCell(RampRequest(target: value, frames: 0).packed)
    super.init()
    self.frequency = RampFollower(value: value, request: frequencyRequest.value)
  }

  /// The frequency last asked for, in hertz.
  public var frequencyHertz: Double {
    Double(exp2(RampRequest(packed: frequencyRequest.value).target))
  }

  /// Moves the frequency to `hertz` along `tween` (at once unless given), on a logarithmic scale:
  /// an octave takes as long at the top as at the bottom.
  ///
  /// ```swift
  /// let muffle = FilterEffect(.lowPass, frequency: 20_000)
  /// try engine.bus(.music).setEffects([muffle])
  /// muffle.setFrequency(600, tween: Tween(duration: 1.5, easing: .easeOut))
  /// ```
  public func setFrequency(_ hertz: Double, tween: Tween = .immediate) {
    guard !hertz.isNaN else { return }
    let value = Float(log2(hertz.clamped(to: 10...20_000, or: 1_000)))
    frequencyRequest.store(EffectRamp.request(value, tween: tween))
  }

  package override func prepare() {
    filter = StateVariableFilter(channels: channels, sampleRate: Double(sampleRate))
    configure(at: frequency.value)
  }

  private func configure(at value: Float) {
    let hertz = Double(exp2(value))
    switch kind {
    case .lowPass: filter?.configure(.lowPass, frequency: hertz, q: q)
    case .highPass: filter?.configure(.highPass, frequency: hertz, q: q)
    case .bandPass: filter?.configure(.bandPass, frequency: hertz, q: q)
    case .notch: filter?.configure(.notch, frequency: hertz, q: q)
    case .lowShelf(let gain): filter?.configure(.lowShelf, frequency: hertz, q: q, gainDB: gain)
    case .highShelf(let gain): filter?.configure(.highShelf, frequency: hertz, q: q, gainDB: gain)
    case .peaking(let gain): filter?.configure(.peaking, frequency: hertz, q: q, gainDB: gain)
    }
  }

  package override func process(
    _ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int, hasInput: Bool,
    sidechain: UnsafePointer<Float>?, clock: UInt64
  ) -> Bool {
    guard let filter else { return false }
    EffectRamp.follow(
      &frequency, frequencyRequest, sampleRate: sampleRate, clock: clock)
    if !frequency.isMoving {
      filter.process(samples, frames: frames)
    } else {
      var done = 0
      while done < frames {
        let count = min(16, frames - done)
        configure(at: frequency.advance(frames: count))
        filter.process(samples + done * channels, frames: count)
        done += count
      }
      if !frequency.isMoving { configure(at: frequency.value) }
    }
    // A filter's own ringing dies within a block of its input ending.
    return hasInput
  }
}

/// Ramped effect parameters: the glide travels in microseconds (the effect may not know its
/// sample rate yet when the game sets it) and becomes frames on the mixing thread.
enum EffectRamp {
  static func request(_ value: Float, tween: Tween) -> WordPair {
    // Microseconds: the request's 32 bits of duration hold 3,600 s of them.
    var request = RampRequest(target: value, tween: tween, sampleRate: 1_000_000)
    request.frames = min(request.frames, 3_600_000_000)
    return request.packed
  }

  @inline(__always)
  static func follow(
    _ follower: inout RampFollower, _ cell: borrowing RampCell, sampleRate: Int, clock: UInt64
  ) {
    guard follower.takesGeneration(of: cell) else { return }
    let request = cell.value
    var converted = RampRequest(packed: request)
    converted.frames = UInt32(clamping: Int(Double(converted.frames) * Double(sampleRate) / 1e6))
    // The follower compares what it is given; pass the original bits so an unchanged request
    // is recognised, with the converted duration.
    follower.follow(request, converted: converted, at: clock)
  }
}
