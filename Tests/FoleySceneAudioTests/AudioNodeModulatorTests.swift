import FoleyAudio
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// An audio node's modulators reach every voice it starts, as a voice's own do.
@MainActor
@Suite("Audio node modulators (disk driver)", .serialized)
struct AudioNodeModulatorTests {
  /// The DC level of `makeToneWAV(frequency: 0, amplitude: 0.5)` as the mix reads it.
  static let level = Double(Int16(0.5 * 32_767)) / 32_768

  @Test(
    "an audio node whose volume follows a parameter's curve is heard at the curve's level, and follows the parameter"
  )
  func nodeFollowsAParameter() throws {
    var low = 0..<0
    var high = 0..<0
    let capture = try captureDiskOutput { engine, output in
      try engine.defineParameter("danger", range: 0...1, default: 0)
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene)
      let hum = AudioNode(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5), name: "dc.wav")
      hum.isPositional = false
      hum.modulators = [.parameter("danger", curve: try ParameterCurve([(0, -20), (1, 0)]))]
      scene.addChild(hum)
      scene.update(deltaTime: 1.0 / 60)
      #expect(waitUntil(timeout: 30) { hum.voice?.startFrame != nil })
      #expect(output.waitForMore(seconds: 0.3))
      var start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      low = start..<output.framesWritten
      try engine.setParameter("danger", to: 1, tween: Tween(duration: 0.1))
      #expect(output.waitForMore(seconds: 0.3))
      start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      high = start..<output.framesWritten
      hum.removeFromParent()
      scene.update(deltaTime: 1.0 / 60)
    }
    let quiet = 20 * log10(capture.left.rms(in: low) / Self.level)
    let loud = 20 * log10(capture.left.rms(in: high) / Self.level)
    #expect(abs(quiet + 20) < 0.1, "at danger 0 the node plays at \(quiet) dB")
    #expect(abs(loud) < 0.1, "at danger 1 the node plays at \(loud) dB")
  }

  @Test("an audio node's own value of a parameter, set before it plays, is what its voice follows")
  func nodeKeepsItsOwnValue() throws {
    var heard = 0..<0
    let capture = try captureDiskOutput { engine, output in
      try engine.defineParameter("rpm", range: 0...1, default: 0)
      let scene = Scene(size: Size(width: 800, height: 600))
      engine.attach(to: scene)
      let car = AudioNode(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5), name: "dc.wav")
      car.isPositional = false
      car.modulators = [.parameter("rpm", curve: try ParameterCurve([(0, -20), (1, 0)]))]
      try car.setParameter("rpm", to: 0.5)
      #expect(car.parameters == ["rpm": 0.5])
      scene.addChild(car)
      scene.update(deltaTime: 1.0 / 60)
      #expect(waitUntil(timeout: 30) { car.voice?.startFrame != nil })
      #expect(car.voice?.parameter("rpm") == 0.5)
      #expect(output.waitForMore(seconds: 0.3))
      let start = output.framesWritten
      #expect(output.waitForMore(seconds: 0.2))
      heard = start..<output.framesWritten
      car.removeFromParent()
      scene.update(deltaTime: 1.0 / 60)
    }
    let level = 20 * log10(capture.left.rms(in: heard) / Self.level)
    #expect(
      abs(level + 10) < 0.1,
      "at its own rpm of 0.5 the node plays at \(level) dB (the engine's 0 would be -20)")
  }
}
