import Foley
import Foundation

/// The balls: each hums as it flies (its own pitch, a looping positional voice riding on it, so a
/// player hears it coming and passing), bounces off the field's edges, the level's walls, the
/// other balls and the player, and every bounce is a game event the sound map turns into a thud.
extension DemoGame {
  /// A ball, humming as it flies: its hum (one of five pitches) is a looping `AudioNode` that
  /// rides on it.
  func addBall(at position: Point, index: Int, velocity: Vector? = nil) {
    let palette = [
      Color(red: 0.95, green: 0.45, blue: 0.3), Color(red: 0.35, green: 0.6, blue: 1),
      Color(red: 1, green: 0.85, blue: 0.3), Color(red: 0.8, green: 0.4, blue: 0.95),
    ]
    let ball = SpriteNode(color: palette[index % palette.count], size: Size(width: 22, height: 22))
    ball.name = "ball"
    ball.position = position
    ball.run(.repeatForever(.rotate(byAngle: .pi, duration: 1 + Double(index % 6) * 0.2)))
    ball.zPosition = 0.5
    ball.isHidden = isDark
    scene.addChild(ball)
    if !humSounds.isEmpty {
      let hum = AudioNode(sound: humSounds[index % humSounds.count])
      hum.name = "hum"
      if engine.parameter("danger") != nil { hum.modulators = Self.humModulators }
      ball.addChild(hum)
    }
    let angle = Double(index) * 1.3 + 0.4
    balls.append((ball, velocity ?? Vector(dx: cos(angle) * 130, dy: sin(angle) * 130)))
  }

  func moveBalls(_ deltaTime: Double) {
    let radius = 11.0
    for index in balls.indices {
      var (ball, velocity) = balls[index]
      var hit = false
      // Swept: in sub-steps no longer than half its radius, each bouncing off what it meets, so
      // a long frame cannot carry a ball through a wall.
      let distance = (velocity.dx * velocity.dx + velocity.dy * velocity.dy).squareRoot() * deltaTime
      let steps = WallContact.substeps(distance: distance, radius: radius)
      let part = deltaTime / Double(steps)
      for _ in 0..<steps {
        ball.position = ball.position + velocity * part
        if ball.position.x < radius || ball.position.x > fieldWidth - radius {
          velocity.dx = -velocity.dx
          hit = true
        }
        if ball.position.y < radius || ball.position.y > fieldTop - radius {
          velocity.dy = -velocity.dy
          hit = true
        }
        ball.position.x = min(max(ball.position.x, radius), fieldWidth - radius)
        ball.position.y = min(max(ball.position.y, radius), fieldTop - radius)
        for normal in WallContact.pushOut(&ball.position, radius: radius, segments: levelSegments) {
          let along = velocity.dx * normal.dx + velocity.dy * normal.dy
          if along < 0 {
            velocity = Vector(
              dx: velocity.dx - 2 * along * normal.dx, dy: velocity.dy - 2 * along * normal.dy)
            hit = true
          }
        }
      }
      // The player bats balls away.
      let offset = ball.position - player.position
      if abs(offset.dx) < 29, abs(offset.dy) < 29, offset.dx * velocity.dx + offset.dy * velocity.dy < 0 {
        velocity =
          abs(offset.dx) > abs(offset.dy)
          ? Vector(dx: -velocity.dx, dy: velocity.dy) : Vector(dx: velocity.dx, dy: -velocity.dy)
        hit = true
      }
      balls[index].velocity = velocity
      if hit {
        let surface = abs(offset.dx) < 29 && abs(offset.dy) < 29 ? "player" : "wall"
        collide(
          ball, index: index, with: surface,
          speed: (velocity.dx * velocity.dx + velocity.dy * velocity.dy).squareRoot())
      }
    }
    // Balls that touch bounce apart.
    for first in balls.indices {
      for second in balls.indices where second > first {
        let offset = balls[second].node.position - balls[first].node.position
        let distance = (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
        let approaching =
          (balls[second].velocity.dx - balls[first].velocity.dx) * offset.dx
          + (balls[second].velocity.dy - balls[first].velocity.dy) * offset.dy < 0
        guard distance < 2 * radius, distance > 0, approaching else { continue }
        let exchanged = balls[first].velocity
        balls[first].velocity = balls[second].velocity
        balls[second].velocity = exchanged
        let velocity = balls[first].velocity
        collide(
          balls[first].node, index: first, with: "ball",
          speed: (velocity.dx * velocity.dx + velocity.dy * velocity.dy).squareRoot())
      }
    }
  }
}
