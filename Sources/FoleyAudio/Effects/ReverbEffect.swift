import FoleyCore
import Foundation
import Synchronization

/// A reverb: Jezar's Freeverb (eight damped comb filters and four all-passes per side, its
/// public-domain tunings scaled to the mix's rate), with a pre-delay and presets.
///
/// The engine has one on its reverb return bus (``AudioEngine/reverb``), which voices feed with
/// ``Voice/setReverbSend(_:tween:)`` and nodes with `.changeReverb(to:duration:)`; it is all wet
/// there. As an insert on a category's bus it mixes dry and wet.
///
/// Its tail rings on after the voices that fed it have ended, then the bus stops running it: once
/// the tail is below −120 dBFS the state is cleared (the output is exact zeros from there) and
/// the reverb costs nothing until something is sent to it again.
///
/// ```swift
/// engine.reverb.apply(.cave)
/// node.run(.changeReverb(to: 0.6, duration: 0.5))    // the node walks into the cave
/// ```
public final class ReverbEffect: AudioEffect, @unchecked Sendable {
  /// A space, as Freeverb's room size and damping, a pre-delay and a wet level.
  public struct Preset: Sendable, Equatable {
    /// 0…1: how long the tail is.
    public var roomSize: Double
    /// 0…1: how fast high frequencies die in the tail.
    public var damping: Double
    /// Seconds before the first reflection (0…0.25).
    public var preDelay: Double
    /// The reverberated level (0…1).
    public var wet: Double

    public init(roomSize: Double, damping: Double, preDelay: Double, wet: Double) {
      self.roomSize = roomSize.clamped(to: 0...1, or: 0.5)
      self.damping = damping.clamped(to: 0...1, or: 0.5)
      self.preDelay = preDelay.clamped(to: 0...0.25, or: 0)
      self.wet = wet.clamped(to: 0...1, or: 0.3)
    }

    public static let room = Preset(roomSize: 0.5, damping: 0.5, preDelay: 0.005, wet: 0.6)
    public static let hall = Preset(roomSize: 0.84, damping: 0.3, preDelay: 0.02, wet: 0.6)
    public static let cave = Preset(roomSize: 0.93, damping: 0.15, preDelay: 0.03, wet: 0.7)
    /// Dark and close: heavy damping (the low-pass of water), a short, dense tail.
    public static let underwater = Preset(roomSize: 0.7, damping: 0.95, preDelay: 0, wet: 0.8)
  }

  private static let combTunings = [1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617]
  private static let allPassTunings = [556, 441, 341, 225]
  private static let stereoSpread = 23
  private static let silence: Float = 1e-6

  /// The preset as given (the mixing thread reads `settings`, packed to bytes in one atomic).
  private let exact: Locked<Preset>
  private let settings: Atomic<UInt64>
  private let dryLevel: Atomic<UInt32>
  /// The return's level asked for (0…1), and where the mixing thread's ramp has brought it.
  private let returnTarget = Atomic<UInt32>(Float(1).bitPattern)
  private var returnNow: Float = 1
  private var applied: UInt64 = .max
  private var feedback: Float = 0
  private var damp: Float = 0
  private var wet: Float = 0
  private var preDelayFrames = 0
  private var lines: ReverbLines?
  private var quietFrames = 0

  /// A reverb set to `preset`; `dry` is the share of the input passed through (0 on a return bus).
  public init(_ preset: Preset = .room, dry: Double = 0) {
    settings = Atomic(Self.pack(preset))
    exact = Locked(preset)
    dryLevel = Atomic(Float(dry.clamped(to: 0...1, or: 0)).bitPattern)
    super.init()
  }

  /// The preset last applied.
  public var preset: Preset { exact.withLock { $0 } }

  /// Switches to `preset` at the next buffer (the tail already ringing keeps its old shape).
  public func apply(_ preset: Preset) {
    exact.withLock { $0 = preset }
    settings.store(Self.pack(preset), ordering: .relaxed)
  }

  /// How much of the reverb's output is heard, 0…1 (1, the default: all of it). A change glides
  /// over 0.3 s, so a listener walking out of a ringing room hears the ring recede, not cut. A
  /// scene with rooms sets it from the room its listener is in (`Room.returnLevel`).
  ///
  /// ```swift
  /// engine.reverb.returnLevel = 0.35   // the room's ring, heard from outside it
  /// ```
  public var returnLevel: Double {
    get { Double(Float(bitPattern: returnTarget.load(ordering: .relaxed))) }
    set { returnTarget.store(Float(newValue.clamped(to: 0...1, or: 1)).bitPattern, ordering: .relaxed) }
  }

  /// The share of the input passed through unreverberated (0…1).
  public var dry: Double {
    get { Double(Float(bitPattern: dryLevel.load(ordering: .relaxed))) }
    set { dryLevel.store(Float(newValue.clamped(to: 0...1, or: 0)).bitPattern, ordering: .relaxed) }
  }

  private static func pack(_ preset: Preset) -> UInt64 {
    func byte(_ value: Double) -> UInt64 { UInt64((value * 255).rounded()) }
    return byte(preset.roomSize) << 24 | byte(preset.damping) << 16 | byte(preset.preDelay * 4) << 8
      | byte(preset.wet)
  }

  private static func unpack(_ packed: UInt64) -> Preset {
    func value(_ shift: UInt64) -> Double { Double((packed >> shift) & 0xFF) / 255 }
    return Preset(roomSize: value(24), damping: value(16), preDelay: value(8) / 4, wet: value(0))
  }

  package override func prepare() {
    let scale = Double(sampleRate) / 44_100
    lines = ReverbLines(
      combs: Self.combTunings.map { Int((Double($0) * scale).rounded()) },
      allPasses: Self.allPassTunings.map { Int((Double($0) * scale).rounded()) },
      spread: Int((Double(Self.stereoSpread) * scale).rounded()),
      preDelay: Int(0.25 * Double(sampleRate)) + 1)
  }

  private func takeSettings() {
    let packed = settings.load(ordering: .relaxed)
    guard packed != applied else { return }
    applied = packed
    let preset = Self.unpack(packed)
    // Freeverb's scalings: room 0…1 → feedback 0.7…0.98, damping 0…1 → 0…0.4.
    feedback = Float(0.7 + 0.28 * preset.roomSize)
    damp = Float(preset.damping * 0.4)
    wet = Float(preset.wet) * 3  // Freeverb's wet scale
    preDelayFrames = Int(preset.preDelay * Double(sampleRate))
  }

  package override func process(
    _ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int, hasInput: Bool,
    sidechain: UnsafePointer<Float>?, clock: UInt64
  ) -> Bool {
    guard let lines else { return false }
    takeSettings()
    let dry = Float(bitPattern: dryLevel.load(ordering: .relaxed))
    let returnGoal = Float(bitPattern: returnTarget.load(ordering: .relaxed))
    let returnStep = 1 / (0.3 * Float(sampleRate))
    var returnLevel = returnNow
    var loudest: Float = 0
    for frame in 0..<frames {
      let base = frame * channels
      var input: Float = 0
      if hasInput {
        for channel in 0..<channels { input += samples[base + channel] }
        input *= 0.015 * 2 / Float(channels)  // Freeverb's fixed input gain, for a stereo sum
      }
      let delayed = lines.delay(input, by: preDelayFrames)
      let (left, right) = lines.run(delayed, feedback: feedback, damp: damp)
      returnLevel += max(-returnStep, min(returnStep, returnGoal - returnLevel))
      let outLeft = left * wet * returnLevel
      let outRight = right * wet * returnLevel
      loudest = max(loudest, abs(outLeft), abs(outRight))
      if channels == 1 {
        samples[base] = samples[base] * dry + (outLeft + outRight) * 0.5
      } else {
        samples[base] = samples[base] * dry + outLeft
        samples[base + 1] = samples[base + 1] * dry + outRight
        for extra in stride(from: 2, to: channels, by: 1) { samples[base + extra] *= dry }
      }
    }
    returnNow = returnLevel
    if hasInput || loudest >= Self.silence {
      quietFrames = 0
      return true
    }
    // Quiet for as long as the longest path through it (pre-delay and a comb): the tail is gone.
    quietFrames += frames
    guard quietFrames > lines.longest + preDelayFrames else { return true }
    lines.clear()
    quietFrames = 0
    return false
  }
}

/// Freeverb's delay lines for both sides, and the pre-delay. Raw buffers throughout: a Swift
/// array in a class pays an exclusivity check on every access, 24 lines × 48,000 times a second.
///
/// Invariant behind `@unchecked Sendable`: made on the audio queue, then used by one mixing
/// thread only.
final class ReverbLines: @unchecked Sendable {
  private static let lineCount = 24
  private let buffers: UnsafeMutablePointer<Float>
  private let total: Int
  /// For each line (8 combs left, 8 right, 4 all-passes left, 4 right): where it starts in
  /// `buffers`, how long it is, where it is, and (combs) its damping filter's memory.
  private let starts: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
  private let lengths: UnsafeMutablePointer<Int>
  private let positions: UnsafeMutablePointer<Int>
  private let filterStore: UnsafeMutablePointer<Float>
  private let preDelayLine: UnsafeMutablePointer<Float>
  private let preDelayLength: Int
  private var preDelayIndex = 0
  let longest: Int

  init(combs: [Int], allPasses: [Int], spread: Int, preDelay: Int) {
    let all = (combs + combs.map { $0 + spread } + allPasses + allPasses.map { $0 + spread }).map {
      max(1, $0)
    }
    precondition(all.count == Self.lineCount)
    total = all.reduce(0, +) + preDelay
    buffers = .allocate(capacity: total)
    buffers.initialize(repeating: 0, count: total)
    starts = .allocate(capacity: Self.lineCount)
    lengths = .allocate(capacity: Self.lineCount)
    positions = .allocate(capacity: Self.lineCount)
    positions.initialize(repeating: 0, count: Self.lineCount)
    filterStore = .allocate(capacity: Self.lineCount)
    filterStore.initialize(repeating: 0, count: Self.lineCount)
    var offset = 0
    for (index, length) in all.enumerated() {
      (starts + index).initialize(to: buffers + offset)
      (lengths + index).initialize(to: length)
      offset += length
    }
    preDelayLine = buffers + offset
    preDelayLength = preDelay
    longest = all.max() ?? 0
  }

  deinit {
    buffers.deallocate()
    starts.deallocate()
    lengths.deallocate()
    positions.deallocate()
    filterStore.deallocate()
  }

  func clear() {
    buffers.update(repeating: 0, count: total)
    filterStore.update(repeating: 0, count: Self.lineCount)
  }

  @inline(__always)
  func delay(_ input: Float, by frames: Int) -> Float {
    guard frames > 0 else { return input }
    var read = preDelayIndex - min(frames, preDelayLength - 1)
    if read < 0 { read += preDelayLength }
    let output = preDelayLine[read]
    preDelayLine[preDelayIndex] = input
    preDelayIndex = preDelayIndex + 1 == preDelayLength ? 0 : preDelayIndex + 1
    return output
  }

  @inline(__always)
  func run(_ input: Float, feedback: Float, damp: Float) -> (Float, Float) {
    var left: Float = 0
    var right: Float = 0
    for comb in 0..<8 {
      left += combStep(comb, input, feedback, damp)
      right += combStep(comb + 8, input, feedback, damp)
    }
    for pass in 16..<20 {
      left = allPassStep(pass, left)
      right = allPassStep(pass + 4, right)
    }
    return (left, right)
  }

  @inline(__always)
  private func combStep(_ line: Int, _ input: Float, _ feedback: Float, _ damp: Float) -> Float {
    let position = positions[line]
    let cell = starts[line] + position
    let output = cell.pointee
    let store = output * (1 - damp) + filterStore[line] * damp
    filterStore[line] = store
    cell.pointee = input + store * feedback
    positions[line] = position + 1 == lengths[line] ? 0 : position + 1
    return output
  }

  @inline(__always)
  private func allPassStep(_ line: Int, _ input: Float) -> Float {
    let position = positions[line]
    let cell = starts[line] + position
    let stored = cell.pointee
    cell.pointee = input + stored * 0.5
    positions[line] = position + 1 == lengths[line] ? 0 : position + 1
    return stored - input
  }
}
