import FoleyCore

/// What a player's calibration measured of the delays Foley cannot see: the sound system past
/// SDL (a DAC, a Bluetooth link, a sound server's buffering) and the input device. Kept in
/// ``AudioSettings/latencyOffsets``; the engine's heard clock applies them once the settings are
/// applied: ``AudioEngine/hostTime(whenHeard:)`` is later by ``audio``, and
/// ``AudioEngine/heardFrame(at:)`` maps an input's instant back by ``input`` and ``audio``.
///
/// ```swift
/// var settings = engine.settings
/// settings.latencyOffsets = try LatencyOffsets(tappingToClicks: clicks, tappingToFlashes: flashes)
/// engine.apply(settings)
/// ```
public struct LatencyOffsets: Codable, Sendable, Hashable {
  /// Seconds a sound reaches the player after the engine's heard clock says it plays, against the
  /// picture: positive when the click comes after the flash drawn for it.
  public var audio: Double
  /// Seconds an input reaches the game after the player made it on what they saw.
  public var input: Double

  /// The most either offset may be, in seconds either way: half a second.
  public static let limit = 0.5

  /// Offsets of `audio` and `input` seconds, each clamped to ±``limit`` (a NaN is 0).
  public init(audio: Double = 0, input: Double = 0) {
    self.audio = audio.clamped(to: -Self.limit...Self.limit, or: 0)
    self.input = input.clamped(to: -Self.limit...Self.limit, or: 0)
  }

  /// From a player's taps to clicks alone: everything between the heard clock and the tap is
  /// taken as the input's delay, as a game judged by ear needs.
  public init(tappingToClicks clicks: LatencyCalibration) throws {
    let tapped = try clicks.offset().seconds
    try self.init(checkedAudio: 0, input: tapped)
  }

  /// From taps to clicks (sound) and taps to flashes (picture, no sound): the flashes give the
  /// input's delay, and what the clicks take longer is the sound's.
  public init(tappingToClicks clicks: LatencyCalibration, tappingToFlashes flashes: LatencyCalibration) throws
  {
    let byEar = try clicks.offset().seconds
    let byEye = try flashes.offset().seconds
    try self.init(checkedAudio: byEar - byEye, input: byEye)
  }

  private init(checkedAudio audio: Double, input: Double) throws {
    for value in [audio, input] where !(abs(value) <= Self.limit) {
      throw CalibrationError.outOfRange(seconds: value)
    }
    self.init(audio: audio, input: input)
  }

  private enum CodingKeys: String, CodingKey { case audio, input }

  /// Decodes and checks: a missing field is 0; a value beyond ±``limit`` or not finite is a
  /// `DecodingError.dataCorrupted` naming the field.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func checked(_ key: CodingKeys) throws -> Double {
      let value = try container.decodeIfPresent(Double.self, forKey: key) ?? 0
      guard abs(value) <= Self.limit else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container, debugDescription: "\(value) s is not in -0.5…0.5")
      }
      return value
    }
    audio = try checked(.audio)
    input = try checked(.input)
  }
}

/// Why a calibration gives no offset.
public enum CalibrationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Fewer taps fell near a cue than the measure needs.
  case tooFewTaps(matched: Int, needed: Int)
  /// The taps were too far apart from each other to trust: their median distance from their own
  /// median, in seconds.
  case tooScattered(spread: Double)
  /// The offset measured is beyond ±``LatencyOffsets/limit``.
  case outOfRange(seconds: Double)

  public var description: String {
    switch self {
    case .tooFewTaps(let matched, let needed):
      "only \(matched) taps fell near a cue; \(needed) are needed"
    case .tooScattered(let spread):
      "the taps were too uneven to trust (spread \(Int((spread * 1_000).rounded())) ms; at most 40 ms)"
    case .outOfRange(let seconds):
      "the offset measured, \(Int((seconds * 1_000).rounded())) ms, is beyond ±500 ms"
    }
  }
}

/// One pass of a calibration: cues (a click heard, a flash shown) at known host instants and a
/// player's taps at theirs; the offset is the median of each tap's distance to its nearest cue.
///
/// ```swift
/// var clicks = LatencyCalibration()
/// let when = engine.hostTime(whenHeard: engine.heardFrame(of: clickFrame))!
/// clicks.cue(at: when)                                // each click, as it is scheduled
/// for polled in pump.poll() where polled.event == .keyDown(.space, isRepeat: false) {
///   clicks.tap(at: polled.time)                       // each tap, with SDL's stamp
/// }
/// let measured = try clicks.offset()                  // 46 ms late, spread 3 ms
/// ```
public struct LatencyCalibration: Sendable, Hashable {
  /// The instants of the cues, in the order given.
  public private(set) var cues: [HostTime] = []
  /// The instants of the taps, in the order given.
  public private(set) var taps: [HostTime] = []
  /// Taps paired with a cue the measure needs (the first few of a pass are often off).
  public var tapsNeeded: Int

  /// The most cues or taps one pass keeps; more are not kept.
  public static let capacity = 1_024

  public init(tapsNeeded: Int = 8) {
    self.tapsNeeded = max(1, tapsNeeded)
  }

  /// A cue at host instant `time`: when the click is heard (``AudioEngine/hostTime(whenHeard:)``)
  /// or the flash is shown.
  public mutating func cue(at time: HostTime) {
    if cues.count < Self.capacity { cues.append(time) }
  }

  /// A tap at host instant `time` (an event's `time` from the event pump).
  public mutating func tap(at time: HostTime) {
    if taps.count < Self.capacity { taps.append(time) }
  }

  /// What the taps say: how late they came after their cues (negative: early), the median, with
  /// the spread and the count it rests on. A tap counts when it is within half the median gap
  /// between cues of its nearest one (and within ±``LatencyOffsets/limit``): one pair of cues
  /// closer than the rest does not narrow the window for all.
  public func offset() throws -> (seconds: Double, spread: Double, taps: Int) {
    let sorted = cues.sorted()
    let gaps = zip(sorted, sorted.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }
    let gap = gaps.isEmpty ? LatencyOffsets.limit * 2 : Self.median(gaps)
    let window = min(gap / 2, LatencyOffsets.limit)
    var distances: [Double] = []
    for tap in taps {
      let nearest = sorted.map { tap - $0 }.min { abs($0) < abs($1) }
      if let nearest, abs(nearest) < window { distances.append(nearest) }
    }
    guard distances.count >= tapsNeeded else {
      throw CalibrationError.tooFewTaps(matched: distances.count, needed: tapsNeeded)
    }
    let median = Self.median(distances)
    let spread = Self.median(distances.map { abs($0 - median) })
    guard spread <= 0.040 else { throw CalibrationError.tooScattered(spread: spread) }
    return (median, spread, distances.count)
  }

  private static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}
