import Foley
import Foundation

/// The thuds: each collision is a game event the sound map turns into a sound; a ball's thud is
/// pitched to its speed. Where a level has a cave (a room with a long reverb), the report counts
/// the player's visits; its walls and doors are the engine's to hear.
extension DemoGame {
  /// Whether `point` is in the level's cave (no level but the third has one).
  func isInCave(_ point: Point) -> Bool {
    level.halls.contains { $0.name == "cave" && $0.contains(point) }
  }

  /// Each frame: counts the player's walks into the cave.
  func updateCave() {
    let playerInside = isInCave(player.position)
    if playerInside != playerWasInCave {
      playerWasInCave = playerInside
      if playerInside { report.cave.entries += 1 }
    }
  }

  /// A collision, posted as a game event: the sound map decides what it sounds like (a thud at
  /// the ball's place, varied in pitch and level), and the game's code plays nothing itself but
  /// tune the thud to the ball's speed: faster, higher.
  func collide(_ ball: SpriteNode, index: Int, with surface: String, speed: Double) {
    report.collisions += 1
    if surface == "player", playerWasHit(by: index) { stingOnHit() }
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
