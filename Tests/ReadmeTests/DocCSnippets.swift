// swift-format-ignore-file
// Every Swift block of the DocC articles (Sources/MODULE/Documentation.docc/*.md), verbatim
// between its markers (ReadmeTests checks that they match), wrapped in what it assumes exists:
// this target compiles them, so an article's example that stops compiling fails the build.
// A block's `import` lines are left out here; the imports below bring the same.
import CFoleySDL2
import Foley
import FoleyInspector
import FoleyOffline
import FoleySpeech

/// What the articles' snippets take as given.
@MainActor final class MeterHUD { var level = 0.0 }
@MainActor final class HUD { var title = "" }
@MainActor final class Subtitle { var text = "" }
struct Analytics { func log(_ name: String) {} }
@MainActor final class TempoHUD { func flash(bar: Int) {} }
@MainActor final class Radar { func blip(_ direction: CaptionDirection?, _ loudness: Double) {} }
/// A game's own scene (the SpriteKit guide's is compiled with SpriteKitPortTests).
final class GameScene: Scene {}

@MainActor func doccFoley() throws {
// DOCC-BLOCK Foley/Foley.md 1
let engine = try AudioEngine()
let scene = Scene(size: Size(width: 800, height: 600))
engine.attach(to: scene, positional: true)
let sprite = SpriteNode(color: .orange, size: Size(width: 32, height: 32))
scene.addChild(sprite)
sprite.run(.playSound(data: try Data(contentsOf: URL(fileURLWithPath: "hit.wav"))))
// BLOCK-END
}

@MainActor func doccAudio(hitBytes: Data) throws {
// DOCC-BLOCK FoleyAudio/FoleyAudio.md 1
let engine = try AudioEngine()
let hit = try engine.sound(data: hitBytes)      // decoded once
engine.play(hit)
engine.play(hit, volume: 0.5, pan: -0.8)        // overlaps the first
let drone = engine.play(hit, loops: -1)
drone.setVolume(0.25, tween: Tween(duration: 0.5, easing: .easeOut))  // per sample, from now
engine.bus(.music).setVolume(0.5, tween: 1)
// BLOCK-END
}

@MainActor func doccAudioTesting() throws {
// DOCC-BLOCK FoleyAudioTesting/FoleyAudioTesting.md 1
let mixer = EmbeddedMixer()
let engine = try AudioEngine(embedded: mixer, session: AudioSession())
mixer.advance(seconds: 0.1)            // mixes 0.1 s and lets the engine react
let output = mixer.takeOutput()        // interleaved float samples
// BLOCK-END
_ = (engine, output)
}

@MainActor func doccCore() throws {
// DOCC-BLOCK FoleyCore/FoleyCore.md 1
let engine = try AudioEngine(logger: .foley("mygame.audio"))  // level from FOLEY_LOG_LEVEL
// Each frame, on the game thread: what the engine's threads posted (session transitions,
// music and speech events) is delivered here, in order.
engine.session.mailbox.drain()
// BLOCK-END
}

@MainActor func doccInspector(engine: AudioEngine, map: SoundMap) throws {
// DOCC-BLOCK FoleyInspector/FoleyInspector.md 1
let inspector = InspectorServer(
  engine: engine, soundMap: map, options: .init(port: 8_765, allowsControl: true))
print("inspector: \(try inspector.start())")   // http://127.0.0.1:8765/?token=…
// BLOCK-END
}

@MainActor func doccMusic(engine: AudioEngine, hud: HUD) {
// DOCC-BLOCK FoleyMusic/FoleyMusic.md 1
let music = engine.music                                   // or MusicPlayer(engine: engine)
music.play([Track(named: "Music/title.ogg"), Track(named: "Music/level1.ogg")])
music.crossfadeDuration = 3                                // queued tracks overlap by 3 s
music.repeatMode = .all
music.observe { event in
  if case .trackChanged(let now) = event { hud.title = now.title }
}
music.play(Track(named: "Music/boss.ogg", loopCount: -1), tween: 2)
music.seek(to: 30)
print(music.nowPlaying?.title ?? "-", music.currentTime ?? 0)
music.stop(tween: 1.5)
// BLOCK-END
}

@MainActor func doccOffline() throws {
// DOCC-BLOCK FoleyOffline/FoleyOffline.md 1
let renderer = try OfflineRenderer()
let scene = GameScene(size: Size(width: 800, height: 600))
renderer.engine.attach(to: scene)
SceneView().presentScene(scene)
let result = try renderer.render(seconds: 60, to: URL(fileURLWithPath: "trailer.wav")) { step in
  scene.update(deltaTime: step)
}
print(result.sha256, result.speed)     // the same hash on every run; 20× real time or more
// BLOCK-END
}

@MainActor func doccPlatform() throws {
// DOCC-BLOCK FoleyPlatform/FoleyPlatform.md 1
let sdl = try SDLContext(subsystems: [.audio, .video, .events], mode: .headless)
print(sdl.audioDriver ?? "no audio driver")  // "dummy"
sdl.shutdown()
// BLOCK-END
}

@MainActor func doccRecording(hud: MeterHUD) throws {
// DOCC-BLOCK FoleyRecording/FoleyRecording.md 1
let recorder = try AudioRecorder(url: URL(fileURLWithPath: "take.wav"))
print(recorder.format)                      // what the device gave: 48000 Hz s16 1 ch
try recorder.record(forDuration: 5)
// each frame, on the game thread:
hud.level = recorder.averagePower(forChannel: 0)   // dBFS, -160...0
// later:
let summary = recorder.stop()
print(summary.duration, summary.error as Any)
// BLOCK-END
}

@MainActor func doccScene() {
// DOCC-BLOCK FoleyScene/FoleyScene.md 1
let scene = Scene(size: Size(width: 640, height: 480), seed: 1)
let coin = SpriteNode(color: .white, size: Size(width: 8, height: 8))
scene.addChild(coin)
coin.run(.sequence([.wait(forDuration: 0.5, withRange: 0.2), .fadeOut(withDuration: 0.25)]))
for _ in 0..<60 { scene.update(deltaTime: 1.0 / 60.0) }
// BLOCK-END
}

@MainActor func doccSceneAudio(scene: Scene, player: Node) {
// DOCC-BLOCK FoleySceneAudio/FoleySceneAudio.md 1
let campfire = AudioNode(fileNamed: "fire.ogg")        // loops, positional
campfire.position = Point(x: 300, y: 120)
scene.addChild(campfire)
scene.listener = player
campfire.run(.sequence([.wait(forDuration: 5), .changeVolume(to: 0.2, duration: 2)]))
campfire.run(.stop())                                  // or .pause(), .play(), .stereoPan(to:duration:)
// BLOCK-END
}

@MainActor func doccSession() throws {
// DOCC-BLOCK FoleySession/FoleySession.md 1
let session = AudioSession()                 // or AudioSession.shared
let engine = try AudioEngine(session: session)
session.observe { transition in          // on the game thread (main actor)
  print(transition.reason, transition.new.isActive)
}
session.beginInterruption()                  // a call comes in: everything pauses
session.endInterruption(shouldResume: true)  // and resumes where it was
session.handle(.focusLost)                   // what a host's own event loop forwards
// BLOCK-END
_ = engine
}

@MainActor func doccSoundMap(engine: AudioEngine, scene: Scene) throws {
// DOCC-BLOCK FoleySoundMap/FoleySoundMap.md 1
let map = try SoundMap(contentsOf: URL(fileURLWithPath: "Assets/sounds.json"), engine: engine)
engine.use(map, for: scene)
try map.reload()          // after editing the file (debug builds poll it on their own)
// BLOCK-END
}

@MainActor func doccSpeech(engine: AudioEngine, subtitle: Subtitle) {
// DOCC-BLOCK FoleySpeech/FoleySpeech.md 1
let speech = SpeechSynthesizer(engine: engine)
speech.ducking = SpeechDucking(categories: [.music, .ambience], decibels: -10)
speech.observe { event in
  if case .willSpeakRange(let range, let line) = event { subtitle.text = String(line.string[range]) }
}
speech.speak(Utterance(string: "The bridge is out. Take the river path."))
speech.pauseSpeaking(at: .word)
speech.continueSpeaking()
// BLOCK-END
}

@MainActor func guideSound(scene: Scene, sprite: SpriteNode, hitBytes: Data) throws {
// DOCC-BLOCK Foley/PlayingSounds.md 1
let engine = try AudioEngine()          // 48 kHz, float32, stereo, 512-frame buffer; engine.deviceFormat says what it got
engine.attach(to: scene)                // the scene's sound actions play through it
sprite.run(.playSound(data: hitBytes))  // decoded once, a channel per play: hits overlap
sprite.run(.sequence([.playSoundFileNamed("chime.ogg", waitForCompletion: true), .removeFromParent()]))
let voice = engine.play(try engine.sound(named: "ambience.wav"), volume: 0.5)
voice.setVolume(0.1, tween: Tween(duration: 2, easing: .easeInEaseOut))   // along the curve, every sample
voice.pan = -0.3; voice.pause(); voice.resume(); voice.stop(tween: 0.5)
engine.play(try engine.sound(named: "ambience.wav"), loops: -1)   // -1 loops until stopped
engine.bus(.music).setVolume(0.4, tween: 2)                // every category is a bus
engine.bus(.effects).isMuted = true; engine.bus(.speech).isSoloed = false; engine.masterVolume = 0.8
print(engine.statistics)                // requested, started, suppressed, rejected, stolen, failed, voices, decodes
print(engine.masterMeter)               // the limiter's gain reduction now and at its deepest
// BLOCK-END
}

@MainActor func guideShaping(engine: AudioEngine, engineHum: Sound, ball: Node, player: Node) throws {
  var spatial = SpatialAudio()
// DOCC-BLOCK Foley/PlayingSounds.md 2
let voice = engine.play(engineHum, loops: -1, rate: 0.8)  // playback rate 0.25…4: pitch and tempo together
voice.setPlaybackRate(1.5, tween: 0.8)                      // glides, sample by sample
voice.setLowPassCutoff(900, tween: 0.2)                     // a voice's own low-pass (20…20,000 Hz)
voice.setReverbSend(0.4)                                   // a post-fader share to the engine's reverb
engine.reverb.apply(.cave)                                 // presets: .room, .hall, .cave, .underwater
try engine.bus(.speech).setEffects([FilterEffect(.highPass, frequency: 80), FilterEffect(.peaking(gainDB: 3), frequency: 3_000)])                         // each category's bus has an effect chain
try engine.bus(.music).setEffects([CompressorEffect(threshold: -40, ratio: 8, range: 12, sidechain: .speech)])                          // music ducks under speech, by the speech's level
try engine.bus("shouts").setEffects([DelayEffect(time: 0.35, feedback: 0.45)])   // an echo
spatial.speedOfSound = 3_430                               // doppler for positional voices (off by default)
ball.run(.changePlaybackRate(to: 1.4, duration: 0.3))      // SpriteKit's four audio actions
ball.run(.changeObstruction(to: -24, duration: 0.2))       // dB, −100…0, as AVAudio3DMixing
ball.run(.changeOcclusion(to: -12, duration: 0.2))
player.run(.changeReverb(to: 0.6, duration: 0.5))
// BLOCK-END
  _ = spatial
}

@MainActor func guideLoudness(engine: AudioEngine, sound: Sound, voiceLine: Data) throws {
// DOCC-BLOCK Foley/PlayingSounds.md 3
print(sound.loudness)                                  // "-18.4 LUFS, range 5.1 LU, true peak -1.3 dBTP"
try engine.bus(.effects).setLoudnessTarget(-20)       // the bus's target, in LUFS
var settings = SoundSettings()
settings.normalizesLoudness = true                     // this sound plays at its bus's target
let line = try Sound(data: voiceLine, name: "line-12.ogg", engine: engine, settings: settings)
// BLOCK-END
  _ = line
}

@MainActor func guideSpace(engine: AudioEngine, scene: Scene, player: Node) {
// DOCC-BLOCK Foley/SoundInSpace.md 1
scene.listener = player                                        // nil: the scene's centre (SpriteKit: its origin)
var spatial = SpatialAudio()
spatial.distanceModel = .inverse(reference: 120, rolloff: 1)   // also .none, .linear(reference:maximum:), .exponential
spatial.panWidth = 350                                         // points aside for full left/right
engine.attach(to: scene, positional: true, spatial: spatial)   // sounds started by actions follow their node
let fire = AudioNode(fileNamed: "fire.ogg")                    // SKAudioNode: loops, positional, pauses with its scene
fire.position = Point(x: 60, y: 540); scene.addChild(fire)
fire.run(.sequence([.changeVolume(to: 0.3, duration: 2), .stereoPan(by: -0.2, duration: 1), .pause(), .play(), .stop()]))
// BLOCK-END
}

/// A tile level's solid tiles, as the walls guide takes them.
struct TileLevel { var solid: [[Bool]] = [] }

@MainActor func guideWalls(scene: Scene, level: TileLevel) {
// DOCC-BLOCK Foley/SoundInSpace.md 2
let wall = Wall(points: [Point(x: 0, y: -300), Point(x: 0, y: 300)], material: .wall)   // -12 dB, 1 kHz
wall.position = Point(x: 450, y: 300); scene.addChild(wall)
let door = Portal(from: Point(x: 0, y: -40), to: Point(x: 0, y: 40), material: .wood)  // across a gap in a wall
door.position = Point(x: 450, y: 300); scene.addChild(door)
door.run(.changeOpenness(to: 0, duration: 0.5))                                        // it swings shut
scene.addChild(Room(polygon: [Point(x: 450, y: 0), Point(x: 800, y: 0), Point(x: 800, y: 600), Point(x: 450, y: 600)],
                    reverbSend: 0.6))                                                  // the engine's reverb, at 0.6
for tileWall in Wall.fromTiles(level.solid, tileSize: 32) { scene.addChild(tileWall) } // a tile map's edges, merged
// BLOCK-END
}

@MainActor func guideVirtual() throws {
// DOCC-BLOCK Foley/SoundInSpace.md 3
var configuration = AudioConfiguration()
configuration.maximumAudibleVoices = 32                        // the 32 that rank first are mixed; the rest are virtual
let engine = try AudioEngine(configuration: configuration)
try engine.bus(.ambience).setMaximumAudibleVoices(6)          // and at most 6 of the ambience bus
let torch = AudioNode(fileNamed: "torch.ogg")                  // a thousand of these cost what the heard ones cost
let away = torch.voice?.isVirtual                              // true while it plays in time without a channel
let census = engine.voiceCensus()                              // census.audible, census.virtual
let figures = engine.statistics                                // figures.virtualVoices, figures.virtualizations
// BLOCK-END
  _ = (away, census, figures)
}

@MainActor func guideMusic(engine: AudioEngine, scene: Scene, hud: HUD, bossURL: URL, bossTrack: Track) {
// DOCC-BLOCK Foley/MusicGuide.md 1
let music = engine.music                                   // the engine's player (or MusicPlayer(engine:category:))
music.play([Track(named: "Music/calm.ogg", loopCount: -1), Track(named: "Music/boss.ogg")])
music.crossfadeDuration = 3                                // queued tracks overlap by 3 s; 0 = gapless
music.repeatMode = .all; music.isShuffled = true
music.play(Track(url: bossURL, loopCount: -1, loopRegion: 12.0..<96.5), tween: 2)
music.seek(to: 30); music.pause(); music.resume(); music.stop(tween: 1.5)
print(music.nowPlaying?.title ?? "-", music.currentTime ?? 0, music.duration ?? 0)
music.observe { event in                               // .trackChanged, .looped, .failed, .finished
  if case .trackChanged(let now) = event { hud.title = now.title }
}
scene.run(.sequence([.wait(forDuration: 2), .playMusic(bossTrack, tween: 1.5), .wait(forDuration: 60), .stopMusic(tween: 2)]))
// BLOCK-END
}

@MainActor func guideMusicInTime(
  engine: AudioEngine, music: MusicPlayer, hud: TempoHUD, fanfare: Sound, clap: Sound, drums: Track, bass: Track,
  strings: Track
) throws {
// DOCC-BLOCK Foley/MusicGuide.md 2
var combat = Track(named: "Music/combat.ogg", loopCount: -1)
combat.tempo = try TempoMap(bpm: 140, meter: .init(4, 4), offset: 0.25, cues: ["drop": 27.68])
music.prepare([combat])                                    // checked ahead: no waiting at the bar line
try music.transition(to: combat, at: .nextBar, tween: 0.5)  // or .nextGrid, .nextBeat, .cue("drop"), .end, .now
try music.playStinger(fanfare, at: .nextBeat)              // a one-shot that lands on the beat
music.observe { event in
  if case .beat(let beat) = event, beat.isDownbeat { hud.flash(bar: beat.time.bar) }   // .cue, .momentMoved too
}
print(music.musicalTime ?? "no tempo")                     // "5:3.25": bar 5, beat 3, a quarter on
try music.play(stems: [drums, bass, strings], levels: [1, 1, 0])   // sample-together, looping together
music.setLevel(1, ofStem: 2, tween: 4)                      // the strings come in with the danger
engine.play(clap, start: .frame(engine.audioFrame + engine.frames(forSeconds: 0.5)))   // any sound, on any frame
// BLOCK-END
}

@MainActor func guideMusicStates(scene: Scene) {
// DOCC-BLOCK Foley/MusicGuide.md 3
scene.events.post("music.state", parameters: ["state": "combat"])   // on the next bar line
scene.events.post("music.intensity", parameters: ["danger": 0.5])   // the strings come in over 2 s
// BLOCK-END
}

@MainActor func guideEvents(engine: AudioEngine, scene: Scene, player: Node, analytics: Analytics) throws {
// DOCC-BLOCK Foley/SoundMaps.md 1
scene.events.post("player.footstep", parameters: ["surface": "grass"], from: player)   // FoleyScene
scene.events.observe("player.*") { event in analytics.log(event.name) }                // anyone may listen

let map = try SoundMap(contentsOf: URL(fileURLWithPath: "Assets/sounds.json"), engine: engine)  // FoleySoundMap
engine.use(map, for: scene)
// BLOCK-END
}

@MainActor func guideEventsReloads(map: SoundMap, hud: HUD) {
// DOCC-BLOCK Foley/SoundMaps.md 2
  map.observeReloads { reload in
    hud.title = reload.description  // "sounds.json reloaded: changed ball.hit" or "… not reloaded …: events[…]"
  }
// BLOCK-END
}

@MainActor func guideSpeech(engine: AudioEngine, subtitle: Subtitle, guide: Node, gate: Point) {
// DOCC-BLOCK Foley/SpeechGuide.md 1
let speech = SpeechSynthesizer(engine: engine)             // or SpeechSynthesizer.shared(for: engine)
speech.ducking = SpeechDucking(categories: [.music, .ambience], decibels: -10)
var line = Utterance(string: "The bridge is out. Take the river path.")
line.rate = 0.5; line.pitchMultiplier = 1.1; line.voice = SpeechVoice.voice(language: "en-gb")
line.preUtteranceDelay = 0.2; line.postUtteranceDelay = 0.3
speech.observe { event in                                  // until .cancel() on what it returns
  if case .willSpeakRange(let range, let spoken) = event { subtitle.text = String(spoken.string[range]) }
}
speech.speak(line)                                          // queued; spoken one after another
speech.pauseSpeaking(at: .word); speech.continueSpeaking(); speech.stopSpeaking(at: .immediate)
guide.run(.sequence([.speak(Utterance(string: "Follow me.")), .move(to: gate, duration: 2)]))
// BLOCK-END
}

@MainActor func guideSession(engine: AudioEngine) {
// DOCC-BLOCK Foley/SessionAndDevices.md 1
// 1. Foley's event pump (the demo does this): every polled event goes to the session first.
let pump = EventPump(sceneHeight: 600, session: engine.session)

// 2. Your own loop: tell the session what happened, typed (any windowing library)…
engine.session.handle(.focusLost); engine.session.handle(.focusGained)
// …or hand it SDL's event as bytes (any Swift SDL2 binding has SDL's layout; short buffers are ignored):
var event = SDL_Event()
while SDL_PollEvent(&event) != 0 {
  withUnsafeBytes(of: &event) { _ = engine.session.handleSDLEvent(bytes: $0) }
  // …your handling
}
// …or call the API yourself:
engine.session.deactivate(reason: .host("pause menu")); engine.session.activate(reason: .host("pause menu"))
engine.session.beginInterruption(); engine.session.endInterruption(shouldResume: false)  // voices stay paused for you
engine.resumeAllVoices()   // or stopAllVoices(tween:): these reach the voices actions started, too
// BLOCK-END
  _ = pump
}

@MainActor func guideRecording(url: URL) throws {
// DOCC-BLOCK Foley/RecordingGuide.md 1
let recorder = try AudioRecorder(url: URL(fileURLWithPath: "take.wav"),            // refuses to replace a file…
                                 format: RecordingFormat(sampleRate: 48_000, channels: 1, sampleFormat: .signed16),
                                 options: [])                                     // …unless [.overwrite]
try recorder.record(forDuration: 10)          // or record(); pause(); resume(); stop()
print(recorder.averagePower(forChannel: 0))   // dBFS −160…0, 50 ms window, like AVAudioRecorder; peakPower too
let summary = recorder.stop()                 // frames, duration, and `error` if it stopped early
try WAVFile.repair(at: url)                   // for a file whose process died before stop()
// BLOCK-END
  _ = summary
}

@MainActor func guideInspector(engine: AudioEngine, map: SoundMap) throws {
// DOCC-BLOCK Foley/Inspecting.md 1
let snapshot = engine.inspector.snapshot(window: 0.3)   // any thread; the first one starts the copying
for bus in snapshot.buses { print(bus.name, bus.peakDecibels, bus.momentaryLoudness ?? -.infinity) }
for voice in snapshot.voices where voice.state == .virtual { print(voice.sound, voice.position ?? 0) }

let server = InspectorServer(engine: engine, soundMap: map, options: .init(port: 8_765, allowsControl: true))
print("inspector: \(try server.start())")                // http://127.0.0.1:8765/?token=…
// BLOCK-END
  server.stop()
}

@MainActor func guideOffline(scene: Scene) throws {
// DOCC-BLOCK Foley/DemoAndTools.md 1
let renderer = try OfflineRenderer()                  // an engine on an embedded mixer: no device
renderer.engine.attach(to: scene)                     // load sounds, attach scenes, play music as a game does
let result = try renderer.render(seconds: 60, to: URL(fileURLWithPath: "trailer.wav")) { step in
  scene.update(deltaTime: step)                       // a fixed step (1/60 s by default)
}
print(result.sha256, result.speed)                    // the same hash every run; ~40× real time here
// BLOCK-END
}

@MainActor func guideAccessibility(
  engine: AudioEngine, scene: Scene, canvas: Canvas, radar: Radar, whistleURL: URL, alarmURL: URL, boomURL: URL,
  settingsURL: URL
) throws {
// DOCC-BLOCK Foley/Accessibility.md 1
var settings = SoundSettings()
settings.caption = Caption("Ball whistles")
let whistle = try Sound(contentsOf: whistleURL, engine: engine, settings: settings)

var alarmSettings = SoundSettings()
alarmSettings.caption = Caption("Alarm", category: .critical)   // captioned even when muted
let alarm = try Sound(contentsOf: alarmURL, engine: engine, settings: alarmSettings)

engine.captions.observe { event in
  // began, changed (a repeat, a move, louder or quieter), ended: with where it comes from.
  print(event.phase, event.label, event.direction?.words ?? "not placed", event.distance ?? 0, event.loudness)
}
let box = CaptionBox(engine: engine)                  // FoleyPlatform: on screen, bottom centre
canvas.draw(scene) { canvas in box.draw(on: canvas) }
for source in engine.captions.radar(limit: 8) { radar.blip(source.direction, source.loudness) }
// BLOCK-END
  _ = (whistle, alarm)
  try guideAccessibilitySettings(engine: engine, settingsURL: settingsURL, boomURL: boomURL)
}

@MainActor func guideAccessibilitySettings(engine: AudioEngine, settingsURL: URL, boomURL: URL) throws {
// DOCC-BLOCK Foley/Accessibility.md 2
engine.isMono = true                  // every channel the same samples, at equal power
engine.balance = -0.3                 // a little more on the left
engine.dynamicRange = .night          // loud passages down, quiet ones up, before the limiter
var settings = engine.settings        // masterVolume, isMono, balance, dynamicRange,
settings.showsCaptions = true         // showsCaptions, rumbles, busVolumes, mutedBuses
try JSONEncoder().encode(settings).write(to: settingsURL, options: .atomic)
engine.apply(try JSONDecoder().decode(AudioSettings.self, from: Data(contentsOf: settingsURL)))
// BLOCK-END
// DOCC-BLOCK Foley/Accessibility.md 3
try engine.haptics.useAllControllers()     // every joystick and controller, as they are plugged in
var boomSettings = SoundSettings()
boomSettings.rumble = 0.8
let boom = try Sound(contentsOf: boomURL, engine: engine, settings: boomSettings)
engine.haptics.intensity = 0.5             // the player's setting
// BLOCK-END
  _ = boom
}

@MainActor func guideMovingTheMix(engine: AudioEngine, humSound: Sound, motorSound: Sound) throws {
// DOCC-BLOCK Foley/MovingTheMix.md 1
let hum = engine.play(humSound, loops: -1)
hum.setVolume(0.25, tween: Tween(duration: 0.5, easing: .easeOut))
let bar = engine.audioFrame + engine.frames(forSeconds: 2)
hum.setVolume(1, tween: Tween(duration: 4, easing: .smoothstep, start: .frame(bar)))
// Every continuous setter takes a tween; a number is seconds, linear, from now.
hum.setPlaybackRate(1.5, tween: Tween(duration: 0.8, easing: .easeIn))
hum.setLowPassCutoff(800, tween: 0.2)
engine.bus(.music).setVolume(0.3, tween: Tween(duration: 2, easing: .easeInEaseOut))
engine.setMasterVolume(0.8, tween: 1)
let siren = engine.play(humSound, loops: -1, start: .frame(bar), fadeIn: Tween(duration: 1, easing: .easeOut))
siren.stop(tween: Tween(duration: 2, easing: .easeIn, start: .frame(bar + engine.frames(forSeconds: 8))))
// BLOCK-END
// DOCC-BLOCK Foley/MovingTheMix.md 2
try engine.defineParameter("speed", range: 0...1, default: 0)
let motor = engine.play(motorSound, loops: -1)
try motor.setModulators([
  .parameter("speed", curve: ParameterCurve([(0, -30), (0.6, -8), (1, 0)], interpolation: .smooth)),
  .lfo(.sine, rateHz: 4, depthDecibels: 6),
  .envelope(attack: 0.5, release: 1.5),  // swells in; stopped, lets go over 1.5 s
  .follower(of: .speech, curve: ParameterCurve([(-40, 0), (-10, -9)])),  // backs off under dialogue
])
try engine.setParameter("speed", to: 1, tween: Tween(duration: 4, easing: .easeInEaseOut))
// BLOCK-END
// DOCC-BLOCK Foley/MovingTheMix.md 3
try engine.defineSnapshot(MixSnapshot("paused", buses: [
  .music: .init(volumeDecibels: -12, lowPass: 800),
  .effects: .init(volumeDecibels: -96),
], priority: 10))
try engine.defineSnapshot(MixSnapshot("danger", buses: [.ambience: .init(volumeDecibels: -6)], mode: .blend))
try engine.applySnapshot("paused", tween: Tween(duration: 0.5))
try engine.applySnapshot("danger", intensity: 0.3, tween: Tween(duration: 1, easing: .smoothstep))
print(engine.activeSnapshots)   // ["paused": 1.0, "danger": 0.3]
try engine.releaseSnapshot("paused", tween: Tween(duration: 0.5))
// BLOCK-END
}

@MainActor func guideTimeAndLatency(engine: AudioEngine, clapBytes: Data, beatFrame: AudioFrame) throws {
// DOCC-BLOCK Foley/TimeAndLatency.md 1
let latency = engine.outputLatency
print(latency.frames, latency.seconds)          // 608 frames, 12.7 ms on the disk driver at 48 kHz
let clap = try engine.sound(data: clapBytes, name: "clap.wav")
let start = engine.audioFrame + engine.frames(forSeconds: 0.5)
engine.play(clap, start: .frame(start))
let heard = engine.heardFrame(of: start)        // where the clap begins in the output
let when = engine.hostTime(whenHeard: heard)    // and when, on the host clock
// BLOCK-END
_ = when
// DOCC-BLOCK Foley/TimeAndLatency.md 2
let pump = EventPump(sceneHeight: 480, session: engine.session)
for polled in pump.poll() {
  guard case .keyDown(.space, _) = polled.event, let heard = engine.heardFrame(at: polled.time) else {
    continue
  }
  let beat = engine.heardFrame(of: beatFrame)
  let offBy = Double(heard - beat) / Double(engine.deviceFormat.sampleRate)
  print(String(format: "%+.1f ms", offBy * 1_000))
}
// BLOCK-END
}

@MainActor func guideCalibration(engine: AudioEngine, pump: EventPump, clickFrame: AudioFrame, settingsURL: URL) throws {
// DOCC-BLOCK Foley/TimeAndLatency.md 3
var clicks = LatencyCalibration()
var flashes = LatencyCalibration()
// Each click, as it is scheduled, and each flash, as it is drawn:
clicks.cue(at: engine.hostTime(whenHeard: engine.heardFrame(of: clickFrame))!)
flashes.cue(at: HostTime.now)
// Each tap, with SDL's stamp, into the pass under way:
for polled in pump.poll() where polled.event == .keyDown(.space, isRepeat: false) {
  clicks.tap(at: polled.time)
}
var settings = engine.settings
settings.latencyOffsets = try LatencyOffsets(tappingToClicks: clicks, tappingToFlashes: flashes)
engine.apply(settings)
try JSONEncoder().encode(settings).write(to: settingsURL, options: .atomic)
// BLOCK-END
}

@MainActor func guideSpaceForAnyEngine(humBytes: Data, hornSound: Sound, player: Point) throws {
// DOCC-BLOCK Foley/SpaceForAnyEngine.md 1
struct Emitter { var x: Double; var y: Double; var voice: Voice? }

let engine = try AudioEngine()
let space = engine.space
space.spatial.distanceModel = .inverse(reference: 64, rolloff: 1)   // -6 dB at 128 units
space.spatial.panWidth = 480
space.spatial.speedOfSound = 3_430                                  // doppler from the motion
let hum = try engine.sound(data: humBytes, name: "hum.ogg")
var cars = [Emitter(x: 900, y: 0, voice: nil), Emitter(x: -300, y: 80, voice: nil)]
for index in cars.indices {
  cars[index].voice = space.play(hum, at: Point(x: cars[index].x, y: cars[index].y), loops: -1)
}
// Every frame:
for index in cars.indices {
  cars[index].x -= 4
  if let voice = cars[index].voice { space.move(voice, to: Point(x: cars[index].x, y: cars[index].y)) }
}
try space.moveListener(0, to: Point(x: player.x, y: player.y))
space.update(deltaTime: 1.0 / 60)
// BLOCK-END
// DOCC-BLOCK Foley/SpaceForAnyEngine.md 2
try space.setListeners([Point(x: 0, y: 0), Point(x: 1_000, y: 0)])   // players one and two
let horn = space.play(hornSound, at: Point(x: 1_100, y: 0))          // heard from player two
print(space.listener(hearing: horn) ?? -1)                           // 1
try space.pin(horn, toListener: 0)                                   // player one's horn, always
space.listenerBlend = 200
// BLOCK-END
// DOCC-BLOCK Foley/SpaceForAnyEngine.md 3
var acoustics = AudioSpace.Acoustics()
acoustics.walls = [
  .init(points: [Point(x: 500, y: -300), Point(x: 500, y: -40)], material: .brick),
  .init(points: [Point(x: 500, y: 40), Point(x: 500, y: 300)], material: .brick),
]
acoustics.portals = [.init(from: Point(x: 500, y: -40), to: Point(x: 500, y: 40), openness: 1)]
acoustics.rooms = [.init(polygon: [Point(x: 500, y: -300), Point(x: 900, y: -300), Point(x: 900, y: 300),
                                   Point(x: 500, y: 300)], reverbSend: 0.6)]
space.acoustics = acoustics
// The door swings shut: a new value, heard from the next update.
acoustics.portals[0].openness = 0
space.acoustics = acoustics
// BLOCK-END
}

@MainActor func guideCapturing(engine: AudioEngine, assets: URL) throws {
// DOCC-BLOCK Foley/Capturing.md 1
let file = FileManager.default.temporaryDirectory.appendingPathComponent("last-round.foleycapture")
try engine.startCapture(to: file, replacing: true)
// …the round plays…
if let summary = engine.stopCapture() {
  print("captured \(summary.records) commands, \(summary.bytes) bytes, \(summary.seconds) s")
}
// BLOCK-END
// DOCC-BLOCK Foley/Capturing.md 2
let capture = try CaptureFile(contentsOf: URL(fileURLWithPath: "last-round.foleycapture"))
let replay = try OfflineRenderer.replay(
  capture, to: URL(fileURLWithPath: "last-round.wav"), assetRoots: [assets])
for warning in replay.warnings { print("warning:", warning) }
// BLOCK-END
}

/// What the rollback article's game loop takes as given: a fighter's input and its netcode.
struct FighterInput { var punch = false }
struct Netcode {
  var firstMispredictedFrame: Int?
  var confirmedFrame = 0
  func inputs(at frame: Int) -> [FighterInput] { [FighterInput(), FighterInput(punch: true)] }
}

@MainActor func guideRollback(
  engine: AudioEngine, map: SoundMap, punch: Sound, chargeLoop: Sound, step: Sound, cheer: Sound,
  netcode: Netcode, currentFrame: Int, frame: Int
) throws {
// DOCC-BLOCK Foley/Rollback.md 1
let timeline = try engine.rollbackTimeline(framesPerSecond: 60)

func simulate(_ frame: Int, inputs: [FighterInput]) {
  for (player, input) in inputs.enumerated() where input.punch {
    timeline.play(punch, key: RollbackKey(event: "punch", entity: player, frame: frame), frame: frame)
  }
}

// Each frame of the game: a late remote input proved frame `changed` wrong.
if let changed = netcode.firstMispredictedFrame {
  try timeline.rollback(to: changed)
  for frame in changed..<currentFrame { simulate(frame, inputs: netcode.inputs(at: frame)) }
  let outcome = timeline.endResimulation()
  if outcome.fadedOut > 0 { print("\(outcome.fadedOut) sounds were mispredicted") }
}
simulate(currentFrame, inputs: netcode.inputs(at: currentFrame))
timeline.confirm(through: netcode.confirmedFrame)
// BLOCK-END
// DOCC-BLOCK Foley/Rollback.md 2
let charge = RollbackKey(event: "charge", entity: 1, frame: 200)
timeline.play(chargeLoop, key: charge, frame: 200, loops: -1)
// …the player releases the button on frame 260:
timeline.stop(key: charge, frame: 260)
// BLOCK-END
// DOCC-BLOCK Foley/Rollback.md 3
try map.post("hit.heavy", key: RollbackKey(event: "hit", entity: 1, frame: frame), frame: frame, through: timeline)
// BLOCK-END
// DOCC-BLOCK Foley/Rollback.md 4
let settings = RollbackTimeline.Settings(fadeOut: Tween(duration: 0.05, easing: .easeOut), lateFadeIn: 0.004)
let arena = try engine.rollbackTimeline(framesPerSecond: 60, settings: settings)
arena.play(step, key: RollbackKey(event: "step", entity: 0, frame: 90), frame: 90, late: .skip)
arena.play(cheer, key: "cheer-round-1", frame: 120, ifMispredicted: .ring)
// BLOCK-END
// DOCC-BLOCK Foley/Rollback.md 5
let live = try engine.rollbackTimeline(framesPerSecond: 60, settings: .init(lead: 0.03))
// each frame of the game loop, before simulating it:
live.advance(to: currentFrame)
// BLOCK-END
}
