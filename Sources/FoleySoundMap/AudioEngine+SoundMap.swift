public import FoleyAudio
public import FoleyScene

extension AudioEngine {
  /// Plays `map`'s sounds for the events posted in `scene` (`scene.events.post(...)`). A scene
  /// may use several maps; an event none of them knows is counted by each.
  ///
  /// ```swift
  /// engine.attach(to: scene, positional: true)
  /// engine.use(try SoundMap(contentsOf: mapURL, engine: engine), for: scene)
  /// scene.events.post("ball.hit", parameters: ["speed": 3], from: ball)
  /// ```
  @MainActor
  public func use(_ map: SoundMap, for scene: Scene) {
    map.attach(to: scene)
  }

  /// Stops `map` from playing `scene`'s events.
  @MainActor
  public func stopUsing(_ map: SoundMap, for scene: Scene) {
    map.detach(from: scene)
  }
}
