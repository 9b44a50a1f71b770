internal import CFoleySDL2
import FoleyAudio
import FoleyRecording
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Records from SDL's disk capture driver, fed a generated signal, and checks the WAV that lands.
@MainActor
@Suite("Recording (disk capture driver)", .serialized)
struct RecorderTests {
  /// Runs `body` with SDL capturing from a raw file holding `samples`.
  func withCapture<T>(_ samples: Data, _ body: () throws -> T) throws -> T {
    let input = temporaryFile("in.raw")
    try samples.write(to: input)
    defer { try? FileManager.default.removeItem(at: input) }
    return try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILEIN": input.path]) { try body() }
  }

  func waitUntilStopped(_ recorder: AudioRecorder) {
    waitUntil { recorder.state == .stopped }
  }

  /// SDL's own WAV reader: the "standard tool" the files must satisfy.
  func loadWithSDL(_ url: URL) -> (spec: SDL_AudioSpec, bytes: Int)? {
    let started = SDL_WasInit(SDL_INIT_AUDIO) == 0 && SDL_InitSubSystem(SDL_INIT_AUDIO) == 0
    defer { if started { SDL_QuitSubSystem(SDL_INIT_AUDIO) } }
    var spec = SDL_AudioSpec()
    var buffer: UnsafeMutablePointer<UInt8>?
    var length: UInt32 = 0
    guard SDL_LoadWAV_RW(SDL_RWFromFile(url.path, "rb"), 1, &spec, &buffer, &length) != nil else {
      return nil
    }
    SDL_FreeWAV(buffer)
    return (spec, Int(length))
  }

  @Test(
    "the WAV holds the input sample for sample, with the right header, in every supported format",
    arguments: [
      RecordingFormat(sampleRate: 48_000, channels: 1, sampleFormat: .signed16),
      RecordingFormat(sampleRate: 48_000, channels: 2, sampleFormat: .signed16),
      RecordingFormat(sampleRate: 44_100, channels: 2, sampleFormat: .float32),
      RecordingFormat(sampleRate: 22_050, channels: 1, sampleFormat: .float32),
    ])
  func samplesEqualInput(format: RecordingFormat) throws {
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: format.sampleRate, channels: format.channels,
      float: format.sampleFormat == .float32)
    let url = temporaryFile("take.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    let summary = try withCapture(input) {
      let recorder = try AudioRecorder(url: url, format: format, session: nil)
      #expect(recorder.format == format)
      try recorder.record(forDuration: 0.25)
      waitUntilStopped(recorder)
      return recorder.stop()
    }
    let frames = Int((0.25 * Double(format.sampleRate)).rounded())
    #expect(summary.error == nil)
    #expect(summary.frames == frames)
    let info = try WAVFile.info(at: url)
    #expect(info.format == format)
    #expect(info.frames == frames && info.isConsistent)
    let file = try Data(contentsOf: url)
    #expect(file[info.dataOffset...] == input.prefix(frames * format.bytesPerFrame))
    let loaded = try #require(loadWithSDL(url))
    #expect(Int(loaded.spec.freq) == format.sampleRate && Int(loaded.spec.channels) == format.channels)
    #expect(loaded.bytes == frames * format.bytesPerFrame)
  }

  @Test("meters read a known sine's level within 0.1 dB while recording")
  func meters() throws {
    // 1 kHz at 48 kHz: 48 samples a cycle, so a crest sample is exactly the amplitude.
    let input = makeRawSignal(
      frequency: 1_000, amplitude: 0.5, seconds: 2, sampleRate: 48_000, channels: 2, float: false)
    let url = temporaryFile("meter.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    try withCapture(input) {
      let recorder = try AudioRecorder(
        url: url, format: RecordingFormat(sampleRate: 48_000, channels: 2), session: nil)
      #expect(recorder.averagePower(forChannel: 0) == -160)
      try recorder.record()
      // Two meter windows of the sine after the first 0.2 s.
      #expect(waitUntil { recorder.currentTime > 0.3 })
      // Amplitude 0.5: peak 20·log10(0.5) = -6.02 dBFS; RMS 0.5/√2 → -9.03 dBFS.
      #expect(abs(recorder.peakPower(forChannel: 0) - 20 * log10(0.5 * 32767 / 32768)) < 0.1)
      #expect(abs(recorder.averagePower(forChannel: 0) - 20 * log10(0.5 / 2.0.squareRoot())) < 0.1)
      #expect(abs(recorder.averagePower(forChannel: 1) - 20 * log10(0.5 / 2.0.squareRoot())) < 0.1)
      #expect(recorder.averagePower(forChannel: 2) == -160)
      #expect(recorder.isRecording && recorder.currentTime > 0.2)
      recorder.stop()
    }
  }

  @Test("an existing file is refused and left alone unless .overwrite is given")
  func overwriteRefusal() throws {
    let url = temporaryFile("exists.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    try Data("keep me".utf8).write(to: url)
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000, channels: 1, float: false)
    try withCapture(input) {
      #expect(throws: RecordingError.fileExists(url)) { try AudioRecorder(url: url, session: nil) }
      #expect(try Data(contentsOf: url) == Data("keep me".utf8))
      #expect("\(RecordingError.fileExists(url))".contains(url.lastPathComponent))
      let recorder = try AudioRecorder(url: url, options: .overwrite, session: nil)
      try recorder.record(forDuration: 0.1)
      waitUntilStopped(recorder)
      #expect(try WAVFile.info(at: url).frames == 4_800)
    }
  }

  @Test("overwrite never writes through a symbolic link, never blocks on a FIFO, and replaces only files")
  func overwriteRefusesLinksAndFIFOs() throws {
    let target = temporaryFile("target.txt")
    let link = temporaryFile("link.wav")
    let fifo = temporaryFile("fifo.wav")
    defer {
      for url in [target, link, fifo] { try? FileManager.default.removeItem(at: url) }
    }
    try Data("someone else's file".utf8).write(to: target)
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    #expect(mkfifo(fifo.path, 0o644) == 0)
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000, channels: 1, float: false)
    try withCapture(input) {
      for url in [link, fifo] {
        let recorder = try AudioRecorder(url: url, options: .overwrite, session: nil)
        let clock = ContinuousClock()
        let started = clock.now
        #expect {
          try recorder.record(forDuration: 0.1)
        } throws: { error in
          guard case RecordingError.cannotCreate(let failed, let message) = error else { return false }
          return failed == url
            && (message.contains("symbolic link") || message.contains("not a regular file"))
        }
        #expect(clock.now - started < .seconds(5), "refusing \(url.lastPathComponent) took too long")
      }
    }
    #expect(try Data(contentsOf: target) == Data("someone else's file".utf8))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == target.path)
  }

  @Test("a file that cannot be created gives a clear error naming it")
  func unwritableTarget() throws {
    let url = URL(fileURLWithPath: "/proc/foley-cannot-write-here.wav")
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000, channels: 1, float: false)
    try withCapture(input) {
      let recorder = try AudioRecorder(url: url, session: nil)
      #expect {
        try recorder.record()
      } throws: { error in
        guard case RecordingError.cannotCreate(let failed, _) = error else { return false }
        return failed == url && "\(error)".contains(url.path)
      }
      #expect(recorder.state == .prepared)
    }
  }

  @Test("a full disk (file-size limit) stops the take with a typed error and leaves a valid file")
  func writeFailureLeavesValidFile() throws {
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: 48_000, channels: 1, float: false)
    let url = temporaryFile("full.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    // __rlimit_resource_t(RLIMIT_FSIZE.rawValue) makes write() fail with EFBIG past 40,000 bytes, as a full disk fails with
    // ENOSPC; SIGXFSZ is ignored so the failure comes back as an error instead of a signal.
    var saved = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &saved)
    let previousHandler = Glibc.signal(SIGXFSZ, SIG_IGN)
    defer {
      setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &saved)
      Glibc.signal(SIGXFSZ, previousHandler)
    }
    let summary = try withCapture(input) {
      let recorder = try AudioRecorder(url: url, session: nil)
      var limit = rlimit(rlim_cur: 40_000, rlim_max: saved.rlim_max)
      setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
      try recorder.record(forDuration: 1.5)
      waitUntilStopped(recorder)
      setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &saved)
      return recorder.stop()
    }
    guard case .writeFailed(let failed, let message) = summary.error else {
      Issue.record("expected writeFailed, got \(String(describing: summary.error))")
      return
    }
    #expect(failed == url && !message.isEmpty)
    let info = try WAVFile.info(at: url)
    #expect(info.isConsistent)
    #expect(info.frames == summary.frames)
    #expect(info.frames > 15_000 && info.frames <= (40_000 - 44) / 2)
    let file = try Data(contentsOf: url)
    #expect(file[44...] == input.prefix(info.frames * 2))
    #expect(loadWithSDL(url)?.bytes == info.frames * 2)
  }

  /// Starts `foley-demo record` for 30 s in a process of its own, capturing `samples` (48 kHz
  /// mono s16) from SDL's disk driver. The caller removes `input` and `output`.
  func startRecordCommand(_ name: String, samples: Data) throws -> (process: Process, input: URL, output: URL)
  {
    let demo = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("foley-demo")
    try #require(
      FileManager.default.isExecutableFile(atPath: demo.path), "build foley-demo first (test.sh does)")
    let input = temporaryFile("\(name)-in.raw")
    let output = temporaryFile("\(name).wav")
    try samples.write(to: input)
    let process = Process()
    process.executableURL = demo
    process.arguments = ["record", output.path, "--seconds", "30"]
    var environment = ProcessInfo.processInfo.environment
    environment["SDL_AUDIODRIVER"] = "disk"
    environment["SDL_DISKAUDIOFILEIN"] = input.path
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      try? FileManager.default.removeItem(at: input)
      throw error
    }
    return (process, input, output)
  }

  @Test("a recording process killed with SIGKILL leaves a readable file; repair recovers the rest")
  func killedProcessLeavesReadableFile() throws {
    let samples = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 10, sampleRate: 48_000, channels: 1, float: false)
    let (process, inputFile, url) = try startRecordCommand("killed", samples: samples)
    defer {
      try? FileManager.default.removeItem(at: inputFile)
      try? FileManager.default.removeItem(at: url)
    }
    // Kill once more than a second has been captured.
    #expect(waitUntil { ((try? WAVFile.info(at: url))?.framesOnDisk ?? 0) >= 72_000 })
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    let info = try WAVFile.info(at: url)
    // Sizes were patched within the last half second (+ one drain): nearly all is readable.
    #expect(info.frames >= 48_000)
    #expect(info.framesOnDisk - info.frames <= 48_000)
    #expect(loadWithSDL(url)?.bytes == info.frames * 2)
    let repaired = try WAVFile.repair(at: url)
    #expect(repaired.isConsistent && repaired.frames == info.framesOnDisk)
    #expect(try WAVFile.info(at: url).frames == info.framesOnDisk)
    #expect(loadWithSDL(url)?.bytes == repaired.frames * 2)
    #expect(try Data(contentsOf: url)[44...] == samples.prefix(repaired.frames * 2))
  }

  @Test("recording pauses with the session and resumes with it, losing nothing")
  func followsSession() throws {
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: 48_000, channels: 1, float: false)
    let url = temporaryFile("session.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    let session = AudioSession()
    try withCapture(input) {
      let recorder = try AudioRecorder(url: url, session: session)
      try recorder.record()
      #expect(waitUntil { recorder.currentTime > 0.2 })
      session.deactivate(reason: .focusLost)
      #expect(recorder.state == .paused)
      let atPause = recorder.currentTime
      // Nothing can land while paused: SDL holds the capture device paused, so its callback (the
      // only writer) does not run until the session is back.
      #expect(SDL_GetAudioDeviceStatus(recorder.deviceID) == SDL_AUDIO_PAUSED)
      #expect(recorder.currentTime == atPause)
      session.activate(reason: .focusLost)
      #expect(SDL_GetAudioDeviceStatus(recorder.deviceID) == SDL_AUDIO_PLAYING)
      #expect(recorder.isRecording)
      #expect(waitUntil { recorder.currentTime > atPause + 0.2 })
      let summary = recorder.stop()
      #expect(summary.frames > Int(atPause * 48_000))
      // Everything captured before the pause is there; after it the take continues from a later
      // point of the input (SDL drops the buffer in flight when a device pauses, as a microphone
      // would go on without us).
      let recorded = try Data(contentsOf: url)[44...].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
      let source = input.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
      let split = zip(recorded, source).prefix { $0 == $1 }.count
      #expect(split >= Int(atPause * 48_000))
      let rest = Array(recorded[split...])
      let resumedAt = (split...(split + 4_800)).first { Array(source[$0..<($0 + rest.count)]) == rest }
      #expect(resumedAt != nil, "the part after the pause is not one unbroken stretch of the input")
    }
  }

  @Test("the recorded file plays back through the engine")
  func playsBack() throws {
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 48_000, channels: 2, float: false)
    let url = temporaryFile("playback.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    try withCapture(input) {
      let recorder = try AudioRecorder(url: url, format: RecordingFormat(channels: 2), session: nil)
      try recorder.record(forDuration: 0.5)
      waitUntilStopped(recorder)
    }
    let engine = try AudioEngine(session: AudioSession())
    defer { engine.close() }
    let sound = try Sound(contentsOf: url, engine: engine)
    #expect(abs(sound.duration - 0.5) < 0.001)
    #expect(!engine.play(sound).isFinished)
  }

  @Test("a recorder dropped without stop() stops and finalises its file instead of recording on")
  func droppedRecorderStops() throws {
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 10, sampleRate: 48_000, channels: 1, float: false)
    let url = temporaryFile("dropped.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    try withCapture(input) {
      var recorder: AudioRecorder? = try AudioRecorder(url: url, session: nil)
      try recorder?.record()
      #expect(waitUntil { (recorder?.currentTime ?? 0) > 0.2 })
      recorder = nil
      // The recorder finishes in its deinit: here, or on its queue if a drain held it just then.
      #expect(waitUntil { (try? WAVFile.info(at: url))?.isConsistent == true })
      #expect(try WAVFile.info(at: url).frames > 9_600)
      // Nothing can write to it any more: no descriptor of the process points at the file.
      #expect(waitUntil { !openFiles().contains(url.resolvingSymlinksInPath().path) })
    }
  }

  @Test("an infinite duration records until stop(); a take of pure zeros is flagged as digital silence")
  func infiniteDurationAndDigitalSilence() throws {
    let zeros = Data(count: 48_000 * 2 * 3)
    let url = temporaryFile("silence.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    let summary = try withCapture(zeros) {
      let recorder = try AudioRecorder(url: url, session: nil)
      try recorder.record(forDuration: .infinity)
      #expect(waitUntil { recorder.currentTime > 0.2 })
      #expect(recorder.isRecording)
      return recorder.stop()
    }
    #expect(summary.error == nil && summary.frames > 9_600)
    #expect(summary.isDigitalSilence)
    #expect("\(summary)".contains("digital silence"))
  }

  @Test("the header covers the first samples as soon as they land, not half a second later")
  func firstPatchComesEarly() throws {
    let input = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 10, sampleRate: 48_000, channels: 1, float: false)
    let url = temporaryFile("early.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    try withCapture(input) {
      let recorder = try AudioRecorder(url: url, session: nil)
      try recorder.record()
      var onDiskWhenPatched = 0
      #expect(
        waitUntil {
          guard let info = try? WAVFile.info(at: url), info.frames > 0 else { return false }
          onDiskWhenPatched = info.framesOnDisk
          return true
        })
      recorder.stop()
      // Patched with the first drain that wrote samples: well under a quarter second of audio.
      #expect(onDiskWhenPatched > 0 && onDiskWhenPatched < 12_000)
    }
  }

  @Test("foley-demo record stops cleanly on SIGTERM (kill), with a valid file of what was recorded")
  func recordCommandStopsOnTerm() throws {
    let samples = makeRawSignal(
      frequency: 440, amplitude: 0.5, seconds: 10, sampleRate: 48_000, channels: 1, float: false)
    let (process, inputFile, url) = try startRecordCommand("term", samples: samples)
    defer {
      try? FileManager.default.removeItem(at: inputFile)
      try? FileManager.default.removeItem(at: url)
    }
    #expect(waitUntil { ((try? WAVFile.info(at: url))?.framesOnDisk ?? 0) >= 24_000 })
    process.terminate()  // SIGTERM
    #expect(waitUntil { !process.isRunning })
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    let info = try WAVFile.info(at: url)
    #expect(info.isConsistent)
    #expect(info.duration >= 0.5 && info.duration < 10)
  }

  @Test("repair patches sizes in place: a LIST chunk before the data stays, and so do the samples")
  func repairKeepsOtherChunks() throws {
    let url = temporaryFile("list.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    let samples = (0..<4_800).map { Int16(truncatingIfNeeded: $0 * 7) }
    var list = Data("LIST".utf8)
    let info =
      Data("INFOINAM".utf8) + withUnsafeBytes(of: UInt32(6).littleEndian) { Data($0) } + Data("Take\0\0".utf8)
    list += withUnsafeBytes(of: UInt32(info.count).littleEndian) { Data($0) } + info
    var file = Data(WAVHeader(format: RecordingFormat(), frames: 0).bytes)
    // A header never finalised (sizes 0), with a LIST chunk between fmt and data.
    file.insert(contentsOf: list, at: 36)
    samples.withUnsafeBytes { file.append(contentsOf: $0) }
    try file.write(to: url)
    let before = try WAVFile.info(at: url)
    #expect(before.dataOffset == 44 + list.count && before.frames == 0 && !before.isConsistent)
    let repaired = try WAVFile.repair(at: url)
    #expect(repaired.dataOffset == 44 + list.count)
    #expect(repaired.frames == 4_800 && repaired.isConsistent)
    let after = try Data(contentsOf: url)
    #expect(after[36..<(36 + list.count)] == list)
    #expect(after[repaired.dataOffset...].elementsEqual(samples.withUnsafeBytes { Data($0) }))
    #expect(loadWithSDL(url)?.bytes == 4_800 * 2)
  }

  @Test("repair refuses what it does not understand instead of writing over it")
  func repairRefusesUnknownLayouts() throws {
    let url = temporaryFile("rf64.wav")
    defer { try? FileManager.default.removeItem(at: url) }
    var file = Data(WAVHeader(format: RecordingFormat(), frames: 10).bytes) + Data(count: 20)
    file.replaceSubrange(0..<4, with: Data("RF64".utf8))
    try file.write(to: url)
    #expect(throws: WAVError.self) { try WAVFile.repair(at: url) }
    #expect(try Data(contentsOf: url) == file)
  }
}

/// The files the process holds open, as their paths (from /proc/self/fd).
private func openFiles() -> Set<String> {
  let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  return Set(
    descriptors.compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
    })
}
