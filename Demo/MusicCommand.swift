import ArgumentParser
import Foley
import Foundation

/// `foley-demo music FILE... [--crossfade S] [--seek S] [--loop N] [--seconds S]`: streams a
/// playlist through the engine's music player, printing a line per event, and exits when the
/// music has finished (or after --seconds).
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
  var files: [String]

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

  func validate() throws {
    guard crossfade.isFinite, crossfade >= 0, crossfade <= 60 else {
      throw ValidationError("--crossfade must be between 0 and 60 seconds")
    }
    guard seek.isFinite, seek >= 0 else { throw ValidationError("--seek must be 0 or more seconds") }
    guard loop >= -1 else { throw ValidationError("--loop must be -1 (for ever), 0 or more") }
    if let seconds, !(seconds.isFinite && seconds > 0) { throw ValidationError("--seconds must be positive") }
  }

  @MainActor
  func run() async throws {
    let engine = try AudioEngine.forTool("foley.music")
    defer { engine.close() }
    say(engine.deviceLine)
    let music = engine.music
    music.crossfadeDuration = crossfade
    music.isShuffled = shuffle
    music.repeatMode = [.off: .off, .one: .one, .all: .all][self.repeat]!
    var failures = 0
    var finished = false
    // --seconds counts from the first sample heard, not from the request: checking a file first
    // takes a moment, longer on a busy machine.
    var heardSince: ContinuousClock.Instant?
    music.addObserver { event in
      switch event {
      case .trackChanged(let now):
        if heardSince == nil { heardSince = .now }
        let length = now.duration.map { String(format: "%.2f s", $0) } ?? "length unknown"
        let loop =
          now.loopRegion.map { String(format: ", loop %.3f–%.3f s", $0.lowerBound, $0.upperBound) } ?? ""
        say("now playing: \(now.title) (\(length), \(now.format)\(loop))")
      case .looped(let now, let pass):
        say("loop \(pass): \(now.title)")
      case .failed(let track, let error):
        failures += 1
        FileHandle.standardError.write(Data("foley-demo: \(track.name): \(error)\n".utf8))
      case .finished:
        say("finished")
        finished = true
      }
    }
    let tracks = files.map { Track(url: URL(fileURLWithPath: $0), loopCount: loop) }
    music.play(tracks, from: seek)
    var stopping = false
    while !finished {
      try await Task.sleep(for: .milliseconds(20))
      engine.session.mailbox.drain()  // this loop is the game thread: it drains the mailbox
      if let seconds, let heardSince, !stopping, ContinuousClock.now - heardSince >= .seconds(seconds) {
        stopping = true
        music.stop(fadeOut: 0.5)
      }
    }
    if music.underrunFrames > 0 { say("underruns: \(music.underrunFrames) frames of silence") }
    if failures > 0 { throw ExitCode(1) }
  }
}

/// Writes a line to standard output at once (unbuffered, so a pipe sees each event as it happens
/// and in order with the errors).
private func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
