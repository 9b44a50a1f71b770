import FoleyCore
import Foundation

/// One stretch of a game parameter's movement: from `from` on frame `start` of the mix's clock
/// to `to`, `frames` later, along `curve`.
struct ParameterSegment {
  var from: Float = 0
  var to: Float = 0
  var start: UInt64 = 0
  var frames = 1
  var curve = Easing.linear

  @inline(__always)
  func value(at frame: UInt64) -> Float {
    guard from != to else { return to }
    if frame <= start { return from }
    let elapsed = frame &- start
    if elapsed >= UInt64(frames) { return to }
    return from + (to - from) * Float(curve.apply(Double(elapsed) / Double(frames)))
  }
}

/// A game parameter, or a snapshot's intensity, as the mix sees it: the stretch under way, the
/// one before it (while a tween waits for its frame), its range and the snapshots that set it.
struct ParameterTrack {
  var earlier = ParameterSegment()
  var current = ParameterSegment()
  var lower: Float = 0
  var upper: Float = 1
  var overrideCount = 0
  /// For a snapshot's intensity: the game parameter it follows (-1: none), through `drive`.
  var driver = -1
  var drive = CurvePoints()

  /// The value the game gave it on `frame`, before any snapshot.
  @inline(__always)
  func raw(at frame: UInt64) -> Float {
    frame < current.start ? earlier.value(at: frame) : current.value(at: frame)
  }
}

/// A snapshot's value for a parameter: the track of its intensity, the value at full intensity,
/// and whether it adds (blend) or pulls towards it (override).
struct ParameterOverride {
  var intensity = 0
  var value: Float = 0
  var isBlend = false
}

/// The engine's game parameters and snapshot intensities on the mixing thread: a fixed table
/// the queue writes under the audio lock and the mix reads, per frame, without allocating.
package final class ParameterTable: @unchecked Sendable {
  /// Parameters and snapshots together.
  static let gameCapacity = 64
  /// Every track: the game's, then each bus's fader, then the master's.
  static let capacity = gameCapacity + VoiceMixer.busCapacity + 1
  /// The track of bus `bus`'s fader (its volume, after its effects).
  static func fader(ofBus bus: Int) -> Int { gameCapacity + bus }
  /// The track of the master's fader.
  static let masterFader = gameCapacity + VoiceMixer.busCapacity
  /// Snapshots that may set one parameter.
  static let overridesPerParameter = 8

  let tracks = UnsafeMutablePointer<ParameterTrack>.allocate(capacity: capacity)
  let overrides = UnsafeMutablePointer<ParameterOverride>.allocate(capacity: capacity * overridesPerParameter)
  /// Each bus's peak in the mix's last block (0 for a bus that did not run), for followers:
  /// written and read on the mixing thread only.
  let busPeaks = UnsafeMutablePointer<Float>.allocate(capacity: VoiceMixer.busCapacity)

  init() {
    tracks.initialize(repeating: ParameterTrack(), count: Self.capacity)
    overrides.initialize(repeating: ParameterOverride(), count: Self.capacity * Self.overridesPerParameter)
    busPeaks.initialize(repeating: 0, count: VoiceMixer.busCapacity)
    for track in Self.gameCapacity..<Self.capacity { define(track, value: 1, range: 0...1) }
  }

  deinit {
    tracks.deallocate()
    overrides.deallocate()
    busPeaks.deallocate()
  }

  /// Parameter `index` on `frame`, with the snapshots that set it (in priority order), within
  /// its range.
  @inline(__always)
  func value(_ index: Int, at frame: UInt64) -> Float {
    var value = tracks[index].raw(at: frame)
    let count = tracks[index].overrideCount
    guard count > 0 else { return value }
    for slot in 0..<count {
      let change = overrides[index * Self.overridesPerParameter + slot]
      let intensity = intensity(change.intensity, at: frame)
      value = change.isBlend ? value + change.value * intensity : value + (change.value - value) * intensity
    }
    return min(max(value, tracks[index].lower), tracks[index].upper)
  }

  /// Snapshot intensity `index` on `frame`: as applied, times its driver's curve (0…1) at the game's
  /// value of the parameter it follows (before any snapshot sets it: no snapshot drives another).
  @inline(__always)
  func intensity(_ index: Int, at frame: UInt64) -> Float {
    let applied = tracks[index].raw(at: frame)
    let driver = tracks[index].driver
    guard driver >= 0 else { return applied }
    let x = min(max(tracks[driver].raw(at: frame), tracks[driver].lower), tracks[driver].upper)
    return applied * min(max(tracks[index].drive.value(at: x), 0), 1)
  }

  /// Makes intensity `index` follow parameter `parameter` (-1: none) through `curve` (queue,
  /// under the audio lock).
  func setDriver(of index: Int, parameter: Int, curve: CurvePoints) {
    tracks[index].driver = parameter
    tracks[index].drive = curve
  }

  /// Starts track `index` at `value`, at once, within `range`, setting nothing (queue, under the
  /// audio lock).
  func define(_ index: Int, value: Float, range: ClosedRange<Float>) {
    tracks[index].lower = range.lowerBound
    tracks[index].upper = range.upperBound
    tracks[index].earlier = ParameterSegment(from: value, to: value)
    tracks[index].current = ParameterSegment(from: value, to: value)
  }

  /// Moves track `index` to `value` over `frames` frames along `easing`, from `start` (a frame of
  /// the mix's clock; `UInt64.max`: the next block), from wherever it is then. A later tween
  /// waiting for its frame replaces one already waiting. Queue, under the audio lock; `clock` is
  /// the mix's next frame.
  func move(_ index: Int, to value: Float, frames: Int, easing: Easing, start: UInt64, clock: UInt64) {
    let begin = start == .max ? clock : max(start, clock)
    var track = tracks[index]
    let from = track.raw(at: begin)
    if track.current.start <= clock { track.earlier = track.current }
    track.current = ParameterSegment(
      from: from, to: value, start: begin, frames: max(1, frames), curve: easing)
    tracks[index] = track
  }

  /// Sets the snapshots that change parameter `index`, in priority order (queue, audio lock).
  func setOverrides(_ changes: [ParameterOverride], of index: Int) {
    let count = min(changes.count, Self.overridesPerParameter)
    for slot in 0..<count { overrides[index * Self.overridesPerParameter + slot] = changes[slot] }
    tracks[index].overrideCount = count
  }
}

/// A snapshot's change of one bus on the mixing thread: the track of its intensity, its decibels
/// at full intensity, how it combines, and its filters (log2 of hertz at full intensity; 0: none).
struct BusSnapshotStage {
  var intensity = 0
  var decibels: Float = 0
  var isBlend = false
  var lowPass: Float = 0
  var highPass: Float = 0
  var lowFilter: Unmanaged<StateVariableFilter>?
  var highFilter: Unmanaged<StateVariableFilter>?
  /// Whether its filters ran in the last block (they start from rest when they come back in).
  var engaged = false

  /// Where a low-pass and a high-pass stand at intensity 0 (log2 of hertz): open.
  static let openLowPass = log2(Float(20_000))
  static let openHighPass = log2(Float(10))
}

/// A level in decibels as a gain on the mixing thread: 2^(dB·log2(10)/20), silence at -120 dB
/// and below.
@inline(__always)
func mixGain(decibels: Float) -> Float {
  decibels <= -120 ? 0 : exp2f(decibels * 0.166_096_4)
}
