import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Positional sound's logic on the embedded mixer and in pure functions: the distance models, the
/// listener, audio nodes and their actions, exactly and frame by frame.
@MainActor
@Suite("Positional sound (embedded mixer)", .serialized)
struct SpatialLogicTests {
  @Test("distance models: OpenAL's, clamped below the reference, silent beyond the maximum")
  func distanceModels() {
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 1, rolloff: 1)
    #expect(spatial.gain(atDistance: 0.5) == 1)
    #expect(spatial.gain(atDistance: 2) == 0.5)  // -6 dB at twice the reference
    #expect(abs(spatial.gain(atDistance: 4) - 0.25) < 1e-12)
    spatial.distanceModel = .linear(reference: 10, maximum: 110)
    #expect(spatial.gain(atDistance: 60) == 0.5)
    #expect(spatial.gain(atDistance: 200) == 0)
    spatial.distanceModel = .exponential(reference: 10, rolloff: 2)
    #expect(abs(spatial.gain(atDistance: 20) - 0.25) < 1e-12)
    spatial.distanceModel = .none
    spatial.maximumDistance = 500
    #expect(spatial.gain(atDistance: 499) == 1 && spatial.gain(atDistance: 501) == 0)
    spatial.panWidth = 200
    #expect(spatial.pan(forHorizontalOffset: -100) == -0.5 && spatial.pan(forHorizontalOffset: 900) == 1)
  }

  @Test("positions in the scene include every ancestor's position, rotation and scale")
  func coordinates() {
    let scene = Scene(size: Size(width: 100, height: 100))
    let arm = Node()
    arm.position = Point(x: 10, y: 0)
    arm.zRotation = .pi / 2
    arm.xScale = 2
    arm.yScale = 2
    let hand = Node()
    hand.position = Point(x: 5, y: 0)
    scene.addChild(arm)
    arm.addChild(hand)
    let world = hand.positionInScene
    #expect(abs(world.x - 10) < 1e-9 && abs(world.y - 10) < 1e-9)
    let back = scene.convert(world, to: arm)
    #expect(abs(back.x - 5) < 1e-9 && abs(back.y) < 1e-9)
    // Scaled but not rotated (the unrotated shortcut): (10, 0) + (3 × 5, 0.5 × 4).
    let stretched = Node()
    stretched.position = Point(x: 10, y: 0)
    stretched.xScale = 3
    stretched.yScale = 0.5
    let tip = Node()
    tip.position = Point(x: 5, y: 4)
    scene.addChild(stretched)
    stretched.addChild(tip)
    #expect(tip.positionInScene == Point(x: 25, y: 2))
  }

  @Test(
    "a positional voice's slot lets go of its node when the voice ends; a scene that goes without a detach stops its sounds"
  )
  func positionalSlotsLetGo() throws {
    let audio = try EmbeddedAudio(limiter: false)
    weak var shortNode: Node?
    weak var shortVoice: Voice?
    weak var loopNode: Node?
    weak var weakScene: Scene?
    do {
      let scene = Scene(size: Size(width: 800, height: 600))
      weakScene = scene
      audio.engine.attach(to: scene, positional: true)
      let ball = Node()
      scene.addChild(ball)
      ball.run(.playSound(data: makeToneWAV(frequency: 0, duration: 0.05, amplitude: 0.5, channels: 1)))
      let hum = AudioNode(
        data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.2, channels: 1), name: "hum")
      scene.addChild(hum)
      audio.advance(seconds: 0.02, stepping: scene)
      shortVoice = audio.engine.newestVoice(of: ball)
      #expect(shortVoice?.state == .playing)
      #expect(hum.voice?.state == .playing)
      shortNode = ball
      loopNode = hum
      // The one-shot ends, and the next update frees its slot: nothing else holds the ball.
      ball.removeFromParent()
      audio.advance(seconds: 0.1, stepping: scene)
    }
    // The voice ended. (The scene's link kept it for reuse and let it go with the scene; its
    // last reference may still be on its way back from the audio queue.)
    #expect(shortNode == nil)
    #expect(shortVoice == nil || shortVoice?.isFinished == true)
    // The scene went without a detach: its link gave back the looping node's slot with it.
    #expect(weakScene == nil)
    #expect(loopNode == nil)
    // A scene that goes without a detach stops its positional sounds, as a detach does: the
    // loop has nothing left that could stop it. A node the game still holds outlives it.
    audio.advance(seconds: 0.05)
    #expect(audio.engine.voiceCensus() == VoiceCensus())
    var kept: AudioNode?
    do {
      let scene = Scene(size: Size(width: 800, height: 600))
      audio.engine.attach(to: scene, positional: true)
      let hum = AudioNode(
        data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.2, channels: 1), name: "hum")
      scene.addChild(hum)
      audio.advance(seconds: 0.05, stepping: scene)
      #expect(hum.voice?.state == .playing)
      kept = hum
    }
    audio.advance(seconds: 0.1)
    #expect(kept?.parent == nil)
    #expect(audio.engine.voiceCensus() == VoiceCensus())
    #expect(audio.left.samples.suffix(2_400).allSatisfy { $0 == 0 })
  }

  @Test("an audio node loops once it is in a scene with an engine, follows its node, and stops when removed")
  func audioNodeLifecycle() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene(size: Size(width: 800, height: 600))
    let node = AudioNode(
      data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.5, channels: 1), name: "dc")
    node.position = Point(x: 400, y: 300)
    scene.addChild(node)  // no engine yet: nothing plays
    audio.advance(seconds: 0.05, stepping: scene)
    #expect(node.voice == nil)
    var spatial = SpatialAudio()
    spatial.distanceModel = .inverse(reference: 100, rolloff: 1)
    audio.engine.attach(to: scene, positional: false, spatial: spatial)  // audio nodes are positional anyway
    audio.advance(seconds: 0.3, stepping: scene)
    #expect(node.voice?.state == .playing)
    let source = Float(Int16(0.5 * 32_767)) / 32_768
    #expect(abs(audio.left.samples.last! - source * 0.70710678) < 1e-5)  // centred, looping past 0.1 s
    // Moved 300 points left: gain 1/3, pan -0.75.
    node.position = Point(x: 100, y: 300)
    audio.advance(seconds: 0.1, stepping: scene)
    let angle = 0.25 * Double.pi / 4
    #expect(abs(audio.left.samples.last! - source * Float(cos(angle) / 3)) < 1e-5)
    #expect(abs(audio.right.samples.last! - source * Float(sin(angle) / 3)) < 1e-5)
    // A listener elsewhere moves what is heard.
    let listener = Node()
    listener.position = Point(x: 100, y: 300)
    scene.addChild(listener)
    scene.listener = listener
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(abs(audio.left.samples.last! - source * 0.70710678) < 1e-5)
    node.removeFromParent()
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice == nil && audio.engine.voiceCensus() == VoiceCensus())
    #expect(audio.left.samples.suffix(2_400).allSatisfy { $0 == 0 })
    // Added back, it starts again.
    scene.addChild(node)
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice?.state == .playing)
  }

  @Test("audio node actions: stop, play, pause, stereo pan, change volume; a paused scene holds it")
  func audioNodeActions() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene(size: Size(width: 800, height: 600))
    audio.engine.attach(to: scene)
    let node = AudioNode(
      data: makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.5, channels: 2), name: "dc")
    node.isPositional = false
    scene.addChild(node)
    audio.advance(seconds: 0.1, stepping: scene)
    let source = Float(Int16(0.5 * 32_767)) / 32_768
    #expect(audio.left.samples.last == source)
    node.run(.stereoPan(to: 0.5, duration: 0.1))
    audio.advance(seconds: 0.2, stepping: scene)
    #expect(audio.left.samples.last == source * 0.5 && audio.right.samples.last == source)  // balance law
    node.run(.changeVolume(to: 0.5, duration: 0))
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(audio.right.samples.last == source * 0.5)
    node.run(.pause())
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice?.state == .paused && audio.right.samples.last == 0)
    scene.isPaused = true
    node.run(.play())  // actions do not run while the scene is paused
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice?.state == .paused)
    scene.isPaused = false
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice?.state == .playing && audio.right.samples.last == source * 0.5)
    scene.isPaused = true
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice?.state == .paused && audio.right.samples.last == 0)
    scene.isPaused = false
    node.run(.stop())
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice == nil && audio.engine.voiceCensus() == VoiceCensus())
    node.run(.play())
    audio.advance(seconds: 0.1, stepping: scene)
    #expect(node.voice?.state == .playing)
  }

  @Test("positional actions: a sound started by a node is heard from it and follows it")
  func positionalActions() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene(size: Size(width: 800, height: 600))
    var spatial = SpatialAudio()
    spatial.distanceModel = .none
    spatial.panWidth = 400
    audio.engine.attach(to: scene, positional: true, spatial: spatial)
    let ball = Node()
    ball.position = Point(x: 800, y: 300)  // full right
    scene.addChild(ball)
    ball.run(.playSound(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5, channels: 1)))
    audio.advance(seconds: 0.1, stepping: scene)
    let source = Float(Int16(0.5 * 32_767)) / 32_768
    #expect(audio.left.samples.last! < 1e-6 && abs(audio.right.samples.last! - source) < 1e-6)
    ball.run(.moveTo(x: 0, duration: 0.2))
    audio.advance(seconds: 0.3, stepping: scene)
    #expect(abs(audio.left.samples.last! - source) < 1e-6 && audio.right.samples.last! < 1e-6)
    // Smooth all the way: per-sample ramps between the updates.
    #expect(audio.left.largestStep(in: 5_000..<audio.frames) < source * 0.01)
  }

  @Test("scene hooks: update(_:), didEvaluateActions, didFinishUpdate; a view calls didMove and willMove")
  func sceneHooks() {
    final class Level: Scene {
      var calls: [String] = []
      override func update(_ currentTime: TimeInterval) { calls.append("update \(currentTime)") }
      override func didEvaluateActions() { calls.append("evaluated") }
      override func didFinishUpdate() { calls.append("finished") }
      override func didMove(to view: SceneView) { calls.append("didMove") }
      override func willMove(from view: SceneView) { calls.append("willMove") }
    }
    let view = SceneView()
    let level = Level()
    view.presentScene(level)
    #expect(level.view === view)
    view.update(deltaTime: 0.5)
    view.update(deltaTime: 0.25)
    view.presentScene(Scene())
    #expect(level.view == nil)
    #expect(
      level.calls == [
        "didMove", "update 0.5", "evaluated", "finished", "update 0.75", "evaluated", "finished", "willMove",
      ])
  }

  @Test("colorize and resize animate a sprite (and reverse)")
  func colorizeAndResize() {
    let scene = Scene()
    let sprite = SpriteNode(color: .black, size: Size(width: 10, height: 20))
    scene.addChild(sprite)
    sprite.run(
      .group([
        .colorize(with: .white, colorBlendFactor: 1, duration: 1),
        .resize(toWidth: 30, height: 40, duration: 1),
      ]))
    scene.update(deltaTime: 0.5)
    #expect(sprite.color.red == 0.5 && sprite.colorBlendFactor == 0.5)
    #expect(sprite.size == Size(width: 20, height: 30))
    scene.update(deltaTime: 0.5)
    #expect(sprite.color == .white && sprite.size == Size(width: 30, height: 40))
    sprite.run(.resize(byWidth: 10, height: 10, duration: 0).reversed())
    scene.update(deltaTime: 0)
    #expect(sprite.size == Size(width: 20, height: 30))
  }
}
