import FoleyAudio
import FoleyCore
import FoleyScene
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

@testable import FoleySceneAudio

/// A tile map's worth of walls: a hundred thousand segments go into a scene and out again. The
/// scene's list of acoustic nodes searched itself on every add and remove, so 20,000 walls took
/// minutes; with constant-time adds and removes this test takes about two seconds of a debug
/// build, and a return of the quadratic cost would hold the suite for hours. (No time limit: the
/// suite's other main-actor tests share the thread, so the wait for it is not this test's time.)
@MainActor
@Suite("A hundred thousand walls", .serialized)
struct AcousticScaleTests {
  @Test("100,000 walls are added, built and removed, by a parent and one by one")
  func hundredThousandWalls() throws {
    let engine = try AudioEngine(embedded: EmbeddedMixer(), session: AudioSession())
    defer { engine.close() }
    let scene = Scene(size: Size(width: 800, height: 600))
    engine.attach(to: scene, positional: true)
    let layer = Node()
    scene.addChild(layer)
    let walls = (0..<100_000).map { index in
      let x = Double(index % 400) * 16
      let y = Double(index / 400) * 16
      return Wall(points: [Point(x: x, y: y), Point(x: x + 16, y: y)])
    }
    for wall in walls { layer.addChild(wall) }
    let acoustics = try #require(SceneAcoustics.of(scene))
    #expect(acoustics.geometry(in: scene).segments.count == 100_000)
    scene.update(deltaTime: 1.0 / 60)
    layer.removeAllChildren()
    #expect(acoustics.isEmpty)
    #expect(acoustics.geometry(in: scene).segments.isEmpty)
    // Back in, then out one at a time, newest first (a level unloading its tiles).
    for wall in walls { layer.addChild(wall) }
    #expect(acoustics.geometry(in: scene).segments.count == 100_000)
    for wall in walls.reversed() { wall.removeFromParent() }
    #expect(acoustics.isEmpty && layer.children.isEmpty)
    scene.update(deltaTime: 1.0 / 60)
  }
}
