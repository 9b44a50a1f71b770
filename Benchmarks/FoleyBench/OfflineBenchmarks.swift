import Foley
import FoleyOffline
import Foundation
import Logging

/// The offline renderer's speed: a scripted scene with 64 looping positional voices that move,
/// and a music track, rendered without a device; seconds of audio per second of wall time.
@MainActor
enum OfflineBenchmarks {
  static func figures(_ long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let seconds = quick ? 20.0 : 60.0
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "foley-offline-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let track = folder.appendingPathComponent("music.wav")
    try BenchSounds.tone(seconds: 30, frequency: 330).write(to: track)
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 128
    let renderer = try OfflineRenderer(configuration: configuration, logger: logger)
    defer { renderer.close() }
    let engine = renderer.engine
    let scene = Scene(size: Size(width: 800, height: 600), seed: 1)
    engine.attach(to: scene, positional: true)
    SceneView().presentScene(scene)
    let sound = try engine.sound(data: long)
    for index in 0..<64 {
      let node = AudioNode(sound: sound)
      node.position = Point(x: Double(index % 8) * 100, y: Double(index / 8) * 75)
      scene.addChild(node)
      node.run(
        .repeatForever(
          .sequence([
            .move(by: Vector(dx: 50, dy: 0), duration: 1), .move(by: Vector(dx: -50, dy: 0), duration: 1),
          ])))
    }
    engine.music.play(Track(url: track, loopCount: -1))
    let result = try renderer.render(
      seconds: seconds, update: { scene.update(deltaTime: $0) }, consume: { _ in })
    return ["offline_render_speed": result.speed, "offline_render_seconds": seconds]
  }
}
