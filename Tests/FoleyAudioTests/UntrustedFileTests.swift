import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Files a game or a player supplies that are not what they claim: a FIFO where a sound or a
/// track should be, a huge sparse file, a track declaring 1 Hz, a loop one sample long. Each is a
/// quick, typed error (or a safe fallback), and nothing blocks or bloats the game.
@MainActor
@Suite("Untrusted files", .serialized)
struct UntrustedFileTests {
  static func folder() throws -> URL {
    let folder = temporaryFile("untrusted")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  @Test("a FIFO named as a sound or a track is refused at once, without blocking on its open")
  func fifoIsRefused() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let fifo = folder.appendingPathComponent("pipe.wav")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let audio = try EmbeddedAudio(assetRoots: [folder])
    // Nobody writes to the FIFO: an open that blocked would never return, and the test would hang.
    let error = #expect(throws: SoundError.self) { try audio.engine.sound(named: "pipe.wav") }
    #expect(error?.code == .unreadable)
    #expect(error?.message.contains("not a regular file") == true)
    let trackError = #expect(throws: SoundError.self) { try audio.engine.music.check(Track(url: fifo)) }
    #expect(trackError?.message.contains("not a regular file") == true)
  }

  @Test("a 2 GB sparse file as a sound is refused before a byte is read")
  func hugeSparseFileIsRefused() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let huge = folder.appendingPathComponent("huge.wav")
    #expect(
      FileManager.default.createFile(atPath: huge.path, contents: makeToneWAV(frequency: 440, duration: 0.1)))
    #expect(truncate(huge.path, 2 << 30) == 0)  // sparse: no disk, 2 GiB long
    let audio = try EmbeddedAudio(assetRoots: [folder])
    let error = #expect(throws: SoundError.self) { try audio.engine.sound(named: "huge.wav") }
    #expect(error?.code == .tooLong)
    #expect(error?.message.contains("2147483648 bytes") == true)
    let direct = #expect(throws: SoundError.self) { try Sound(contentsOf: huge, engine: audio.engine) }
    #expect(direct?.code == .tooLong)
  }

  @Test("a track whose header declares 1 Hz is refused before it is converted")
  func oneHertzTrackIsRefused() throws {
    // 8,000 frames at a declared 1 Hz: SDL's converter would make 2.7 GB of one second of it.
    let bytes = makeWAV(samples: [Int16](repeating: 1_000, count: 8_000), sampleRate: 1, channels: 1)
    let audio = try EmbeddedAudio()
    let error = #expect(throws: SoundError.self) {
      try audio.engine.music.check(Track(data: bytes, name: "one-hertz.wav"))
    }
    #expect(error?.message.contains("1 Hz") == true)
    // Played anyway, it fails typed (delivered at the attached scene's update) and nothing plays.
    let scene = Scene()
    audio.engine.attach(to: scene)
    var failure: SoundError?
    audio.engine.music.observe { if case .failed(_, let error) = $0 { failure = error } }
    audio.engine.music.play(Track(data: bytes, name: "one-hertz.wav"))
    #expect(audio.advance(until: { failure != nil }, stepping: scene))
    #expect(failure?.message.contains("1 Hz") == true)
    #expect(audio.engine.statistics.activeVoices == 0)
  }

  @Test("a loop region shorter than 20 ms loops the whole track; a looping track that short is refused")
  func degenerateLoopsAreDefused() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let tone = makeToneWAV(frequency: 440, duration: 0.5)
    let nowPlaying = try audio.engine.music.check(
      Track(data: tone, name: "tone.wav", loopCount: -1, loopRegion: 0.1..<0.10001))
    #expect(nowPlaying.loopRegion == 0..<0.5)
    let blip = makeToneWAV(frequency: 440, duration: 0.001)
    let error = #expect(throws: SoundError.self) {
      try audio.engine.music.check(Track(data: blip, name: "blip.wav", loopCount: -1))
    }
    #expect(error?.message.contains("shorter than 20 ms") == true)
  }

  @Test(
    "a track replaced on disk after its check (same size, its time put back) still plays what was checked")
  func replacedTrackPlaysTheCheckedBytes() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("theme.wav")
    try makeToneWAV(frequency: 440, duration: 2).write(to: url)
    let audio = try EmbeddedAudio(limiter: false)
    _ = try audio.engine.music.check(Track(url: url))
    // Swapped for other audio of the same size, with the modification time put back: a verdict
    // kept by path, size and time would let these bytes stream unchecked.
    var before = stat()
    #expect(stat(url.path, &before) == 0)
    let replacement = [UInt8](makeToneWAV(frequency: 880, duration: 2))
    let file = open(url.path, O_WRONLY)
    #expect(replacement.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 0) } == replacement.count)
    close(file)
    var times = [before.st_atim, before.st_mtim]
    #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)  // to the nanosecond
    var after = stat()
    #expect(stat(url.path, &after) == 0 && after.st_size == before.st_size)
    audio.engine.music.play(Track(url: url))
    audio.advance(seconds: 0.5)
    let heard = audio.left.frequency(in: (audio.frames - 9_600)..<audio.frames)
    #expect(abs(heard - 440) < 5, "heard \(heard) Hz")
  }

  @Test(
    "a track's file turned into a FIFO under a playing stream: a seek neither blocks nor fails, and close returns"
  )
  func seekAfterTheFileBecameAFIFO() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("theme.wav")
    try makeToneWAV(frequency: 440, duration: 2).write(to: url)
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    audio.engine.music.play(Track(url: url))
    audio.advance(seconds: 0.3, stepping: scene)
    try FileManager.default.removeItem(at: url)
    #expect(mkfifo(url.path, 0o600) == 0)
    var sought: Bool?
    audio.engine.music.seek(to: 1.0) { sought = $0 }
    #expect(audio.advance(until: { sought != nil }, stepping: scene))
    #expect(sought == true)
    audio.engine.close()
    #expect(audio.engine.isClosed)
  }
}
