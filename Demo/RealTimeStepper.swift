import Foley

/// Steps a scene by the wall-clock time since the last step: the command-line tools' game loop.
@MainActor
final class RealTimeStepper {
  let scene: Scene
  private var last = ContinuousClock.now

  init(_ scene: Scene) {
    self.scene = scene
  }

  /// Updates the scene by the time that passed since the last call (or since the stepper was made).
  func step() {
    let now = ContinuousClock.now
    let elapsed = now - last
    scene.update(
      deltaTime: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    last = now
  }
}
