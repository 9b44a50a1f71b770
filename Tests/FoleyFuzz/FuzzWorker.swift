import CFoleyCodecs
import FoleyAudio
import FoleyAudioTesting
import FoleyScene
import FoleySceneAudio
import FoleySession
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
  static func run(mutator: Mutator, start: Int, count: Int, isolated: Bool) throws {
    var logger = Logger(label: "foley.fuzz")
    logger.logLevel = .critical
    var configuration = AudioConfiguration()
    configuration.maximumSoundDuration = 10
    configuration.decodeTimeout = 5
    configuration.isolatesDecoders = isolated
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(
      backend: mixer, configuration: configuration, session: AudioSession(), logger: logger)
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
