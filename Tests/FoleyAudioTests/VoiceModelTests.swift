import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// Random runs of plays (through a scene's batch and straight to the engine), stops, fades,
/// pauses, resumes and let-gos against what a voice promises, on the embedded mixer with a small
/// channel cap so voices are stolen and recycled all the time. Time advances by hand and the
/// runs are seeded, so each is the same every time.
@MainActor
@Suite("Voice handles under random use (embedded mixer)")
struct VoiceModelTests {
  /// What the run knows of a voice it holds.
  struct Held {
    let voice: Voice
    let id: UInt64
    var pausedByGame = false
    /// The step by which it must have finished (stopped, or a one-shot played out).
    var finishesBy: Int?
    var sawFinished = false
  }

  @Test(
    "a held voice keeps its id, ends once and stays ended, obeys pause and stop, and a finished one ignores every call, whatever the order of plays and calls",
    arguments: [1, 2, 3, 4] as [UInt64])
  func randomUse(seed: UInt64) throws {
    var configuration = AudioConfiguration()
    configuration.initialChannels = 6
    configuration.maximumChannels = 6
    let audio = try EmbeddedAudio(configuration: configuration, limiter: false)
    let engine = audio.engine
    let short = try engine.sound(data: makeToneWAV(frequency: 330, duration: 0.05, amplitude: 0.3))
    let long = try engine.sound(data: makeToneWAV(frequency: 440, duration: 0.4, amplitude: 0.3))
    let bytes = makeToneWAV(frequency: 550, duration: 0.1, amplitude: 0.3)
    let scene = Scene()
    engine.attach(to: scene)
    let nodes = (0..<5).map { _ in Node() }
    for node in nodes { scene.addChild(node) }
    var random = SeededRandomNumbers(seed: seed)
    var held: [Held] = []
    var plays = 0
    var lastID: UInt64 = 0
    // Voice objects the run held before, by object: one that comes back under a new id was
    // recycled (the rings keep every voice here, so no object is freed and its address reused).
    var seen: Set<ObjectIdentifier> = []
    var recycled = 0
    var pausesSeen = 0
    func hold(_ voice: Voice, step: Int, seconds: Double?) {
      #expect(voice.id > lastID, "ids must grow: \(voice.id) after \(lastID)")
      lastID = voice.id
      if !seen.insert(ObjectIdentifier(voice)).inserted { recycled += 1 }
      // A one-shot may be stolen or rejected sooner; it cannot outlast its sound by much.
      held.append(Held(voice: voice, id: voice.id, finishesBy: seconds.map { step + Int($0 * 60) + 4 }))
    }
    for step in 0..<600 {
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
          // Through the scene's batch: the voice is the node's newest once the update ran.
          let node = nodes.randomElement(using: &random)!
          node.run(Bool.random(using: &random) ? .playSound(data: bytes) : .playSound(short))
          plays += 1
        case 2, 3:
          let looping = Int.random(in: 0..<4, using: &random) == 0
          let sound = Bool.random(using: &random) ? short : long
          hold(
            engine.play(sound, loops: looping ? -1 : 0), step: step,
            seconds: looping ? nil : sound.duration)
          plays += 1
        case 4 where !held.isEmpty:
          let index = Int.random(in: 0..<held.count, using: &random)
          let fade = Bool.random(using: &random) ? 0 : 0.05
          held[index].voice.stop(tween: Tween(duration: fade))
          let by = step + Int(fade * 60) + 4
          held[index].finishesBy = min(held[index].finishesBy ?? by, by)
        case 5 where !held.isEmpty:
          let index = Int.random(in: 0..<held.count, using: &random)
          held[index].voice.pause()
          held[index].pausedByGame = true
        case 6 where !held.isEmpty:
          let index = Int.random(in: 0..<held.count, using: &random)
          held[index].voice.resume()
          held[index].pausedByGame = false
        case 7 where !held.isEmpty:
          // Let go: the engine may give the voice to a later play once it has finished.
          held.remove(at: Int.random(in: 0..<held.count, using: &random))
        case 8:
          if let voice = engine.newestVoice(of: nodes.randomElement(using: &random)!), voice.id > lastID {
            hold(voice, step: step, seconds: 0.1)
          }
        default:
          break
        }
      }
      audio.advance(seconds: 1.0 / 60, stepping: scene)
      for index in held.indices {
        let entry = held[index]
        let voice = entry.voice
        #expect(voice.id == entry.id, "a held voice was given to another play (step \(step))")
        if entry.sawFinished {
          #expect(voice.isFinished, "voice \(entry.id) ended and came back (step \(step))")
          // Every call on an ended voice does nothing.
          voice.resume()
          voice.volume = 0.5
          voice.stop(tween: 0.1)
        }
        if voice.isFinished {
          held[index].sawFinished = true
        } else {
          if voice.state == .paused { pausesSeen += 1 }
          if entry.pausedByGame, voice.state == .playing {
            Issue.record("voice \(entry.id) plays on while the game paused it (step \(step))")
          }
          if let by = entry.finishesBy, step > by, !entry.pausedByGame {
            Issue.record("voice \(entry.id) should have ended by step \(by) (step \(step))")
          }
        }
      }
      #expect(engine.statistics.requested == plays)
    }
    // Everything stops: nothing plays, nothing is left on a channel.
    for entry in held { entry.voice.stop() }
    engine.stopAllVoices()
    audio.advance(seconds: 0.2, stepping: scene)
    #expect(held.allSatisfy { $0.voice.isFinished })
    #expect(engine.voiceCensus() == VoiceCensus())
    let statistics = engine.statistics
    #expect(statistics.activeVoices == 0)
    #expect(statistics.started + statistics.suppressed + statistics.rejected + statistics.failed <= plays)
    #expect(statistics.started > plays / 2, "\(statistics.started) of \(plays) plays started")
    // The run went where it means to: voices stolen at the cap, held voices recycled once let
    // go, pauses taken.
    #expect(
      statistics.stolen > 50 && recycled > 20 && pausesSeen > 20,
      "stolen \(statistics.stolen), recycled \(recycled), paused \(pausesSeen)")
  }
}
