import Foley
import Foundation

/// The demo game: a player the arrow keys move, and balls that bounce around the field.
@MainActor
final class BounceGame {
  let scene: Scene
  let player = SpriteNode(color: Color(red: 0.3, green: 0.9, blue: 0.4), size: Size(width: 36, height: 36))
  private var balls: [(node: SpriteNode, velocity: Vector)] = []
  private var heldKeys: Set<Key> = []
  private(set) var frameCount = 0
  private(set) var bounces = 0
  private var isRunning = true

  init(size: Size) {
    scene = Scene(size: size, seed: 2026)
    player.name = "player"
    player.position = Point(x: size.width / 2, y: 60)
    scene.addChild(player)
    let palette = [
      Color(red: 0.95, green: 0.45, blue: 0.3), Color(red: 0.35, green: 0.6, blue: 1),
      Color(red: 1, green: 0.85, blue: 0.3), Color(red: 0.8, green: 0.4, blue: 0.95),
    ]
    for index in 0..<6 {
      let ball = SpriteNode(color: palette[index % palette.count], size: Size(width: 22, height: 22))
      ball.name = "ball"
      ball.position = Point(x: 100 + Double(index) * 110, y: 200 + Double(index % 3) * 110)
      ball.run(.repeatForever(.rotate(byAngle: .pi, duration: 1 + Double(index) * 0.2)))
      scene.addChild(ball)
      balls.append((ball, Vector(dx: 140 + Double(index) * 25, dy: 110 - Double(index) * 30)))
    }
    player.run(
      .repeatForever(.sequence([.scale(to: 1.1, duration: 0.4), .scale(to: 1, duration: 0.4)])),
      withKey: "breathe")
  }

  var summary: String {
    "\(frameCount) frames, \(bounces) bounces, player at \(player.position)"
  }

  func handle(_ event: PlatformEvent) {
    switch event {
    case .quit, .keyDown(.escape, _): isRunning = false
    case .keyDown(let key, _): heldKeys.insert(key)
    case .keyUp(let key): heldKeys.remove(key)
    default: break
    }
  }

  func step(_ deltaTime: Double) {
    frameCount += 1
    let speed = 260.0 * deltaTime
    if heldKeys.contains(.left) { player.position.x -= speed }
    if heldKeys.contains(.right) { player.position.x += speed }
    if heldKeys.contains(.up) { player.position.y += speed }
    if heldKeys.contains(.down) { player.position.y -= speed }
    player.position.x = min(max(player.position.x, 18), scene.size.width - 18)
    player.position.y = min(max(player.position.y, 18), scene.size.height - 18)
    for index in balls.indices {
      var (ball, velocity) = balls[index]
      ball.position = ball.position + velocity * deltaTime
      if ball.position.x < 11 || ball.position.x > scene.size.width - 11 {
        velocity.dx = -velocity.dx
        bounces += 1
      }
      if ball.position.y < 11 || ball.position.y > scene.size.height - 11 {
        velocity.dy = -velocity.dy
        bounces += 1
      }
      ball.position.x = min(max(ball.position.x, 11), scene.size.width - 11)
      ball.position.y = min(max(ball.position.y, 11), scene.size.height - 11)
      balls[index].velocity = velocity
    }
    scene.update(deltaTime: deltaTime)
  }

  func runWindowed(canvas: Canvas) {
    let pump = EventPump(sceneHeight: scene.size.height)
    var last = Date()
    while isRunning {
      for event in pump.poll() { handle(event) }
      let now = Date()
      step(min(now.timeIntervalSince(last), 0.1))
      last = now
      canvas.draw(scene)
    }
  }

  func runHeadless(frames: Int, canvas: Canvas) {
    let pump = EventPump(sceneHeight: scene.size.height)
    for _ in 0..<frames where isRunning {
      for event in pump.poll() { handle(event) }
      step(1.0 / 60.0)
      canvas.draw(scene)
    }
  }
}
