import FoleyCore
import Foundation

/// Where a channel's modulators started (at most ``ChannelGain/modulatorCapacity``), kept while
/// its voice is virtual.
struct ModulatorOrigins: Sendable {
  var count = 0
  var frames = SIMD4<UInt64>(repeating: .max)
  var kinds = SIMD4<UInt8>(repeating: 0)
}

/// A modulator as the mixing thread runs it: a parameter's curve (up to eight points, in
/// decibels), an oscillator (its wave, cycles per frame, depth in decibels, the frame it
/// started on and the seed of its sample-and-hold), an envelope (its stages in frames from the
/// start, the frame of its release) or a follower (a bus, its curve, its smoothing and where the
/// followed level stands).
struct ModulatorSlot: Sendable {
  enum Kind: UInt8 {
    case none, curve, oscillator, envelope, follower
  }

  var kind = Kind.none
  var parameter = 0
  var points = CurvePoints()
  /// The voice's own value of the parameter (``Voice/setParameter(_:to:tween:)``), in place of
  /// the engine's: the stretch under way and the one before it.
  var hasLocal = false
  var localEarlier = ParameterSegment()
  var localCurrent = ParameterSegment()
  var wave: UInt8 = 0
  var cyclesPerFrame: Double = 0
  var depth: Float = 0
  /// `UInt64.max` until the first block mixed with it.
  var origin = UInt64.max
  var seed: UInt64 = 0
  /// The envelope's attack, the end of its hold and of its decay, in frames from the start.
  var attackFrames: Double = 0
  var holdEnd: Double = 0
  var decayEnd: Double = 0
  var sustain: Float = 0
  var releaseFrames: Double = 0
  /// The frame the release starts on (`UInt64.max`: not stopped).
  var releaseFrame = UInt64.max
  /// The follower's bus, the share of a step its level moves by per evaluation, up and down, and
  /// the level it stands at (dBFS).
  var bus = 0
  var rise: Float = 1
  var fall: Float = 1
  var followed: Float = -100

  /// The curve's decibels where its parameter is at `x`.
  @inline(__always)
  func curve(at x: Float) -> Float { points.value(at: x) }

  /// The envelope's gain on `frame`, 0…1: its stages from ``origin``, then its release.
  @inline(__always)
  func envelope(at frame: UInt64) -> Float {
    guard frame >= releaseFrame else { return stages(at: frame) }
    let from = stages(at: releaseFrame)
    let elapsed = Double(frame &- releaseFrame)
    return elapsed >= releaseFrames ? 0 : from * Float(1 - elapsed / releaseFrames)
  }

  @inline(__always)
  private func stages(at frame: UInt64) -> Float {
    let time = origin != .max && frame > origin ? Double(frame &- origin) : 0
    if time < attackFrames { return Float(time / attackFrames) }
    if time < holdEnd { return 1 }
    if time < decayEnd { return mixGain(decibels: sustain * Float((time - holdEnd) / (decayEnd - holdEnd))) }
    return mixGain(decibels: sustain)
  }

  /// The voice's own value of the parameter on `frame`.
  @inline(__always)
  func localValue(at frame: UInt64) -> Float {
    frame < localCurrent.start ? localEarlier.value(at: frame) : localCurrent.value(at: frame)
  }
}

/// A ``ParameterCurve`` as the mixing thread reads it: up to eight points in two vectors.
struct CurvePoints: Sendable {
  var xs = SIMD8<Float>()
  var ys = SIMD8<Float>()
  var count = 0
  var isSmooth = false

  init() {}

  init(_ curve: ParameterCurve) {
    count = min(curve.points.count, 8)
    for (index, point) in curve.points.prefix(8).enumerated() {
      xs[index] = Float(point.x)
      ys[index] = Float(point.y)
    }
    isSmooth = curve.interpolation == .smooth
  }

  /// The curve's value at `x` (its first point's before it, its last's after).
  @inline(__always)
  func value(at x: Float) -> Float {
    if !(x > xs[0]) { return ys[0] }
    let last = count - 1
    if x >= xs[last] { return ys[last] }
    var index = 1
    while index < last, xs[index] < x { index += 1 }
    var t = (x - xs[index - 1]) / (xs[index] - xs[index - 1])
    if isSmooth { t = t * t * (3 - 2 * t) }
    return ys[index - 1] + (ys[index] - ys[index - 1]) * t
  }
}

/// A voice's modulators on its channel's gain stage: their decibels add, and their gain multiplies
/// the level (the voice's volume and its tweens) wherever the block evaluates it, every 32 frames.
extension ChannelGain {
  static let modulatorCapacity = 4

  /// Replaces the modulators (at most ``modulatorCapacity``), each oscillator from its first
  /// block. Queue only, while the lane is not mixed or under the audio lock.
  func setModulators(_ slots: [ModulatorSlot]) {
    guard !slots.isEmpty || modulatorCount > 0 else { return }  // none, as before: the common start
    let count = min(slots.count, Self.modulatorCapacity)
    for index in 0..<count {
      modulators[index] = slots[index]
      modulators[index].origin = .max
    }
    modulatorCount = count
    modulationFrame = .max
  }

  /// The frames the modulators started on, in order, with their kinds (`UInt64.max`: not run
  /// yet). Under the audio lock.
  var modulatorOrigins: ModulatorOrigins {
    var origins = ModulatorOrigins()
    origins.count = modulatorCount
    for index in 0..<modulatorCount {
      origins.frames[index] = modulators[index].origin
      origins.kinds[index] = modulators[index].kind.rawValue
    }
    return origins
  }

  /// Gives the modulators the frames they started on before (a voice back from virtual), when
  /// they are the same kinds in the same order; changed meanwhile, they start afresh. Queue, while
  /// the lane is not mixed.
  func restoreModulatorOrigins(_ origins: ModulatorOrigins) {
    guard origins.count == modulatorCount,
      (0..<modulatorCount).allSatisfy({ origins.kinds[$0] == modulators[$0].kind.rawValue })
    else { return }
    for index in 0..<modulatorCount { modulators[index].origin = origins.frames[index] }
    modulationFrame = .max
  }

  /// Moves the voice's own value of parameter `parameter` to `value` over `frames` frames along
  /// `easing`, from `start` (`UInt64.max`: the next block), from where it stands then (the
  /// engine's value, the first time). Queue, under the audio lock; `clock` is the mix's next frame.
  func setLocalParameter(
    _ parameter: Int, to value: Float, frames: Int, easing: Easing, start: UInt64, clock: UInt64
  ) {
    let begin = start == .max ? clock : max(start, clock)
    for index in 0..<modulatorCount
    where modulators[index].kind == .curve && modulators[index].parameter == parameter {
      var slot = modulators[index]
      let from = slot.hasLocal ? slot.localValue(at: begin) : parameters.value(parameter, at: begin)
      if !slot.hasLocal {
        slot.localEarlier = ParameterSegment(from: from, to: from)
      } else if slot.localCurrent.start <= clock {
        slot.localEarlier = slot.localCurrent
      }
      slot.localCurrent = ParameterSegment(
        from: from, to: value, start: begin, frames: max(1, frames), curve: easing)
      slot.hasLocal = true
      modulators[index] = slot
    }
    modulationFrame = .max
  }

  /// Starts the envelopes' releases on `frame` (a frame the mix has not reached); returns the
  /// longest release in frames (0: no envelope releases, and the voice stops as any other).
  /// Queue, under the audio lock.
  func releaseEnvelopes(at frame: UInt64) -> Double {
    var longest: Double = 0
    for index in 0..<modulatorCount
    where modulators[index].kind == .envelope && modulators[index].releaseFrames > 0
      && modulators[index].releaseFrame == .max
    {
      modulators[index].releaseFrame = frame
      longest = max(longest, modulators[index].releaseFrames)
    }
    if longest > 0 { modulationFrame = .max }
    return longest
  }

  /// Gives oscillators and envelopes that have not run yet their first frame.
  @inline(__always)
  func startModulators(at frame: UInt64) {
    for index in 0..<modulatorCount where modulators[index].origin == .max {
      modulators[index].origin = frame
    }
  }

  /// The frames between two evaluations of the modulators, on the engine's clock (2.7 ms at
  /// 48 kHz; an LFO's fastest, 50 Hz, is still evaluated 7 times a cycle): in between, their gain
  /// is interpolated linearly.
  static let modulationInterval: UInt64 = 128

  /// The modulators' gain on `frame` (1 with none): interpolated between their values on the two
  /// points of the ``modulationInterval`` grid around it, each worked out once.
  @inline(__always)
  func modulation(at frame: UInt64) -> Float {
    guard modulatorCount > 0 else { return 1 }
    let start = frame - frame % Self.modulationInterval
    if start != modulationFrame {
      // The next grid point is usually the last one's end.
      modulationGain =
        start == modulationFrame &+ Self.modulationInterval ? modulationEnd : modulators(at: start)
      modulationEnd = modulators(at: start &+ Self.modulationInterval)
      modulationFrame = start
    }
    let offset = Float(frame - start) * (1 / Float(Self.modulationInterval))
    return modulationGain + (modulationEnd - modulationGain) * offset
  }

  /// The modulators' gain on `frame`, worked out.
  @inline(__always)
  private func modulators(at frame: UInt64) -> Float {
    var decibels: Float = 0
    var gain: Float = 1
    for index in 0..<modulatorCount {
      switch modulators[index].kind {
      case .curve:
        let parameter = modulators[index].parameter
        let x =
          modulators[index].hasLocal
          ? min(
            max(modulators[index].localValue(at: frame), parameters.tracks[parameter].lower),
            parameters.tracks[parameter].upper)
          : parameters.value(parameter, at: frame)
        decibels += modulators[index].curve(at: x)
      case .oscillator:
        let origin = modulators[index].origin
        let cycles = frame > origin ? Double(frame &- origin) * modulators[index].cyclesPerFrame : 0
        let cycle = UInt64(cycles)
        let fraction = LFO.depthFraction(
          modulators[index].wave, phase: Float(cycles - Double(cycle)), cycle: cycle &+ modulators[index].seed
        )
        decibels -= modulators[index].depth * fraction
      case .envelope:
        gain *= modulators[index].envelope(at: frame)
      case .follower:
        // The bus's peak in the last block, in dBFS, smoothed one evaluation at a time.
        let peak = parameters.busPeaks[modulators[index].bus]
        let level = peak > 0.000_01 ? 20 * log10f(peak) : -100
        let followed = modulators[index].followed
        let share = level > followed ? modulators[index].rise : modulators[index].fall
        modulators[index].followed = followed + (level - followed) * share
        decibels += modulators[index].points.value(at: modulators[index].followed)
      case .none: break
      }
    }
    return mixGain(decibels: decibels) * gain
  }
}
