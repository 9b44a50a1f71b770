import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleySoundMap
import FoleySpeech
import FoleyTestSupport
import Foundation
import Testing

/// Every engine-side source of game-thread events posts to the session's mailbox, and a scene the
/// engine is attached to drains it at each update: the test only steps the scene, and never calls
/// a source's delivery itself. (The test holds the main actor throughout, so the main queue's
/// fallback drain cannot be what delivers.)
@MainActor
@Suite("The game-thread mailbox (embedded mixer)", .serialized)
struct MailboxDeliveryTests {
  @Test("speech's words, the music's track changes and a sound map's reload arrive at scene updates alone")
  func eventsArriveAtSceneUpdates() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let log = EventLog()
    var words = 0
    let speech = SpeechSynthesizer(engine: audio.engine)
    speech.observe { event in
      switch event {
      case .willSpeakRange: words += 1
      case .didFinish: log.append("speech finished")
      default: break
      }
    }
    let music = audio.engine.music
    music.observe { event in
      switch event {
      case .trackChanged(let playing): log.append("music: \(playing.title)")
      case .finished: log.append("music finished")
      default: break
      }
    }
    music.play(Track(data: makeToneWAV(frequency: 440, duration: 0.3), name: "short.wav"))
    speech.speak(Utterance(string: "One two three."))
    #expect(
      audio.advance(
        until: { log.entries.contains("speech finished") && log.entries.contains("music finished") },
        limit: 20,
        stepping: scene))
    #expect(words == 3)
    #expect(log.entries.filter { $0.hasPrefix("music") } == ["music: short.wav", "music finished"])

    // A watched map file changes on disk: the reload happens on the game thread, at an update.
    let folder = temporaryFile("mailbox-map")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try makeToneWAV(frequency: 330, duration: 0.1).write(to: folder.appendingPathComponent("a.wav"))
    let url = folder.appendingPathComponent("map.json")
    try Data(#"{ "version": 1, "events": { "x": { "play": "a.wav" } } }"#.utf8).write(to: url)
    let map = try SoundMap(contentsOf: url, engine: audio.engine)
    map.watchesFile = true
    try Data(#"{ "version": 1, "events": { "renamed": { "play": "a.wav" } } }"#.utf8).write(to: url)
    // The watch polls the file on its own clock (every 0.5 s): wait for it, stepping the scene.
    #expect(
      waitUntil(timeout: 30) {
        audio.advance(frames: 480, stepping: scene)
        return map.eventNames == ["renamed"]
      })
  }
}
