import Foundation

/// A modulator as the mixing thread runs it: a parameter's curve (up to eight points, in
/// decibels) or an oscillator (its wave, cycles per frame, depth in decibels, the frame it
/// started on and the seed of its sample-and-hold).
struct ModulatorSlot: Sendable {
  enum Kind: UInt8 {
    case none, curve, oscillator
  }

  var kind = Kind.none
  var parameter = 0
  var xs = SIMD8<Float>()
  var ys = SIMD8<Float>()
  var pointCount = 0
  var isSmooth = false
  var wave: UInt8 = 0
  var cyclesPerFrame: Double = 0
  var depth: Float = 0
  /// `UInt64.max` until the first block mixed with it.
  var origin = UInt64.max
  var seed: UInt64 = 0

  /// The curve's decibels where its parameter is at `x`.
  @inline(__always)
  func curve(at x: Float) -> Float {
    if !(x > xs[0]) { return ys[0] }
    let last = pointCount - 1
    if x >= xs[last] { return ys[last] }
    var index = 1
    while index < last, xs[index] < x { index += 1 }
    var t = (x - xs[index - 1]) / (xs[index] - xs[index - 1])
    if isSmooth { t = t * t * (3 - 2 * t) }
    return ys[index - 1] + (ys[index] - ys[index - 1]) * t
  }
}

/// A voice's modulators on its channel's gain stage: their decibels add, and multiply the level
/// (the voice's volume and its tweens) wherever the block evaluates it, every 32 frames.
extension ChannelGain {
  static let modulatorCapacity = 4

  /// Replaces the modulators (at most ``modulatorCapacity``), each oscillator from its first
  /// block. Queue only, while the lane is not mixed or under the audio lock.
  func setModulators(_ slots: [ModulatorSlot]) {
    let count = min(slots.count, Self.modulatorCapacity)
    for index in 0..<count {
      modulators[index] = slots[index]
      modulators[index].origin = .max
    }
    modulatorCount = count
  }

  /// Gives oscillators that have not run yet their first frame.
  @inline(__always)
  func startModulators(at frame: UInt64) {
    for index in 0..<modulatorCount where modulators[index].origin == .max {
      modulators[index].origin = frame
    }
  }

  /// The modulators' gain on `frame` (1 with none).
  @inline(__always)
  func modulation(at frame: UInt64) -> Float {
    guard modulatorCount > 0 else { return 1 }
    var decibels: Float = 0
    for index in 0..<modulatorCount {
      let slot = modulators[index]
      switch slot.kind {
      case .curve: decibels += slot.curve(at: parameters.value(slot.parameter, at: frame))
      case .oscillator:
        let cycles = frame > slot.origin ? Double(frame &- slot.origin) * slot.cyclesPerFrame : 0
        let cycle = UInt64(cycles)
        let fraction = LFO.depthFraction(slot.wave, phase: cycles - Double(cycle), cycle: cycle &+ slot.seed)
        decibels -= slot.depth * Float(fraction)
      case .none: break
      }
    }
    return decibels <= -120 ? 0 : Float(exp(Double(decibels) * (log(10) / 20)))
  }
}
