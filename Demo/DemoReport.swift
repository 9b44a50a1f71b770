import Foley
import Foundation

/// What a scripted (or any) run of the demo did, written as JSON by `--report`.
struct DemoReport: Codable {
  struct Device: Codable {
    var driver = ""
    var rate = 0
    var format = ""
    var channels = 0
    var bufferFrames = 0

    init() {}

    init(_ format: AudioDeviceFormat) {
      driver = format.driver
      rate = format.sampleRate
      self.format = format.sampleFormat.rawValue
      channels = format.channels
      bufferFrames = format.bufferFrames
    }
  }

  struct Sounds: Codable {
    var requested = 0
    var started = 0
    var suppressed = 0
    var rejected = 0
    var stolen = 0
    var failed = 0
    /// Times a voice went virtual (gave its channel back, kept its time).
    var virtualizations = 0

    init() {}

    init(_ statistics: AudioStatistics) {
      requested = statistics.requested
      started = statistics.started
      suppressed = statistics.suppressed
      rejected = statistics.rejected
      stolen = statistics.stolen
      failed = statistics.failed
      virtualizations = statistics.virtualizations
    }
  }

  struct Transition: Codable {
    var at: Double
    var active: Bool
    var reason: String
  }

  struct Recording: Codable {
    var file: String
    /// The take's length, from its samples.
    var duration: Double
    /// The wall-clock time between starting and stopping it.
    var wallDuration: Double
  }

  struct Music: Codable {
    /// Titles, in the order they began to be heard.
    var tracks: [String] = []
    var loops = 0
    /// Frames of silence because decoding fell behind.
    var underruns = 0
    /// Bar lines heard (beat events on a downbeat), stingers asked for, and musical moments that
    /// were missed and moved to their next occurrence.
    var bars = 0
    var stingers = 0
    var momentsMoved = 0
  }

  struct Speech: Codable {
    var utterances = 0
    /// The words heard, in order.
    var words: [String] = []
  }

  struct SoundMapFigures: Codable {
    var posted = 0
    var played = 0
    /// Sounds played, by the event that played them.
    var playedByEvent: [String: Int] = [:]
    var unknown: [String: Int] = [:]
  }

  var frames = 0
  var soundMap = SoundMapFigures()
  var device = Device()
  var music = Music()
  var speech = Speech()
  var sounds = Sounds()
  var peakVoices = 0
  /// Voices virtual at the end: the embers too far to be among the six heard.
  var virtualVoices = 0
  var session: [Transition] = []
  var recordings: [Recording] = []
  var errors: [String] = []
  var collisions = 0
  /// The captions shown, by their words: how many times each began.
  var captions: [String: Int] = [:]
  /// The most sources the sound radar showed at once.
  var radarPeak = 0
  /// The modes the HUD showed last (`SOUND ON` or `MUTED`, `MONO`, the balance, the range, `DARK`).
  var modes: [String] = []
  /// The seed the chimes were placed by (none: as each level was designed); `--seed` repeats it.
  var seed: UInt64?
  /// Where the level's chimes were placed, as [x, y].
  var chimes: [[Double]] = []
  struct Cave: Codable {
    /// Times the player walked into the cave (level 3's ringing room).
    var entries = 0
  }
  var cave = Cave()
  /// The mix the grammar moved: the most the `danger` parameter reached, the snapshots applied
  /// (each name once, in order), and the snapshots active at the end with their intensities.
  struct Mix: Codable {
    var dangerPeak = 0.0
    var applied: [String] = []
    var active: [String: Double] = [:]
  }
  var mix = Mix()
  /// A ball that hit the player: when (seconds of game time), in which level, and which ball (its
  /// index, which names its hum: hum1.wav for 0 and 5, …).
  struct Hit: Codable {
    var at: Double
    var level: Int
    var ball: Int
  }
  var hits: [Hit] = []
  /// Where the player stood at the end (x, y).
  var playerAt: [Double] = []
  /// The rounds that ended (won or out of time), and the round as it stood at the end.
  var rounds: [DemoRound] = []
  var round = DemoRound()

  func write(to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(self).write(to: URL(fileURLWithPath: path))
  }

  var summary: String {
    "level \(round.number): \(round.found)/\(round.chimes) chimes, score \(round.score), "
      + (round.outcome ?? "\(Int(round.timeLeft.rounded(.up))) s left") + "; "
      + "\(frames) frames, \(collisions) collisions; sounds: \(sounds.requested) requested, \(sounds.started) started, "
      + "\(sounds.suppressed) suppressed, \(sounds.rejected) rejected, \(sounds.stolen) stolen, "
      + "\(sounds.failed) failed; peak voices \(peakVoices), \(virtualVoices) virtual at the end "
      + "(\(sounds.virtualizations) times a voice went virtual); \(session.count) session transitions; "
      + "\(recordings.count) recordings; \(errors.count) errors"
  }
}
