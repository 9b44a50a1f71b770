import Foley
import Foundation

// The scene below is the example of the "Coming from SpriteKit" guide
// (Sources/Foley/Documentation.docc/ComingFromSpriteKit.md), as written there (a test checks
// that the guide shows exactly these lines).
// GUIDE-EXAMPLE-BEGIN
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
// GUIDE-EXAMPLE-END
