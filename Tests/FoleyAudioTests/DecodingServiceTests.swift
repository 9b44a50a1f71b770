import CFoleyCodecs
import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Isolated decoding runs in one long-lived service process (the game's own executable, started
/// again small), not in a fork per sound: many decodes, one process; a crash ends only it, the
/// next decode starts another; it dies with the game.
@MainActor
@Suite("The decoding service", .serialized)
struct DecodingServiceTests {
  static func name(of pid: Int32) -> String? {
    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(
      in: .whitespacesAndNewlines)
  }

  /// Waits (generously) until no prewarm's start of the service is under way: an engine that
  /// opens starts one, and the tests below count the service's starts and name its process.
  static func settle() {
    #expect(waitUntil(timeout: 120) { foley_service_starting() == 0 }, "the service's start never ended")
  }

  /// Ends the running service, as a crash does, so that the next job or prewarm starts another.
  /// The bytes differ each time (`frequency`): an engine remembers a sound that failed.
  static func crashService(_ engine: AudioEngine, frequency: Double = 440) {
    withEnvironment(["FOLEY_DECODER_FAULTS": "1"]) {
      _ = try? Sound(
        data: Data("FOLEY-FAULT:SEGV".utf8) + makeToneWAV(frequency: frequency, duration: 0.1),
        name: "crash.wav", engine: engine)
    }
  }

  @Test("twenty sounds decode in one service process, a fresh small one named foley-decoder")
  func oneProcessForManyDecodes() throws {
    let audio = try EmbeddedAudio()
    Self.settle()
    _ = try audio.engine.sound(data: makeToneWAV(frequency: 300, duration: 0.05), name: "first.wav")
    let starts = foley_service_starts()
    let pid = foley_service_pid()
    #expect(pid > 0 && pid != getpid())
    #expect(Self.name(of: pid) == "foley-decoder")
    for index in 0..<20 {
      let sound = try audio.engine.sound(
        data: makeToneWAV(frequency: 310 + Double(index), duration: 0.05), name: "tone-\(index).wav")
      #expect(sound.duration > 0.04)
    }
    #expect(foley_service_starts() == starts)
    #expect(foley_service_pid() == pid)
    // Not a copy of the game: it holds far less memory than the test process does.
    #expect(residentBytes(of: pid) > 0 && residentBytes(of: pid) < residentBytes())
  }

  @Test("a crash ends the service, the sound fails typed, and the next decode starts a new service")
  func crashRestartsTheService() throws {
    let audio = try EmbeddedAudio()
    Self.settle()
    _ = try audio.engine.sound(data: makeToneWAV(frequency: 300, duration: 0.05), name: "warm.wav")
    let starts = foley_service_starts()
    let before = foley_service_pid()
    withEnvironment(["FOLEY_DECODER_FAULTS": "1"]) {
      let bytes = Data("FOLEY-FAULT:SEGV".utf8) + makeToneWAV(frequency: 440, duration: 0.1)
      let error = #expect(throws: SoundError.self) {
        try Sound(data: bytes, name: "crash.wav", engine: audio.engine)
      }
      #expect(error?.code == .decoderCrashed)
      #expect(error?.message.contains("signal 11") == true)
    }
    #expect(foley_service_pid() == 0)
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 500, duration: 0.05), name: "after.wav")
    #expect(sound.duration > 0.04)
    #expect(foley_service_starts() == starts + 1)
    #expect(foley_service_pid() != before && foley_service_pid() > 0)
  }

  @Test("a new service keeps none of the game's descriptors open: a pipe the game made is not held by it")
  func serviceInheritsNoDescriptors() throws {
    let audio = try EmbeddedAudio()
    Self.settle()
    // A pipe the game holds (not close-on-exec, as Foundation's Pipe makes them) when the service
    // starts: before, the service kept it open for its life, and a reader of the pipe never saw
    // its end (a test of a child process hung on it).
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    func target(_ path: String) -> String? {
      var buffer = [CChar](repeating: 0, count: 256)
      let count = readlink(path, &buffer, buffer.count - 1)
      return count > 0
        ? String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
    let pipeName = try #require(target("/proc/self/fd/\(ends[1])"))
    // Crash the running service so the next decode starts a new one with the pipe open.
    Self.crashService(audio.engine)
    _ = try audio.engine.sound(data: makeToneWAV(frequency: 520, duration: 0.05), name: "fresh.wav")
    let service = foley_service_pid()
    #expect(service > 0)
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(service)/fd")) ?? []
    #expect(!descriptors.isEmpty)
    let held = descriptors.filter { target("/proc/\(service)/fd/\($0)") == pipeName }
    #expect(held.isEmpty, "the service holds the game's pipe as fd \(held)")
  }

  @Test(
    "an engine opening starts the service; a small game's decodes meanwhile run in a forked child, a large game's wait"
  )
  func decodesWhileTheServiceStarts() throws {
    let audio = try EmbeddedAudio(limiter: false)
    Self.settle()
    #expect(foley_service_pid() > 0, "opening the engine started no service")
    // Each decode has bytes of its own: the engine would hand back a sound it has already.
    let reference = try audio.engine.sound(
      data: makeToneWAV(frequency: 650, duration: 0.2), name: "reference.wav")
    // A start that takes 3 s (the fault), begun as an engine's opening begins it.
    func startSlowly(forkingUpTo mebibytes: Int, _ body: () throws -> Void) throws {
      Self.crashService(audio.engine, frequency: 400 + Double(mebibytes % 100))
      #expect(foley_service_pid() == 0)
      try withEnvironment([
        "FOLEY_DECODER_FAULTS": "slow-start", "FOLEY_DECODER_FORK_LIMIT_MIB": "\(mebibytes)",
      ]) {
        foley_service_prewarm(512 << 20)
        // Spawned (the environment above copied into it), still starting.
        #expect(waitUntil(timeout: 60) { foley_service_pid() != 0 || foley_service_starting() == 0 })
        try body()
      }
      Self.settle()
    }
    // Small enough (a bound above this process): the decode does not wait for the start.
    var starts = foley_service_starts()
    var forks = foley_service_forks_while_starting()
    try startSlowly(forkingUpTo: 1 << 20) {
      let early = try audio.engine.sound(data: makeToneWAV(frequency: 600, duration: 0.2), name: "early.wav")
      #expect(foley_service_starting() != 0, "the decode waited for the service")
      #expect(early.duration == reference.duration)
      let voice = audio.engine.play(early)
      #expect(audio.advance(until: { voice.isFinished }))
      let range = try #require(audio.left.audibleRange())
      #expect(
        abs(audio.left.frequency(in: (range.lowerBound + 1_000)..<(range.upperBound - 1_000)) - 600) < 2)
      // A track's check forks too, and its child's report reaches the game (it once did not:
      // the report was written in the child's copy of the caller's memory).
      let track = Track(data: makeToneWAV(frequency: 500, duration: 0.3), name: "early.wav")
      guard case .passed = TrackChecker(isolated: true, timeout: 30).check(track, at: nil) else {
        Issue.record("a good track failed its check while the service started")
        return
      }
      let bad = Track(data: Data("not a track at all".utf8), name: "bad.ogg")
      guard case .failed(let error) = TrackChecker(isolated: true, timeout: 30).check(bad, at: nil) else {
        Issue.record("bytes that are no track passed their check")
        return
      }
      #expect(error.code == .undecodable)
    }
    // At least this one (another suite's decode in those 3 s forks too).
    #expect(foley_service_forks_while_starting() >= forks + 1)
    #expect(foley_service_starts() == starts + 1)
    // Too large to fork (a bound of 0): the decode waits for the service and runs in it.
    starts = foley_service_starts()
    forks = foley_service_forks_while_starting()
    try startSlowly(forkingUpTo: 0) {
      let late = try audio.engine.sound(data: makeToneWAV(frequency: 620, duration: 0.2), name: "late.wav")
      #expect(foley_service_starting() == 0)
      #expect(late.duration == reference.duration)
    }
    #expect(foley_service_forks_while_starting() == forks)
    #expect(foley_service_starts() == starts + 1)
    #expect(Self.name(of: foley_service_pid()) == "foley-decoder")
  }

  @Test("the service dies with the game: killed mid-decode, a foley-demo leaves no decoder behind")
  func serviceDiesWithTheGame() throws {
    let demo = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("foley-demo")
    try #require(
      FileManager.default.isExecutableFile(atPath: demo.path), "build foley-demo first (test.sh does)")
    // A decoder that spins for ever (fault injection): only the game's death can end the service
    // before the decode's 10 s timeout, and nothing at all would end an orphan.
    let long = temporaryFile("hang.wav")
    defer { try? FileManager.default.removeItem(at: long) }
    try (Data("FOLEY-FAULT:HANG".utf8) + makeToneWAV(frequency: 220, duration: 0.1)).write(to: long)
    let process = Process()
    process.executableURL = demo
    process.arguments = ["play", long.path]
    var environment = ProcessInfo.processInfo.environment
    environment["SDL_AUDIODRIVER"] = "dummy"
    environment["FOLEY_DECODER_FAULTS"] = "1"
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // The demo's decoder service: a child of the demo named foley-decoder.
    func decoderChild() -> Int32? {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      for entry in entries {
        guard let pid = Int32(entry), Self.name(of: pid) == "foley-decoder",
          let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, Int32(fields[1]) == process.processIdentifier { return pid }
      }
      return nil
    }
    var child: Int32?
    #expect(
      waitUntil(timeout: 30) {
        child = decoderChild(); return child != nil
      })
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let orphan = try #require(child)
    // Gone within 5 s (a zombie reaped by init counts as gone once it is no longer there).
    #expect(waitUntil(timeout: 5) { kill(orphan, 0) != 0 && errno == ESRCH })
  }
}

/// Music streams decode in a streaming service of their own: a decoder that crashes while a track
/// plays (after its check passed) ends only that service; the track fails typed and the next plays.
@MainActor
@Suite("The streaming service", .serialized)
struct StreamingServiceTests {
  @Test(
    "a track that crashes its decoder mid-stream fails typed; the game plays on, and the next track plays")
  func crashWhileStreamingIsContained() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let music = audio.engine.music
    var failure: SoundError?
    var started: [String] = []
    music.observe { event in
      switch event {
      case .failed(_, let error): failure = error
      case .trackChanged(let playing): started.append(playing.title)
      default: break
      }
    }
    // Checked cleanly (the check decodes it to its end), then crashes the first streamed read.
    let poisoned = makeToneWAV(frequency: 440, duration: 1) + Data("FOLEY-FAULT:LATE".utf8)
    withEnvironment(["FOLEY_DECODER_FAULTS": "1"]) {
      music.play(Track(data: poisoned, name: "poisoned.wav"))
      #expect(audio.advance(until: { failure != nil }, limit: 5, stepping: scene))
    }
    #expect(failure?.message.contains("signal 11") == true, "\(String(describing: failure))")
    // The game is alive; the next track gets a new streaming service and is heard.
    music.play(Track(data: makeToneWAV(frequency: 660, duration: 1), name: "next.wav"))
    #expect(audio.advance(until: { started.contains("next.wav") }, limit: 5, stepping: scene))
    audio.advance(seconds: 0.3, stepping: scene)
    let service = audio.engine.streamFiller.streamingService.processID
    #expect(service > 0 && service != getpid())
    let heard = audio.left.frequency(in: (audio.frames - 4_800)..<audio.frames)
    #expect(abs(heard - 660) < 5, "heard \(heard) Hz")
  }

  /// The memory limit of process `pid`, from `/proc/<pid>/limits` (nil if unlimited): its address
  /// space on the Linux seam, its private writable memory on the POSIX seam (which cannot tell
  /// the address space).
  static func addressSpaceLimit(of pid: Int32) -> Int? {
    let name = String(cString: foley_platform_name()) == "linux" ? "Max address space" : "Max data size"
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
    else { return nil }
    return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
  }

  /// The music events a test has seen.
  final class HeardEvents {
    var events: [MusicEvent] = []
  }

  /// Starts the two-track playlist the service tests interrupt (first.wav, 440 Hz for 3 s, then
  /// second.wav, 660 Hz for 1 s) and plays a second of it; its events go to the returned record.
  static func startPlaylist(_ audio: EmbeddedAudio) -> HeardEvents {
    let heard = HeardEvents()
    audio.engine.music.observe { heard.events.append($0) }
    audio.engine.music.play([
      Track(data: makeToneWAV(frequency: 440, duration: 3), name: "first.wav"),
      Track(data: makeToneWAV(frequency: 660, duration: 1), name: "second.wav"),
    ])
    audio.advance(seconds: 1)
    return heard
  }

  /// Advances until that playlist has finished: both tracks started, in order, and nothing failed.
  static func expectPlaylistEnds(_ audio: EmbeddedAudio, _ heard: HeardEvents) {
    let finished = audio.advance(
      until: {
        audio.engine.music.deliverEvents()
        return heard.events.contains(.finished)
      }, limit: 5)
    #expect(finished)
    let seen = heard.events
    let failures = seen.filter { if case .failed = $0 { true } else { false } }
    #expect(failures.isEmpty, "\(failures)")
    let started = seen.compactMap { event -> String? in
      if case .trackChanged(let now) = event { return now.title }
      return nil
    }
    #expect(started == ["first.wav", "second.wav"])
  }

  @Test(
    "a streaming service killed between reads (as by an out-of-memory killer): the track goes on, the next plays"
  )
  func serviceKilledBetweenReads() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let music = audio.engine.music
    let playlist = Self.startPlaylist(audio)
    let service = audio.engine.streamFiller.streamingService
    let killed = service.processID
    try #require(killed > 0)
    let limit = Self.addressSpaceLimit(of: killed)
    // The embedded mixer refills only while it is advanced: no request is in flight now.
    kill(killed, SIGKILL)
    #expect(
      waitUntil {
        (try? String(contentsOfFile: "/proc/\(killed)/stat", encoding: .utf8))?.contains(") Z") != false
      })
    // The first track goes on from where it was, in a new service with the same limits.
    audio.advance(seconds: 1)
    let heard = audio.left.frequency(in: (audio.frames - 4_800)..<audio.frames)
    #expect(abs(heard - 440) < 5, "heard \(heard) Hz after the kill")
    let restarted = service.processID
    #expect(restarted > 0 && restarted != killed)
    // The same room to decode in: a restart once took its current size as its whole limit.
    let restartedLimit = Self.addressSpaceLimit(of: restarted)
    #expect(restartedLimit == limit, "the new service's address space is limited otherwise")
    #expect((restartedLimit ?? 0) > 256 << 20, "the new service may map \(restartedLimit ?? 0) bytes")
    Self.expectPlaylistEnds(audio, playlist)
    #expect(music.underrunFrames == 0)
  }

  @Test(
    "a streaming service stopped (SIGSTOP) is replaced within a second, and the playlist goes on where it was"
  )
  func serviceStoppedMidTrack() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let playlist = Self.startPlaylist(audio)
    let service = audio.engine.streamFiller.streamingService
    let stopped = service.processID
    try #require(stopped > 0)
    kill(stopped, SIGSTOP)
    defer { kill(stopped, SIGCONT) }
    // The next refill's read finds its service stopped: it is killed and the stream reopened in
    // a new one at the frame it had reached (before, the read waited out its timeout and the
    // playlist ended).
    #expect(
      waitUntil(timeout: 20) {
        audio.advance(seconds: 0.02); return service.processID != stopped
      })
    audio.advance(seconds: 0.5)
    let heard = audio.left.frequency(in: (audio.frames - 4_800)..<audio.frames)
    #expect(abs(heard - 440) < 5, "heard \(heard) Hz after the stop")
    Self.expectPlaylistEnds(audio, playlist)
  }

  @Test(
    "an engine closing while its stream read hangs in its streaming service gives up at once, not after the read's 5 s timeout; another engine's music plays on"
  )
  func closeDuringHungRead() throws {
    // A track that checks cleanly and then hangs every streamed read (a decoder stuck in a loop).
    let stuck = makeToneWAV(frequency: 440, duration: 1) + Data("FOLEY-FAULT:HANG".utf8)
    try withEnvironment(["FOLEY_DECODER_FAULTS": "1", "SDL_AUDIODRIVER": "dummy"]) {
      // A second engine's music streams all along, in a service of its own.
      let other = try EmbeddedAudio(limiter: false)
      var otherEvents: [MusicEvent] = []
      other.engine.music.observe { otherEvents.append($0) }
      other.engine.music.play(Track(data: makeToneWAV(frequency: 660, duration: 30), name: "other.wav"))
      #expect(
        other.advance(until: {
          other.engine.music.deliverEvents();
          return otherEvents.contains { if case .trackChanged = $0 { true } else { false } }
        }))
      let engine = try AudioEngine(session: AudioSession())
      let service = engine.streamFiller.streamingService
      engine.music.play(Track(data: stuck, name: "stuck.wav"))
      #expect(waitUntil { service.readsWaiting == 1 }, "the first read never reached the service")
      let pid = service.processID
      #expect(pid > 0 && pid != other.engine.streamFiller.streamingService.processID)
      // While one engine's read hangs, the other's music is heard (1 s of it, more than the
      // half second a stream keeps buffered).
      other.advance(seconds: 1)
      let heard = other.left.frequency(in: (other.frames - 4_800)..<other.frames)
      #expect(abs(heard - 660) < 5, "heard \(heard) Hz")
      let clock = ContinuousClock()
      let closing = clock.now
      engine.close()
      let took = clock.now - closing
      // The read's own timeout is 5 s; giving up takes 100 ms of grace, then the service is killed.
      #expect(took < .seconds(3), "close took \(took)")
      #expect(service.readsWaiting == 0 && service.processID == 0)
      #expect(kill(pid, 0) != 0, "the stuck service is still alive")
      other.engine.music.deliverEvents()
      #expect(other.engine.music.underrunFrames == 0)
      #expect(!otherEvents.contains { if case .failed = $0 { true } else { false } }, "\(otherEvents)")
    }
  }
}
