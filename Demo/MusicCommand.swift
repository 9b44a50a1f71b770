import ArgumentParser
import Foley
import Foundation

/// `foley-demo music FILE... [--crossfade S] [--seek S] [--loop N] [--seconds S]
/// [--tempo BPM [--meter 4/4] [--offset S] [--beats] [--stinger FILE@S[:beat|bar]]
/// [--transition FILE@S[:beat|bar]]] [--stems FILE,FILE…]`: streams a playlist (or the stems of one
/// piece) through the engine's music player,
/// printing a line per event, and exits when the music has finished (or after --seconds).
struct MusicCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "music",
    abstract: "Stream music files through Foley's music player as a playlist.",
    discussion: """
      Each file streams (WAV, AIFF, OGG Vorbis, Opus, FLAC, MP3), with its own loop tags \
      (LOOPSTART, LOOPEND/LOOPLENGTH) if it has any. A file that cannot play gets one line on \
      standard error and the others play; the exit status is then 1.
      """)

  @Argument(help: "Music files, played in order.")
  var files: [String] = []

  @Option(
    help: ArgumentHelp(
      "Files of one length played as the stems of one piece: started on one sample, looping together.",
      valueName: "FILE,FILE…"))
  var stems: String?

  @Option(help: "Seconds each next track overlaps the end of the one before (both heard). 0: gapless.")
  var crossfade: Double = 0

  @Option(help: "Start the first track this many seconds in.")
  var seek: Double = 0

  @Option(
    parsing: .unconditional, help: "Passes of each track's loop region after the first play (-1: for ever).")
  var loop: Int = 0

  @Option(help: "Stop (with a half-second fade) after this many seconds of music heard.")
  var seconds: Double?

  @Flag(help: "Play the files in a random order (the first one first).")
  var shuffle = false

  @Option(help: "What plays when the playlist ends: off, one or all.")
  var `repeat`: RepeatOption = .off

  enum RepeatOption: String, ExpressibleByArgument {
    case off, one, all
  }

  @Option(
    parsing: .unconditional,
    help: "Play each track at this loudness in LUFS (-70…0), from the loudness its check measured.")
  var normalize: Double?

  @Option(help: "The music's tempo in beats per minute: gives it bars and beats.")
  var tempo: Double?

  @Option(help: "Beats to the bar and the beat's note value, as 3/4 (with --tempo).")
  var meter = "4/4"

  @Option(help: "Seconds of the track before its first downbeat (with --tempo).")
  var offset: Double = 0

  @Flag(
    help: """
      Print a JSON line per beat: its number, bar and beat, the frame it falls on and the output \
      frame it is heard on; and first a line with the output latency (with --tempo).
      """)
  var beats = false

  @Option(
    help: ArgumentHelp(
      "A sound asked for at SECONDS of music heard, landing on the next beat or bar (default bar).",
      valueName: "FILE@SECONDS[:beat|bar]"))
  var stinger: [String] = []

  @Option(
    help: ArgumentHelp(
      "Another track asked for at SECONDS of music heard, cut in on the next beat or bar (default bar).",
      valueName: "FILE@SECONDS[:beat|bar]"))
  var transition: [String] = []

  /// A `FILE@SECONDS[:beat|bar]` request.
  struct TimedRequest {
    var file: String
    var seconds: Double
    var moment: MusicMoment

    init(_ text: String, option: String) throws {
      guard let at = text.lastIndex(of: "@") else {
        throw ValidationError("--\(option) \(text): expected FILE@SECONDS[:beat|bar]")
      }
      file = String(text[..<at])
      let rest = text[text.index(after: at)...].split(separator: ":", omittingEmptySubsequences: false)
      guard !file.isEmpty, let seconds = Double(rest[0]), seconds.isFinite, seconds >= 0, rest.count <= 2
      else {
        throw ValidationError("--\(option) \(text): expected FILE@SECONDS[:beat|bar], SECONDS 0 or more")
      }
      self.seconds = seconds
      switch rest.count == 2 ? String(rest[1]) : "bar" {
      case "bar": moment = .nextBar
      case "beat": moment = .nextBeat
      default: throw ValidationError("--\(option) \(text): the moment is beat or bar")
      }
    }
  }

  func validate() throws {
    guard crossfade.isFinite, crossfade >= 0, crossfade <= 60 else {
      throw ValidationError("--crossfade must be between 0 and 60 seconds")
    }
    guard seek.isFinite, seek >= 0 else { throw ValidationError("--seek must be 0 or more seconds") }
    guard loop >= -1 else { throw ValidationError("--loop must be -1 (for ever), 0 or more") }
    guard files.isEmpty != (stems == nil) else {
      throw ValidationError("give music files, or --stems FILE,FILE…, not both")
    }
    if let stems, stemFiles(stems).count < 2 {
      throw ValidationError("--stems needs two files or more, comma-separated")
    }
    if let seconds, !(seconds.isFinite && seconds > 0) { throw ValidationError("--seconds must be positive") }
    if let normalize, !AudioEngine.loudnessTargets.contains(normalize) {
      throw ValidationError("--normalize must be between -70 and 0 LUFS")
    }
    if tempo != nil {
      _ = try tempoMap()
    } else if beats || !stinger.isEmpty || !transition.isEmpty {
      throw ValidationError("--beats, --stinger and --transition need the music's --tempo")
    }
    for text in stinger { _ = try TimedRequest(text, option: "stinger") }
    for text in transition { _ = try TimedRequest(text, option: "transition") }
  }

  func stemFiles(_ list: String) -> [String] {
    list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  /// The tempo map the options describe (nil without --tempo).
  func tempoMap() throws -> TempoMap? {
    guard let tempo else { return nil }
    guard let meter = TempoMap.Meter(self.meter) else {
      throw ValidationError("--meter \(self.meter): expected beats/note, as 4/4 or 6/8")
    }
    do {
      return try TempoMap(bpm: tempo, meter: meter, offset: offset)
    } catch {
      throw ValidationError("--tempo: \(error)")
    }
  }

  @MainActor
  func run() async throws {
    let engine = try AudioEngine.forTool("foley.music")
    defer { engine.close() }
    say(engine.deviceLine)
    let music = engine.music
    music.crossfadeDuration = crossfade
    if let normalize {
      try engine.bus(.music).setLoudnessTarget(normalize)
      music.normalizesLoudness = true
    }
    music.isShuffled = shuffle
    music.repeatMode = [.off: .off, .one: .one, .all: .all][self.repeat]!
    var failures = 0
    var finished = false
    var beatCount = 0
    if beats {
      let latency = engine.outputLatency
      say(
        #"{"latencyFrames": \#(latency.frames), "lookAheadFrames": \#(latency.lookAheadFrames), "bufferFrames": \#(latency.bufferFrames), "deviceQueueFrames": \#(latency.deviceQueueFrames), "latencySeconds": \#(latency.seconds)}"#
      )
    }
    // --seconds counts from the first sample heard, not from the request: checking a file first
    // takes a moment, longer on a busy machine.
    var heardSince: ContinuousClock.Instant?
    music.observe { event in
      switch event {
      case .trackChanged(let now):
        if heardSince == nil { heardSince = .now }
        let length = now.duration.map { String(format: "%.2f s", $0) } ?? "length unknown"
        let loop =
          now.loopRegion.map { String(format: ", loop %.3f–%.3f s", $0.lowerBound, $0.upperBound) } ?? ""
        let loudness =
          normalize != nil ? now.loudness.map { ", \($0.description.split(separator: ",")[0])" } ?? "" : ""
        say("now playing: \(now.title) (\(length), \(now.format)\(loop)\(loudness))")
      case .looped(let now, let pass):
        say("loop \(pass): \(now.title)")
      case .failed(let track, let error):
        failures += 1
        FileHandle.standardError.write(Data("foley-demo: \(track.name): \(error)\n".utf8))
      case .finished:
        say("finished")
        finished = true
      case .beat(let beat):
        if beats {
          beatCount += 1
          say(
            #"{"beat": \#(beatCount), "bar": \#(beat.time.bar), "beatInBar": \#(beat.time.beat), "frame": \#(beat.frame.index), "heardFrame": \#(engine.heardFrame(of: beat.frame).index)}"#
          )
        }
      case .cue(let name, let frame):
        say("cue \(name) at frame \(frame.index)")
      case .momentMoved(let moment, let from, let to):
        say("\(moment) at frame \(from.index) was missed: moved to frame \(to.index)")
      }
    }
    let tempo = try tempoMap()
    let tracks = files.map {
      var track = Track(url: URL(fileURLWithPath: $0), loopCount: loop)
      track.tempo = tempo
      return track
    }
    if let stems {
      let pieces = stemFiles(stems).map {
        var track = Track(url: URL(fileURLWithPath: $0), loopCount: loop)
        track.tempo = tempo
        return track
      }
      try music.play(stems: pieces)
      say("stems: \(pieces.map(\.name).joined(separator: ", ")), started on one frame")
    } else {
      music.play(tracks, from: seek)
    }
    var stingers = try stinger.map { try TimedRequest($0, option: "stinger") }
    var transitions = try transition.map { try TimedRequest($0, option: "transition") }
    var stopping = false
    while !finished {
      try await Task.sleep(for: .milliseconds(20))
      engine.session.mailbox.drain()  // this loop is the game thread: it drains the mailbox
      let heard = music.currentTime ?? 0
      while let index = stingers.firstIndex(where: { heardSince != nil && heard >= $0.seconds }) {
        let request = stingers.remove(at: index)
        do {
          let sound = try Sound(contentsOf: URL(fileURLWithPath: request.file), engine: engine)
          let voice = try music.playStinger(sound, at: request.moment)
          let frame = music.frame(of: request.moment)?.index ?? voice.startFrame?.index ?? 0
          say(
            String(
              format: "stinger %@ asked at %.3f s: lands on the %@ at frame %d", request.file, heard,
              "\(request.moment)", frame))
        } catch {
          failures += 1
          FileHandle.standardError.write(Data("foley-demo: stinger \(request.file): \(error)\n".utf8))
        }
      }
      while let index = transitions.firstIndex(where: { heardSince != nil && heard >= $0.seconds }) {
        let request = transitions.remove(at: index)
        var track = Track(url: URL(fileURLWithPath: request.file), loopCount: loop)
        track.tempo = tempo
        do {
          let frame = music.frame(of: request.moment)?.index ?? 0
          try music.transition(to: track, at: request.moment)
          say(
            String(
              format: "transition to %@ asked at %.3f s: on the %@ at frame %d", request.file, heard,
              "\(request.moment)", frame))
        } catch {
          failures += 1
          FileHandle.standardError.write(Data("foley-demo: transition \(request.file): \(error)\n".utf8))
        }
      }
      if let seconds, let heardSince, !stopping, ContinuousClock.now - heardSince >= .seconds(seconds) {
        stopping = true
        music.stop(tween: 0.5)
      }
    }
    await engine.waitUntilSilent(upTo: 2)
    if music.underrunFrames > 0 { say("underruns: \(music.underrunFrames) frames of silence") }
    if failures > 0 { throw ExitCode(1) }
  }
}
