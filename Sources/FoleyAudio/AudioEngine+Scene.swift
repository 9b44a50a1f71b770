public import FoleyScene

extension AudioEngine {
  /// Makes this engine the one `scene`'s sound actions play through.
  @MainActor
  public func attach(to scene: Scene) {
    scene.setService(self)
  }

  /// Stops `scene`'s sound actions from using this engine.
  @MainActor
  public func detach(from scene: Scene) {
    if scene.service(AudioEngine.self) === self { scene.setService(nil, as: AudioEngine.self) }
  }
}
