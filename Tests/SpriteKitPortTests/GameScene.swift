// swift-format-ignore-file
import Foley
import Foundation

// The two examples of the "Coming from SpriteKit" guide
// (Sources/Foley/Documentation.docc/ComingFromSpriteKit.md), as written there: ReadmeTests checks
// that the guide shows exactly these lines, and PortTests runs the scene.
// DOCC-BLOCK Foley/ComingFromSpriteKit.md 1
final class GameScene: Scene {  // SKScene
  let hero = SpriteNode(color: .green, size: Size(width: 32, height: 32))
  static var sounds = Bundle.main.resourceURL!  // where the sounds are
  let campfire = AudioNode(url: GameScene.sounds.appendingPathComponent("fire.ogg"))  // SKAudioNode(url:)
  var fireVolume: Float = 0.5  // a setting, in SpriteKit's Float

  override func didMove(to view: SceneView) {  // SKView
    hero.position = Point(x: 100, y: 300)
    addChild(hero)
    listener = hero
    campfire.position = Point(x: 400, y: 300)
    addChild(campfire)
    let coin = SpriteNode(color: Color(red: 1, green: 0.85, blue: 0.2), size: Size(width: 8, height: 8))
    coin.position = Point(x: 120, y: 300)
    addChild(coin)
    coin.run(
      .sequence([
        .playSoundFileNamed("coin.wav", waitForCompletion: true),
        .wait(forDuration: 0.5),
        .fadeOut(withDuration: 0.25),
        .removeFromParent(),
      ]))
    campfire.run(
      .sequence([
        .wait(forDuration: 1),
        .changeVolume(to: fireVolume, duration: 1),
        .group([.changeObstruction(by: -4, duration: 0.5), .changeOcclusion(by: -2, duration: 0.5)]),
      ]))
  }

  override func update(_ currentTime: TimeInterval) {
    hero.position.x += 2  // walking past the fire: its sound moves from the right ear to the left
  }
}
// BLOCK-END

@MainActor func guidePort() throws {
// DOCC-BLOCK Foley/ComingFromSpriteKit.md 2
let engine = try AudioEngine()                 // SpriteKit's audio engine is implicit; here you open one…
let view = SceneView()
let scene = GameScene(size: Size(width: 800, height: 600))
engine.attach(to: scene)                       // …and attach it to the scenes that should sound
view.presentScene(scene)                       // calls didMove(to:)
// each frame: view.update(deltaTime: 1.0 / 60) (calls update(_:), runs the actions), then draw view.scene
// BLOCK-END
}
