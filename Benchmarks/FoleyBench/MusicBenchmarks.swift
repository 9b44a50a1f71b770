import CFoleyCodecs
import Foley
import FoleyAudio
import FoleyAudioTesting
import Foundation
import Logging

/// Streamed music: the music thread's CPU per stream with 8 streams at once (and whether any
/// underran), and the memory a ten-minute stream adds.
@MainActor
enum MusicBenchmarks {
  /// The demo's Vorbis music (48 kHz stereo, q2), looping, on 8 players at once.
  static let track = URL(fileURLWithPath: "Assets/Music/calm.ogg")

  static func streams(
    _ count: Int, seconds: Double, logger: Logger
  ) throws -> (cpuPercentPerStream: Double, underruns: Int) {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 32
    let engine = try AudioEngine(configuration: configuration, session: AudioSession(), logger: logger)
    defer { engine.close() }
    let players = (0..<count).map { _ in MusicPlayer(engine: engine) }
    for (index, player) in players.enumerated() {
      player.volume = 0.1
      player.play(Track(url: track, loopCount: -1), from: Double(index))
    }
    // Past the first fills (each ring starts with half a second decoded at once).
    while players.contains(where: { $0.currentTime == nil }) { Clocks.sleep(seconds: 0.05) }
    Clocks.sleep(seconds: 1)
    // The stream thread's CPU, and the streaming service's (where the decoding now happens).
    let cpuBefore = engine.musicDecodeCPUSeconds + serviceCPUSeconds(of: engine)
    let wallBefore = Clocks.wallNanoseconds
    Clocks.sleep(seconds: seconds)
    let cpu = engine.musicDecodeCPUSeconds + serviceCPUSeconds(of: engine) - cpuBefore
    let wall = Double(Clocks.wallNanoseconds - wallBefore) / 1e9
    let underruns = players.reduce(0) { $0 + $1.underrunFrames }
    return (cpu / wall / Double(count) * 100, underruns)
  }

  /// CPU seconds `engine`'s streaming service process has used (user and system, from /proc).
  static func serviceCPUSeconds(of engine: AudioEngine) -> Double {
    let pid = engine.streamFiller.streamingService.processID
    guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // Fields 14 and 15 of stat (utime, stime), counted after the command's closing parenthesis.
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Resident memory added while a ten-minute track streams (on the embedded mixer, as fast as it
  /// mixes), between the end of its first minute and its end.
  static func tenMinutes(logger: Logger) throws -> Double {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("foley-bench-10min.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    let frames = 600 * 8_000
    var samples = [Int16](repeating: 0, count: frames)
    for frame in 0..<frames {
      samples[frame] = Int16(8_000 * sin(2 * Double.pi * 440 * Double(frame) / 8_000))
    }
    try samples.withUnsafeBytes {
      WAVFile.data(
        format: RecordingFormat(sampleRate: 8_000, channels: 1, sampleFormat: .signed16), samples: $0)
    }.write(to: url)
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession(), logger: logger)
    defer { engine.close() }
    let music = engine.music
    music.play(Track(url: url))
    var before = 0.0
    for second in 0..<600 {
      mixer.advance(seconds: 1)
      _ = mixer.takeOutput()
      music.deliverEvents()
      if second == 59 { before = Clocks.residentKiB }
    }
    precondition(music.underrunFrames == 0)
    return Clocks.residentKiB - before
  }

  /// Milliseconds of wall time from `play` to the first frame of the demo's calm piece being
  /// mixed (a fresh engine each time, so its check has not run), without and with `prepare`
  /// first; the least of `rounds` interleaved rounds.
  static func playToFirstSample(rounds: Int, logger: Logger) throws -> (cold: Double, prepared: Double) {
    var cold: [Double] = []
    var prepared: [Double] = []
    for _ in 0..<rounds {
      for isPrepared in [false, true] {
        let engine = try AudioEngine(
          configuration: AudioConfiguration(), session: AudioSession(), logger: logger)
        defer { engine.close() }
        let music = engine.music
        let track = Track(url: Self.track, loopCount: -1)
        if isPrepared {
          music.prepare([track])
          while !music.isPrepared(track) { Clocks.sleep(seconds: 0.001) }
        }
        let start = Clocks.wallNanoseconds
        music.play(track)
        while (music.currentTime ?? 0) <= 0 { Clocks.sleep(seconds: 0.0005) }
        let milliseconds = Double(Clocks.wallNanoseconds - start) / 1e6
        if isPrepared { prepared.append(milliseconds) } else { cold.append(milliseconds) }
        music.stop()
      }
    }
    return (cold.min() ?? 0, prepared.min() ?? 0)
  }

  static func figures(quick: Bool, logger: Logger) throws -> [String: Any] {
    let (cold, prepared) = try playToFirstSample(rounds: quick ? 1 : 3, logger: logger)
    let (cpu, underruns) = try streams(8, seconds: quick ? 3 : 8, logger: logger)
    return [
      "music_decode_cpu_percent_per_stream": cpu, "music_underrun_frames_8_streams": Double(underruns),
      "music_rss_growth_kib_10_minutes": try tenMinutes(logger: logger),
      "music_play_to_first_sample_ms": cold, "music_prepared_play_to_first_sample_ms": prepared,
    ].merging(try ResampleBenchmarks.figures(quick: quick)) { first, _ in first }
  }
}
