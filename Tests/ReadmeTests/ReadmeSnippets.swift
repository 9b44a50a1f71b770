// swift-format-ignore-file
// Every Swift block of README.md, verbatim between its markers (ReadmeTests checks that they
// match), wrapped in what it assumes exists: this target compiles them, so a README example
// that stops compiling fails the build. A block's `import` lines are at the top here, and only
// those: `import Foley` must bring Foundation, as the quick start assumes. Block 1 is the game's
// Package.swift, which Scripts/check-embedding.sh builds with block 2 in a package of its own.
import Foley
import Logging

@MainActor func quickStart() throws {
// README-BLOCK 2
let sdl = try SDLContext(subsystems: [.video, .audio, .events])  // quits only what it started
defer { sdl.shutdown() }
var log = Logger(label: "mygame.audio")
log.logLevel = .warning  // the engine's warnings and errors, not its info lines
let engine = try AudioEngine(logger: log)  // 48 kHz float stereo; silent, with a warning, without a device
defer { engine.close() }
let canvas = try Canvas(title: "mygame", width: 800, height: 600, presentation: .window)
let scene = Scene(size: Size(width: 800, height: 600))
engine.attach(to: scene, positional: true)  // sounds that actions start come from their node

let ship = SpriteNode(color: .green, size: Size(width: 32, height: 32))
ship.position = Point(x: 300, y: 300)
scene.addChild(ship)
ship.run(.repeatForever(.sequence([
  .playSoundFileNamed("chime.wav", waitForCompletion: false),  // decoded once; each play overlaps the last
  .move(by: Vector(dx: 200, dy: 0), duration: 1),
  .move(by: Vector(dx: -200, dy: 0), duration: 1),
])), withKey: "patrol")

let fire = AudioNode(fileNamed: "ambience.wav")  // SKAudioNode: loops, heard from where it stands
fire.position = Point(x: 100, y: 300)
scene.addChild(fire)  // the listener is the scene's centre (scene.listener = ship to follow the ship)
engine.music.play(Track(named: "Music/calm.ogg", loopCount: -1))  // streamed; -1 loops for ever

let pump = EventPump(sceneHeight: 600, session: engine.session)  // focus loss pauses the sound
// Runs until the window closes, or for as many seconds as its argument says (`swift run mygame 5`).
let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? .infinity
let clock = ContinuousClock()
let frame = Duration.seconds(1) / 60
let begin = clock.now
var last = begin
var running = true
while running && (clock.now - begin) / .seconds(1) < seconds {
  let start = clock.now
  for polled in pump.poll() where polled.event == .quit { running = false }
  scene.update(deltaTime: (start - last) / .seconds(1))  // time is yours to hand in: the real step
  last = start
  canvas.draw(scene)
  let spent = clock.now - start
  if spent < frame { Thread.sleep(forTimeInterval: (frame - spent) / .seconds(1)) }
}
// BLOCK-END
}
