import Foley
import Foundation

/// The cave: the right part of the field, behind a wall. The player's own sounds take the cave's
/// reverb while it is inside; a ball on the other side of the wall from the player is occluded
/// (low-passed and lowered); each thud's pitch follows its ball's speed; the music ducks under
/// the spoken line by the speech bus's own level (a sidechain compressor).
extension DemoGame {
  /// The cave's left edge, as a share of the field's width.
  static let caveStart = 0.7

  func isInCave(_ point: Point) -> Bool { point.x >= scene.size.width * Self.caveStart }

  /// Draws the cave. Its reverb (the cave preset) and the music's ducking under speech (a
  /// compressor on the music bus keyed by the speech bus) come from the sound map's `mix`
  /// section, Assets/sounds.json: edit it while the game runs and they change.
  func buildCave() {
    let width = scene.size.width * (1 - Self.caveStart)
    let cave = SpriteNode(
      color: Color(red: 0.12, green: 0.1, blue: 0.16), size: Size(width: width, height: scene.size.height))
    cave.name = "cave"
    cave.position = Point(x: scene.size.width - width / 2, y: scene.size.height / 2)
    cave.zPosition = -1
    scene.addChild(cave)
  }

  /// Each frame: the player's reverb as it enters or leaves, the balls' occlusion as they cross
  /// the wall (each only when it changes).
  func updateCave() {
    let playerInside = isInCave(player.position)
    if playerInside != playerWasInCave {
      playerWasInCave = playerInside
      player.run(.changeReverb(to: playerInside ? 0.7 : 0, duration: 0.4))
      if playerInside { report.cave.entries += 1 }
    }
    for (ball, _) in balls {
      let occluded = isInCave(ball.position) != playerInside
      let key = ObjectIdentifier(ball)
      guard occluded != occludedBalls.contains(key) else { continue }
      if occluded {
        occludedBalls.insert(key)
        report.cave.occlusions += 1
      } else {
        occludedBalls.remove(key)
      }
      ball.run(.changeOcclusion(to: occluded ? -18 : 0, duration: 0.15))
    }
  }

  /// A collision, posted as a game event: the sound map decides what it sounds like (a thud at
  /// the ball's place, varied in pitch and level), and the game's code plays nothing itself but
  /// tune the thud to the ball's speed: faster, higher.
  func collide(_ ball: SpriteNode, with surface: String, speed: Double) {
    report.collisions += 1
    if surface == "player" {
      stingOnHit()
      playerWasHit()
    }
    scene.events.post(
      "ball.hit", parameters: ["surface": .string(surface), "speed": .number(speed)], from: ball)
    engine.newestVoice(of: ball)?.setPlaybackRate(min(1.35, max(0.75, 0.75 + speed / 500)))
  }
}

/// O moves the sound to the next output device while everything plays (the HUD says which).
extension DemoGame {
  func switchOutput() {
    let devices = engine.outputDevices.map(\.name)
    guard devices.count > 1 else {
      policyNote = "ONLY ONE OUTPUT DEVICE"
      return
    }
    let current = engine.outputDeviceName ?? devices.first
    let next = devices[((current.flatMap { devices.firstIndex(of: $0) } ?? -1) + 1) % devices.count]
    do {
      try engine.switchOutput(to: next)
      policyNote = "OUTPUT: \(next.uppercased())"
    } catch {
      report.errors.append("switching output: \(error)")
    }
  }
}
