import Foundation

/// Where a track's beats and bars fall: its tempo, its meter, where its first downbeat is, the
/// bars where tempo or meter change, and named cues. The music's clock reads it to say which bar
/// and beat is heard, to stamp beat events, and to put stingers and transitions on the next beat
/// or bar to the sample.
///
/// Tempo counts the beats a bar is counted in (the meter's upper number): 120 in 6/8 is 120
/// eighth notes a minute. Bars count from 1 at the first downbeat; audio before it (a pickup) is
/// bar 0.
///
/// ```swift
/// var battle = Track(named: "Music/battle.ogg", loopCount: -1)
/// battle.tempo = try TempoMap(
///   bpm: 140, meter: Meter(4, 4), offset: 0.25,
///   changes: [.init(bar: 33, bpm: 140, meter: Meter(3, 4))],
///   cues: ["drop": 16.25])
/// music.play(battle)
/// print(music.musicalTime ?? "no tempo")    // 5:3.25 — bar 5, beat 3, a quarter on
/// ```
public struct TempoMap: Sendable, Hashable, CustomStringConvertible {
  /// Beats to the bar, and the note value of a beat (for display; the tempo counts beats).
  public struct Meter: Sendable, Hashable, Codable, CustomStringConvertible {
    public var beatsPerBar: Int
    public var noteValue: Int

    public init(_ beatsPerBar: Int, _ noteValue: Int = 4) {
      self.beatsPerBar = beatsPerBar
      self.noteValue = noteValue
    }

    /// Reads "3/4"; nil when it is not two positive whole numbers within reason.
    public init?(_ text: String) {
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let beats = Int(parts[0].trimmingCharacters(in: .whitespaces)),
        let note = Int(parts[1].trimmingCharacters(in: .whitespaces)),
        TempoMap.beatsPerBarRange.contains(beats), [1, 2, 4, 8, 16, 32].contains(note)
      else { return nil }
      self.init(beats, note)
    }

    public var description: String { "\(beatsPerBar)/\(noteValue)" }
  }

  /// A change of tempo or meter at the start of a bar.
  public struct Change: Sendable, Hashable, Codable {
    /// The bar it starts on (2 or later).
    public var bar: Int
    public var bpm: Double
    public var meter: Meter

    public init(bar: Int, bpm: Double, meter: Meter = Meter(4, 4)) {
      self.bar = bar
      self.bpm = bpm
      self.meter = meter
    }
  }

  /// Tempos accepted, in beats per minute.
  public static let bpmRange: ClosedRange<Double> = 1...1_000
  /// Beats to the bar accepted.
  public static let beatsPerBarRange: ClosedRange<Int> = 1...64
  /// Changes and cues a map may hold (a tempo map is data a game may load from anywhere).
  public static let maximumEntries = 4_096

  /// Seconds of track before the first downbeat.
  public let offset: Double
  /// The sections: the first (bar 1) and each change, in order of bars.
  public let sections: [Change]
  /// Named moments, in seconds of track.
  public let cues: [String: Double]
  /// How many steps of the music's grid a beat holds (``MusicalGrid/grid``,
  /// ``MusicMoment/nextGrid``): 4 is sixteenths in 4/4, 2 eighths, 3 triplets.
  public let grid: Int
  /// Steps to the beat accepted.
  public static let gridRange: ClosedRange<Int> = 1...16

  /// A map, checked: a tempo within ``bpmRange``, a meter within ``beatsPerBarRange``, an offset
  /// of 0 or more, changes on increasing bars after the first, cues at 0 seconds or later, a
  /// grid of ``gridRange`` steps to the beat.
  /// - Throws: ``TempoMapError`` naming the first value that is not.
  public init(
    bpm: Double, meter: Meter = Meter(4, 4), offset: Double = 0, changes: [Change] = [],
    cues: [String: Double] = [:], grid: Int = 4
  ) throws(TempoMapError) {
    guard offset.isFinite, offset >= 0, offset < 86_400 else { throw .badOffset(offset) }
    guard Self.gridRange.contains(grid) else { throw .badGrid(grid) }
    guard changes.count < Self.maximumEntries, cues.count <= Self.maximumEntries else {
      throw .tooManyEntries(changes.count + cues.count)
    }
    let all = [Change(bar: 1, bpm: bpm, meter: meter)] + changes
    var previousBar = 0
    for section in all {
      guard section.bpm.isFinite, Self.bpmRange.contains(section.bpm) else { throw .badTempo(section.bpm) }
      guard Self.beatsPerBarRange.contains(section.meter.beatsPerBar), section.meter.noteValue > 0 else {
        throw .badMeter(section.meter.description)
      }
      guard section.bar > previousBar, section.bar < 1_000_000 else { throw .badChangeBar(section.bar) }
      previousBar = section.bar
    }
    for (name, seconds) in cues where !(seconds.isFinite && seconds >= 0) {
      throw .badCue(name)
    }
    self.offset = offset
    self.sections = all
    self.cues = cues
    self.grid = grid
  }

  public var description: String {
    "\(sections[0].bpm) bpm \(sections[0].meter)"
      + (sections.count > 1 ? " (+\(sections.count - 1) changes)" : "")
  }

  // MARK: - Beats and bars

  /// A section's first beat (counted from the first downbeat) and its first second of track.
  private func start(of index: Int) -> (beat: Int, seconds: Double) {
    var beat = 0
    var seconds = offset
    for previous in 0..<index {
      let beats = (sections[previous + 1].bar - sections[previous].bar) * sections[previous].meter.beatsPerBar
      beat += beats
      seconds += Double(beats) * 60 / sections[previous].bpm
    }
    return (beat, seconds)
  }

  /// The section a beat (counted from the first downbeat; negative in the pickup) is in.
  private func section(ofBeat beat: Int) -> (index: Int, beat: Int, seconds: Double) {
    var index = 0
    var start = (beat: 0, seconds: offset)
    while index + 1 < sections.count {
      let beats = (sections[index + 1].bar - sections[index].bar) * sections[index].meter.beatsPerBar
      guard beat >= start.beat + beats else { break }
      start = (start.beat + beats, start.seconds + Double(beats) * 60 / sections[index].bpm)
      index += 1
    }
    return (index, start.beat, start.seconds)
  }

  /// The second of track on which beat `beat` (0: the first downbeat; negative: the pickup's)
  /// falls.
  public func seconds(ofBeat beat: Int) -> Double {
    let (index, first, seconds) = section(ofBeat: beat)
    return seconds + Double(beat - first) * 60 / sections[index].bpm
  }

  /// The beat (counted from the first downbeat) that starts bar `bar` (from 1; 0 is the pickup's
  /// bar, whose beats are negative), across the map's changes of meter.
  public func firstBeat(ofBar bar: Int) -> Int {
    var beat = 0
    var index = 0
    while index + 1 < sections.count, sections[index + 1].bar <= bar {
      beat += (sections[index + 1].bar - sections[index].bar) * sections[index].meter.beatsPerBar
      index += 1
    }
    let (product, overflow) = (bar - sections[index].bar).multipliedReportingOverflow(
      by: sections[index].meter.beatsPerBar)
    return overflow ? (bar > 0 ? Int.max / 2 : Int.min / 2) : beat + product
  }

  /// The beat (counted from the first downbeat) at `seconds` of track, with how far into it.
  public func beat(at seconds: Double) -> (beat: Int, fraction: Double) {
    guard seconds.isFinite else { return (0, 0) }
    var index = 0
    var start = (beat: 0, seconds: offset)
    while index + 1 < sections.count {
      let beats = (sections[index + 1].bar - sections[index].bar) * sections[index].meter.beatsPerBar
      let end = start.seconds + Double(beats) * 60 / sections[index].bpm
      guard seconds >= end else { break }
      start = (start.beat + beats, end)
      index += 1
    }
    let beats = (seconds - start.seconds) * sections[index].bpm / 60
    let whole = beats.rounded(.down)
    return (start.beat + Int(whole), beats - whole)
  }

  /// The bar (from 1; 0 in the pickup) and beat in bar (from 1) of a beat.
  public func barAndBeat(ofBeat beat: Int) -> (bar: Int, beat: Int) {
    let (index, first, _) = section(ofBeat: beat)
    let perBar = sections[index].meter.beatsPerBar
    if beat < 0 {
      // The pickup counts back from the first downbeat in the first meter.
      let back = -beat
      return (0, perBar - ((back - 1) % perBar))
    }
    let inSection = beat - first
    return (sections[index].bar + inSection / perBar, inSection % perBar + 1)
  }

  /// Where in the music `seconds` of track is.
  public func musicalTime(at seconds: Double) -> MusicalTime {
    let (beat, fraction) = beat(at: seconds)
    let (bar, inBar) = barAndBeat(ofBeat: beat)
    return MusicalTime(bar: bar, beat: inBar, fraction: fraction, absoluteBeat: beat)
  }

  /// Whether a beat starts a bar.
  public func isDownbeat(_ beat: Int) -> Bool { beat >= 0 && barAndBeat(ofBeat: beat).beat == 1 }

  /// The first beat at or after `seconds` of track that lands on `grid` (``MusicalGrid``); its
  /// second of track. The first step of the beat's grid for ``MusicalGrid/grid``; a cue's own
  /// second for a cue (nil when the map has no such cue or it has passed).
  public func next(_ grid: MusicalGrid, atOrAfter seconds: Double) -> Double? {
    switch grid {
    case .grid:
      guard seconds.isFinite else { return nil }
      var (beat, fraction) = beat(at: seconds)
      // A step that rounds onto `seconds` counts.
      var step = (fraction * Double(self.grid) - 1e-6).rounded(.up)
      if step >= Double(self.grid) {
        beat += 1
        step = 0
      }
      let start = self.seconds(ofBeat: beat)
      return start + max(0, step) / Double(self.grid) * (self.seconds(ofBeat: beat + 1) - start)
    case .beat, .bar:
      var (beat, fraction) = beat(at: seconds)
      if fraction > 1e-9 { beat += 1 }
      // A beat that rounds onto `seconds` counts; search at most one long bar ahead.
      for _ in 0..<(Self.beatsPerBarRange.upperBound + 1) {
        if grid == .beat || isDownbeat(beat) { return self.seconds(ofBeat: beat) }
        beat += 1
      }
      return nil
    case .cue(let name):
      guard let cue = cues[name], cue >= seconds - 1e-9 else { return nil }
      return cue
    }
  }
}

/// A moment on the music's grid: its next step of the beat's grid (``TempoMap/grid`` to the
/// beat), its next beat, its next bar, or a named cue.
public enum MusicalGrid: Sendable, Hashable, CustomStringConvertible {
  case grid
  case beat
  case bar
  case cue(String)

  public var description: String {
    switch self {
    case .grid: "grid"
    case .beat: "beat"
    case .bar: "bar"
    case .cue(let name): "cue \(name)"
    }
  }
}

/// Where the music is: bar (from 1; 0 is the pickup before the first downbeat), beat in the bar
/// (from 1), and how far into the beat (0..<1).
public struct MusicalTime: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var bar: Int
  public var beat: Int
  public var fraction: Double
  /// Beats since the first downbeat (negative in the pickup).
  public var absoluteBeat: Int

  public init(bar: Int, beat: Int, fraction: Double = 0, absoluteBeat: Int) {
    self.bar = bar
    self.beat = beat
    self.fraction = fraction
    self.absoluteBeat = absoluteBeat
  }

  public static func < (lhs: MusicalTime, rhs: MusicalTime) -> Bool {
    (lhs.absoluteBeat, lhs.fraction) < (rhs.absoluteBeat, rhs.fraction)
  }

  /// "5:3.25": bar 5, beat 3, a quarter of the way through it.
  public var description: String {
    let fraction = String(format: "%.2f", fraction).dropFirst()
    return "\(bar):\(beat)\(fraction)"
  }
}

/// Why a tempo map was refused.
public enum TempoMapError: Error, Sendable, Hashable, CustomStringConvertible {
  case badTempo(Double)
  case badMeter(String)
  case badOffset(Double)
  case badChangeBar(Int)
  case badCue(String)
  case tooManyEntries(Int)
  case badGrid(Int)

  public var description: String {
    switch self {
    case .badTempo(let bpm):
      "tempo \(bpm) bpm is outside \(Int(TempoMap.bpmRange.lowerBound))…\(Int(TempoMap.bpmRange.upperBound))"
    case .badMeter(let meter):
      "meter '\(meter)' is not beats/note with 1…\(TempoMap.beatsPerBarRange.upperBound) beats and a note of 1, 2, 4, 8, 16 or 32"
    case .badOffset(let seconds): "offset \(seconds) s is not a time in the track (0 s or later)"
    case .badChangeBar(let bar):
      "a change at bar \(bar) does not come after the bar before it (changes start at bar 2)"
    case .badCue(let name): "cue '\(name)' is not at a time in the track (0 s or later)"
    case .tooManyEntries(let count): "\(count) changes and cues: more than \(TempoMap.maximumEntries)"
    case .badGrid(let steps):
      "a grid of \(steps) steps to the beat is outside \(TempoMap.gridRange.lowerBound)…\(TempoMap.gridRange.upperBound)"
    }
  }
}
