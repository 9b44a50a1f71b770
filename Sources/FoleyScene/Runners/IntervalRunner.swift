import Foundation

/// Runs a leaf action that changes a node property over a duration.
///
/// Relative effects (`move(by:)`, `rotate(byAngle:)`, …) apply the change in progress since the
/// last step, so several at once add up as in SpriteKit; absolute ones (`move(to:)`, …) read the
/// starting value on their first step and interpolate from it.
///
/// Its state (and every runner's) is `@exclusivity(unchecked)`: it is touched only on the main
/// actor, never across a call out, and the runtime's access checks were a third of the cost of
/// running an action.
@MainActor
final class IntervalRunner: RunnerStage {
  private let effect: PropertyChange
  private let duration: TimeInterval
  private let curve: ActionTimingFunction?
  @exclusivity(unchecked) private var elapsed: TimeInterval = 0
  @exclusivity(unchecked) private var lastProgress: Double = 0
  @exclusivity(unchecked) private var hasStarted = false
  // Values read on the first step: the start of absolute effects, the size of relative scaling.
  @exclusivity(unchecked) private var startPosition = Point.zero
  @exclusivity(unchecked) private var startA: Double = 0
  @exclusivity(unchecked) private var startB: Double = 0
  @exclusivity(unchecked) private var startColor = Color.white

  init(_ effect: PropertyChange, duration: TimeInterval, curve: ActionTimingFunction?) {
    self.effect = effect
    self.duration = duration
    self.curve = curve
  }

  override func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    if !hasStarted {
      hasStarted = true
      captureStart(of: node)
    }
    elapsed += deltaTime
    let finished = ActionClock.hasReached(elapsed, duration)
    let linear = finished ? 1 : elapsed / duration
    let progress = finished ? 1 : (curve?(linear) ?? linear)
    apply(progress, to: node)
    lastProgress = progress
    return finished ? ActionClock.leftover(elapsed, duration) : nil
  }

  override func restart(on node: Node) -> Bool {
    elapsed = 0
    lastProgress = 0
    hasStarted = false
    return true
  }

  private func captureStart(of node: Node) {
    startPosition = node.position
    switch effect {
    case .rotateTo: startA = node.zRotation
    case .scaleBy, .scaleTo: (startA, startB) = (node.xScale, node.yScale)
    case .fadeAlphaTo: startA = node.alpha
    case .speedTo: startA = node.speed
    case .colorize:
      guard let sprite = node as? SpriteNode else { break }
      (startColor, startA) = (sprite.color, sprite.colorBlendFactor)
    case .resizeTo:
      guard let sprite = node as? SpriteNode else { break }
      (startA, startB) = (sprite.size.width, sprite.size.height)
    default: break
    }
  }

  private func apply(_ progress: Double, to node: Node) {
    let step = progress - lastProgress
    switch effect {
    case .moveBy(let delta):
      node.position.x += delta.dx * step
      node.position.y += delta.dy * step
    case .moveTo(let x, let y):
      if let x { node.position.x = startPosition.x + (x - startPosition.x) * progress }
      if let y { node.position.y = startPosition.y + (y - startPosition.y) * progress }
    case .rotateBy(let radians):
      node.zRotation += radians * step
    case .rotateTo(let radians):
      node.zRotation = startA + (radians - startA) * progress
    case .scaleBy(let x, let y):
      node.xScale += startA * (x - 1) * step
      node.yScale += startB * (y - 1) * step
    case .scaleTo(let x, let y):
      if let x { node.xScale = startA + (x - startA) * progress }
      if let y { node.yScale = startB + (y - startB) * progress }
    case .fadeAlphaBy(let delta):
      node.alpha += delta * step
    case .fadeAlphaTo(let alpha, _):
      node.alpha = startA + (alpha - startA) * progress
    case .speedBy(let delta):
      node.speed += delta * step
    case .speedTo(let speed):
      node.speed = startA + (speed - startA) * progress
    case .colorize(let color, let blendFactor):
      guard let sprite = node as? SpriteNode else { break }
      if let color {
        let from = startColor
        sprite.color = Color(
          red: from.red + (color.red - from.red) * progress,
          green: from.green + (color.green - from.green) * progress,
          blue: from.blue + (color.blue - from.blue) * progress,
          alpha: from.alpha + (color.alpha - from.alpha) * progress)
      }
      if let blendFactor { sprite.colorBlendFactor = startA + (blendFactor - startA) * progress }
    case .resizeBy(let width, let height):
      guard let sprite = node as? SpriteNode else { break }
      sprite.size.width += width * step
      sprite.size.height += height * step
    case .resizeTo(let width, let height):
      guard let sprite = node as? SpriteNode else { break }
      if let width { sprite.size.width = startA + (width - startA) * progress }
      if let height { sprite.size.height = startB + (height - startB) * progress }
    case .custom(let block):
      block(node, progress * duration)
    }
  }
}
