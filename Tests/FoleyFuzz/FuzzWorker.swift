import CFoleyCodecs
import FoleyAudio
import FoleyAudioTesting
import FoleyDemoScript
import FoleyMusic
import FoleyPlatform
import FoleyRecording
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleySoundMap
import Foundation
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// Runs blobs through the three ways a game hands Foley sound bytes — `Sound(data:)`,
/// `engine.sound(data:)` and the `playSound(data:)` action — and prints one line per blob, so the
/// supervisor knows which blob was under way if this process dies or stalls.
@MainActor
enum FuzzWorker {
  static func run(
    mutator: Mutator, start: Int, count: Int, isolated: Bool, target: FuzzTarget, folder: URL?
  ) throws {
    switch target {
    case .sounds: try sounds(mutator: mutator, start: start, count: count, isolated: isolated)
    case .music: try music(mutator: mutator, start: start, count: count, isolated: isolated)
    case .repair: try repair(mutator: mutator, start: start, count: count)
    case .maps: try maps(mutator: mutator, start: start, count: count, folder: folder)
    case .scripts: try scripts(mutator: mutator, start: start, count: count)
    }
  }

  /// Each blob as a track: played with one loop pass, sought twice, stopped. The check runs in the
  /// decoding service first; the streaming decode, with its seeks and loops, in this process.
  static func music(mutator: Mutator, start: Int, count: Int, isolated: Bool) throws {
    let (engine, mixer) = try openEngine(isolated: isolated)
    defer { engine.close() }
    let music = engine.music
    var failed = false
    music.observe { if case .failed = $0 { failed = true } }
    for index in start..<(start + count) {
      emit("start \(index)")
      failed = false
      music.play(Track(data: mutator.blob(index).bytes, name: "blob", loopCount: 1))
      for seek in [0.05, 0.4] {
        mixer.advance(frames: 4_800)
        music.seek(to: seek)
      }
      mixer.advance(frames: 4_800)
      music.stop()
      mixer.advance(frames: 2_048)
      _ = mixer.takeOutput()
      engine.session.mailbox.drain()
      emit("end \(index) \(failed ? "failed" : "ok")")
    }
    emit("rss \(peakKiB(RUSAGE_SELF)) \(max(peakKiB(RUSAGE_CHILDREN), serviceRSSKiB()))")
  }

  /// Each blob as a file: `info` and `repair`. A file `info` calls whole must come out byte for
  /// byte; a repaired one must read as whole, its samples a prefix of what was there.
  static func repair(mutator: Mutator, start: Int, count: Int) throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("foley-fuzz-\(getpid()).wav")
    defer { try? FileManager.default.removeItem(at: url) }
    for index in start..<(start + count) {
      emit("start \(index)")
      let blob = mutator.blob(index).bytes
      try blob.write(to: url)
      var outcome = "ok"
      do {
        let before = try WAVFile.info(at: url)
        let repaired = try WAVFile.repair(at: url)
        let after = try Data(contentsOf: url)
        if before.isConsistent, after != blob {
          outcome = "violation-rewrote-whole-file"
        } else if !(try WAVFile.info(at: url)).isConsistent || repaired.frames > before.framesOnDisk {
          outcome = "violation-repair-incomplete"
        } else if after.count != blob.count || after[before.dataOffset...] != blob[before.dataOffset...] {
          outcome = "violation-samples-changed"
        } else if (try? WAVFile.repair(at: url)) == nil || (try? Data(contentsOf: url)) != after {
          outcome = "violation-repair-not-idempotent"
        }
      } catch {
        outcome = "refused"
      }
      if outcome.hasPrefix("violation") {
        // Kept for a look: the blob as it was before repair.
        try? blob.write(
          to: FileManager.default.temporaryDirectory.appendingPathComponent(
            "foley-fuzz-violation-\(index).wav"))
      }
      emit("end \(index) \(outcome)")
    }
    emit("rss \(peakKiB(RUSAGE_SELF)) 0")
  }

  /// Each blob as a sound map's JSON (sounds found beside the corpus's first map): built, and each
  /// of its first events posted.
  static func maps(mutator: Mutator, start: Int, count: Int, folder: URL?) throws {
    let (engine, mixer) = try openEngine(isolated: true)
    defer { engine.close() }
    let root =
      folder.map { $0.hasDirectoryPath ? $0 : $0.deletingLastPathComponent() }
      ?? URL(fileURLWithPath: ".")
    let scene = Scene()
    engine.attach(to: scene)
    for index in start..<(start + count) {
      emit("start \(index)")
      var outcome = "ok"
      do {
        let json = JSONMutator(seeds: mutator.seeds, runSeed: mutator.runSeed).blob(index)
        let map = try SoundMap(json: json, relativeTo: root, engine: engine, seed: 1)
        engine.use(map, for: scene)
        for name in map.eventNames.prefix(4) {
          scene.events.post(name, parameters: ["speed": 3, "surface": "grass"])
          scene.update(deltaTime: 1.0 / 60.0)
        }
        // Its music: each of its first states, a parameter for any intensity.
        for state in map.musicStates.prefix(2) {
          scene.events.post("music.state", parameters: ["state": .string(state)])
          scene.events.post("music.intensity", parameters: ["balls": 0.6, "danger": 2])
          mixer.advance(frames: 1_024)
          scene.update(deltaTime: 1.0 / 60.0)
        }
        engine.music.stop()
        engine.stopUsing(map, for: scene)
      } catch {
        outcome = "invalid"
      }
      mixer.advance(frames: 1_024)
      engine.stopAllVoices()
      mixer.advance(frames: 1_024)
      _ = mixer.takeOutput()
      emit("end \(index) \(outcome)")
    }
    emit("rss \(peakKiB(RUSAGE_SELF)) \(max(peakKiB(RUSAGE_CHILDREN), serviceRSSKiB()))")
  }

  /// Each blob as a demo script's JSON (`foley-demo --script`): parsed, and when valid, the run
  /// it asks for worked out as the runner does (a bounded number of steps) and every event that is
  /// an SDL event pushed through SDL's queue and read back, as the runner pushes them.
  static func scripts(mutator: Mutator, start: Int, count: Int) throws {
    let sdl = try SDLContext(subsystems: [.events], mode: .headless)
    defer { sdl.shutdown() }
    let pump = EventPump(sceneHeight: 600)
    let mostSteps = (DemoScript.longestRun / DemoScript.shortestStep).rounded(.up)
    for index in start..<(start + count) {
      emit("start \(index)")
      var outcome = "ok"
      let json = JSONMutator(seeds: mutator.seeds, runSeed: mutator.runSeed).blob(index)
      do {
        let script = try DemoScript(json: json, name: "blob \(index)")
        let steps = (script.duration / script.step).rounded(.up)
        if !(steps.isFinite && steps >= 1 && steps <= mostSteps) {
          outcome = "violation-unbounded-run"
        } else if script.events.contains(where: { !$0.at.isFinite || $0.at < 0 }) {
          outcome = "violation-event-time"
        } else {
          for timed in script.events {
            guard let event = timed.event.platformEvent(outputDevice: 1) else { continue }
            try EventPump.push(event)
          }
          _ = pump.poll()
        }
      } catch is DemoScript.ScriptError {
        outcome = "invalid"
      } catch {
        outcome = "refused"
      }
      emit("end \(index) \(outcome)")
    }
    emit("rss \(peakKiB(RUSAGE_SELF)) 0")
  }

  static func openEngine(isolated: Bool) throws -> (AudioEngine, EmbeddedMixer) {
    var logger = Logger(label: "foley.fuzz")
    logger.logLevel = .critical
    var configuration = AudioConfiguration()
    configuration.maximumSoundDuration = 10
    configuration.decodeTimeout = 5
    configuration.isolatesDecoders = isolated
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(
      embedded: mixer, configuration: configuration, session: AudioSession(), logger: logger)
    return (engine, mixer)
  }

  /// Each blob through `Sound(data:)`, `engine.sound(data:)` and the `playSound(data:)` action.
  static func sounds(mutator: Mutator, start: Int, count: Int, isolated: Bool) throws {
    let (engine, mixer) = try openEngine(isolated: isolated)
    defer { engine.close() }
    let scene = Scene()
    engine.attach(to: scene)
    let node = Node()
    scene.addChild(node)
    for index in start..<(start + count) {
      if index % 10_000 == 0 { emit("progress \(index)") }
      emit("start \(index)")
      let blob = mutator.blob(index).bytes
      var outcomes: [String] = []
      outcomes.append(outcome { try Sound(data: blob, name: "blob", engine: engine) })
      engine.removeCachedSounds()
      outcomes.append(outcome { try engine.sound(data: blob, name: "blob") })
      engine.removeCachedSounds()
      let failedBefore = engine.statistics.failed
      node.run(.playSound(data: blob, name: "blob"))
      scene.update(deltaTime: 1.0 / 60.0)
      engine.waitUntilIdle()
      mixer.advance(frames: 1_024)
      outcomes.append(engine.statistics.failed > failedBefore ? "failed" : "ok")
      engine.stopAllVoices()
      mixer.advance(frames: 1_024)
      _ = mixer.takeOutput()  // the embedded mixer keeps what it mixed until asked; nobody listens here
      engine.removeCachedSounds()
      emit("end \(index) \(outcomes.joined(separator: ","))")
    }
    emit("rss \(peakKiB(RUSAGE_SELF)) \(max(peakKiB(RUSAGE_CHILDREN), serviceRSSKiB()))")
  }

  private static func outcome(_ load: () throws -> Sound) -> String {
    do {
      _ = try load()
      return "ok"
    } catch let error as SoundError {
      return "\(error.code)"
    } catch {
      return "other"
    }
  }

  /// The decoding service's peak resident memory (it is not a reaped child until it ends).
  private static func serviceRSSKiB() -> Int {
    let pid = foley_service_pid()
    guard pid > 0, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return 0
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
  }

  private static func peakKiB(_ who: __rusage_who) -> Int {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return usage.ru_maxrss
  }

  private static func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }
}
