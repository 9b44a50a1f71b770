// swift-format-ignore-file
// Every Swift block of the DocC articles (Sources/MODULE/Documentation.docc/*.md), verbatim
// between its markers (ReadmeTests checks that they match), wrapped in what it assumes exists:
// this target compiles them, so an article's example that stops compiling fails the build.
// A block's `import` lines are left out here; the imports below bring the same.
import Foley
import FoleyInspector
import FoleyOffline
import FoleySpeech

/// What the articles' snippets take as given beside the README's (HUD, Subtitle, GameScene).
@MainActor final class MeterHUD { var level = 0.0 }

@MainActor func doccFoley() throws {
// DOCC-BLOCK Foley 1
let engine = try AudioEngine()
let scene = Scene(size: Size(width: 800, height: 600))
engine.attach(to: scene, positional: true)
let sprite = SpriteNode(color: .orange, size: Size(width: 32, height: 32))
scene.addChild(sprite)
sprite.run(.playSound(data: try Data(contentsOf: URL(fileURLWithPath: "hit.wav"))))
// DOCC-BLOCK-END
}

@MainActor func doccAudio(hitBytes: Data) throws {
// DOCC-BLOCK FoleyAudio 1
let engine = try AudioEngine()
let hit = try engine.sound(data: hitBytes)      // decoded once
engine.play(hit)
engine.play(hit, volume: 0.5, pan: -0.8)        // overlaps the first
engine.bus(.music).fade(to: 0.5, duration: 1)
// DOCC-BLOCK-END
}

@MainActor func doccAudioTesting() throws {
// DOCC-BLOCK FoleyAudioTesting 1
let mixer = EmbeddedMixer()
let engine = try AudioEngine(embedded: mixer, session: AudioSession())
mixer.advance(seconds: 0.1)            // mixes 0.1 s and lets the engine react
let output = mixer.takeOutput()        // interleaved float samples
// DOCC-BLOCK-END
_ = (engine, output)
}

@MainActor func doccCore() throws {
// DOCC-BLOCK FoleyCore 1
let engine = try AudioEngine(logger: .foley("mygame.audio"))  // level from FOLEY_LOG_LEVEL
// Each frame, on the game thread: what the engine's threads posted (session transitions,
// music and speech events) is delivered here, in order.
engine.session.mailbox.drain()
// DOCC-BLOCK-END
}

@MainActor func doccInspector(engine: AudioEngine, map: SoundMap) throws {
// DOCC-BLOCK FoleyInspector 1
let inspector = InspectorServer(
  engine: engine, soundMap: map, options: .init(port: 8_765, allowsControl: true))
print("inspector: \(try inspector.start())")   // http://127.0.0.1:8765/?token=…
// DOCC-BLOCK-END
}

@MainActor func doccMusic(engine: AudioEngine, hud: HUD) {
// DOCC-BLOCK FoleyMusic 1
let music = engine.music                                   // or MusicPlayer(engine: engine)
music.play([Track(named: "Music/title.ogg"), Track(named: "Music/level1.ogg")])
music.crossfadeDuration = 3                                // queued tracks overlap by 3 s
music.repeatMode = .all
music.addObserver { event in
  if case .trackChanged(let now) = event { hud.title = now.title }
}
music.crossfade(to: Track(named: "Music/boss.ogg", loopCount: -1), duration: 2)
music.seek(to: 30)
print(music.nowPlaying?.title ?? "-", music.currentTime ?? 0)
music.stop(fadeOut: 1.5)
// DOCC-BLOCK-END
}

@MainActor func doccOffline() throws {
// DOCC-BLOCK FoleyOffline 1
let renderer = try OfflineRenderer()
let scene = GameScene(size: Size(width: 800, height: 600))
renderer.engine.attach(to: scene)
SceneView().presentScene(scene)
let result = try renderer.render(seconds: 60, to: URL(fileURLWithPath: "trailer.wav")) { step in
  scene.update(deltaTime: step)
}
print(result.sha256, result.speed)     // the same hash on every run; 20× real time or more
// DOCC-BLOCK-END
}

@MainActor func doccPlatform() throws {
// DOCC-BLOCK FoleyPlatform 1
let sdl = try SDLContext(subsystems: [.audio, .video, .events], mode: .headless)
print(sdl.audioDriver ?? "no audio driver")  // "dummy"
sdl.shutdown()
// DOCC-BLOCK-END
}

@MainActor func doccRecording(hud: MeterHUD) throws {
// DOCC-BLOCK FoleyRecording 1
let recorder = try AudioRecorder(url: URL(fileURLWithPath: "take.wav"))
print(recorder.format)                      // what the device gave: 48000 Hz s16 1 ch
try recorder.record(forDuration: 5)
// each frame, on the game thread:
hud.level = recorder.averagePower(forChannel: 0)   // dBFS, -160...0
// later:
let summary = recorder.stop()
print(summary.duration, summary.error as Any)
// DOCC-BLOCK-END
}

@MainActor func doccScene() {
// DOCC-BLOCK FoleyScene 1
let scene = Scene(size: Size(width: 640, height: 480), seed: 1)
let coin = SpriteNode(color: .white, size: Size(width: 8, height: 8))
scene.addChild(coin)
coin.run(.sequence([.wait(forDuration: 0.5, withRange: 0.2), .fadeOut(withDuration: 0.25)]))
for _ in 0..<60 { scene.update(deltaTime: 1.0 / 60.0) }
// DOCC-BLOCK-END
}

@MainActor func doccSceneAudio(scene: Scene, player: Node) {
// DOCC-BLOCK FoleySceneAudio 1
let campfire = AudioNode(fileNamed: "fire.ogg")        // loops, positional
campfire.position = Point(x: 300, y: 120)
scene.addChild(campfire)
scene.listener = player
campfire.run(.sequence([.wait(forDuration: 5), .changeVolume(to: 0.2, duration: 2)]))
campfire.run(.stop())                                  // or .pause(), .play(), .stereoPan(to:duration:)
// DOCC-BLOCK-END
}

@MainActor func doccSession() throws {
// DOCC-BLOCK FoleySession 1
let session = AudioSession()                 // or AudioSession.shared
let engine = try AudioEngine(session: session)
session.addObserver { transition in          // on the game thread (main actor)
  print(transition.reason, transition.new.isActive)
}
session.beginInterruption()                  // a call comes in: everything pauses
session.endInterruption(shouldResume: true)  // and resumes where it was
session.handle(.focusLost)                   // what a host's own event loop forwards
// DOCC-BLOCK-END
_ = engine
}

@MainActor func doccSoundMap(engine: AudioEngine, scene: Scene) throws {
// DOCC-BLOCK FoleySoundMap 1
let map = try SoundMap(contentsOf: URL(fileURLWithPath: "Assets/sounds.json"), engine: engine)
engine.use(map, for: scene)
try map.reload()          // after editing the file (debug builds poll it on their own)
// DOCC-BLOCK-END
}

@MainActor func doccSpeech(engine: AudioEngine, subtitle: Subtitle) {
// DOCC-BLOCK FoleySpeech 1
let speech = SpeechSynthesizer(engine: engine)
speech.ducking = SpeechDucking(categories: [.music, .ambience], decibels: -10)
speech.addObserver { event in
  if case .willSpeakRange(let range, let line) = event { subtitle.text = String(line.string[range]) }
}
speech.speak(Utterance(string: "The bridge is out. Take the river path."))
speech.pauseSpeaking(at: .word)
speech.continueSpeaking()
// DOCC-BLOCK-END
}
