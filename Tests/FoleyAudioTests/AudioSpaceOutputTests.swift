import Dispatch
import FoleyAudio
import FoleyTestSupport
import Foundation
import Testing

/// The core's spatial API, heard through real SDL_mixer on the disk driver: sounds placed by
/// position with no scene graph, two listeners, and a voice crossing from one to the other.
@MainActor
@Suite("Sound in space without a scene (disk driver)", .serialized)
struct AudioSpaceOutputTests {
  /// A constant level, so every output sample is the source times the two gains.
  static let level = makeToneWAV(frequency: 0, duration: 0.2, amplitude: 0.5, channels: 1)
  static let source = Float(Int16(0.5 * 32_767)) / 32_768

  /// Plays `sound` at `position` and updates the space until it has finished.
  static func playThrough(_ space: AudioSpace, _ sound: Sound, at position: Point) -> Int? {
    let voice = space.play(sound, at: position)
    let heardBy = space.listener(hearing: voice)
    #expect(
      waitUntil {
        space.update(deltaTime: 1.0 / 60)
        return voice.isFinished
      })
    space.update(deltaTime: 1.0 / 60)  // lets the finished voice go
    return heardBy
  }

  @Test(
    "listeners at (0, 0) and (1000, 0): (1100, 0) is heard from the second as 100 points right of a lone listener; (-100, 0) from the first"
  )
  func nearestListenerHears() throws {
    var heard: [Int?] = []
    let capture = try captureDiskOutput { engine, output in
      let space = engine.space
      space.spatial.distanceModel = .inverse(reference: 50, rolloff: 1)  // 100 points: half the level
      space.spatial.panWidth = 400
      let sound = try Sound(data: Self.level, name: "level.wav", engine: engine)
      #expect(output.waitForMore(seconds: 0.1))
      // The lone listener, at the origin.
      heard.append(Self.playThrough(space, sound, at: Point(x: 100, y: 0)))
      try space.setListeners([Point(x: 0, y: 0), Point(x: 1_000, y: 0)])
      #expect(output.waitForMore(seconds: 0.1))
      heard.append(Self.playThrough(space, sound, at: Point(x: 1_100, y: 0)))
      #expect(output.waitForMore(seconds: 0.1))
      heard.append(Self.playThrough(space, sound, at: Point(x: -100, y: 0)))
      #expect(space.voiceCount == 0)
    }
    #expect(heard == [0, 1, 0])
    let segments = capture.left.segments(minimumGap: 2_400, threshold: 1e-4)
    try #require(segments.count == 3, "\(segments)")
    let middles = segments.map { ($0.lowerBound + $0.upperBound) / 2 }
    func decibels(_ value: Float) -> Double { 20 * log10(Double(value)) }
    let lone = (left: capture.left[middles[0]], right: capture.right[middles[0]])
    // Pan 0.25 on the constant-power law, at half the level.
    let angle = 1.25 * Double.pi / 4
    #expect(abs(lone.left - Self.source * Float(0.5 * cos(angle))) < 1e-4)
    #expect(abs(lone.right - Self.source * Float(0.5 * sin(angle))) < 1e-4)
    let second = (left: capture.left[middles[1]], right: capture.right[middles[1]])
    #expect(abs(decibels(second.left) - decibels(lone.left)) < 1)
    #expect(abs(decibels(second.right) - decibels(lone.right)) < 1)
    // From the first listener, mirrored: as far to its left.
    let first = (left: capture.left[middles[2]], right: capture.right[middles[2]])
    #expect(abs(decibels(first.left) - decibels(lone.right)) < 1)
    #expect(abs(decibels(first.right) - decibels(lone.left)) < 1)
  }

  @Test(
    "a voice crossing from one listener's side to the other's changes listener once, with no step beyond what its motion makes"
  )
  func crossingBetweenListeners() throws {
    let hum = makeToneWAV(frequency: 0, duration: 2, amplitude: 0.5, channels: 1)
    var changes = 0
    var largestUpdate = 0.0
    let capture = try captureDiskOutput { engine, output in
      let space = engine.space
      space.spatial.distanceModel = .none
      space.spatial.panWidth = 400
      space.listenerBlend = 200
      try space.setListeners([Point(x: 0, y: 0), Point(x: 1_000, y: 0)])
      let sound = try Sound(data: hum, name: "hum.wav", engine: engine)
      #expect(output.waitForMore(seconds: 0.1))
      let voice = space.play(sound, at: Point(x: 300, y: 0))
      // 400 points in a second, on the engine's clock, from 0.4 s in.
      let start = engine.audioFrame.index + engine.frames(forSeconds: 0.4)
      space.move(voice, to: Point(x: 700, y: 0), tween: Tween(duration: 1, start: .frame(AudioFrame(start))))
      var heardBy = space.listener(hearing: voice)
      var last = DispatchTime.now().uptimeNanoseconds
      #expect(
        waitUntil {
          let now = DispatchTime.now().uptimeNanoseconds
          let step = Double(now - last) / 1e9
          last = now
          largestUpdate = max(largestUpdate, step)
          space.update(deltaTime: step)
          if let listener = space.listener(hearing: voice), listener != heardBy {
            changes += 1
            heardBy = listener
          }
          return voice.isFinished
        })
      #expect(heardBy == 1)
    }
    #expect(changes == 1)
    let start = try #require(capture.left.audibleRange(threshold: 1e-4)).lowerBound
    let end = try #require(capture.left.audibleRange(threshold: 1e-4)).upperBound
    // Right of the first listener before (pan 0.75), left of the second after (-0.75).
    let before = Float(sin(1.75 * Double.pi / 4))
    #expect(abs(capture.right[start + 4_800] - Self.source * before) < 1e-3)
    #expect(abs(capture.left[end - 4_800] - Self.source * before) < 1e-3)
    // Within the blend the pan sweeps from +1 to -1 over 200 points at 400 points a second:
    // π/2 of the law's angle in half a second, so each ear's gain moves by at most
    // (π/2) / 0.5 s per second. An update longer than the mix's glide (a loaded machine) moves
    // it further in one glide of at most a tenth of a second; an abrupt change of listener would
    // swing the ears over one update's glide, ten times or more as steep.
    let perSecond = Double.pi / 2 / 0.5 * max(1, largestUpdate / 0.1)
    let allowed = Self.source * Float(perSecond / 48_000) * 1.5
    // The sound's own start and end are left out (its last 25 ms may fade as its channel ends).
    let inner = (start + 10)..<(end - 1_200)
    let steepest = max(capture.left.largestStep(in: inner), capture.right.largestStep(in: inner))
    let worst = inner.max { a, b in
      max(
        abs(capture.left.samples[a + 1] - capture.left.samples[a]),
        abs(capture.right.samples[a + 1] - capture.right.samples[a]))
        < max(
          abs(capture.left.samples[b + 1] - capture.left.samples[b]),
          abs(capture.right.samples[b + 1] - capture.right.samples[b]))
    }
    #expect(
      steepest < allowed,
      "largest step \(steepest) at frame \((worst ?? start) - start), allowed \(allowed), update \(largestUpdate) s"
    )
  }

  @Test(
    "doppler through the space: a voice tweened towards its listener at v sounds at f·c/(c−v), within 0.5%")
  func doppler() throws {
    let tone = makeToneWAV(frequency: 500, duration: 1, amplitude: 0.4, channels: 1)
    let capture = try captureDiskOutput { engine, _ in
      let space = engine.space
      space.spatial.distanceModel = .none
      space.spatial.speedOfSound = 1_000
      let sound = try Sound(data: tone, name: "tone.wav", engine: engine)
      let voice = space.play(sound, at: Point(x: 0, y: 3_000), loops: -1)
      // 200 units a second towards the listener for 3 s of the engine's clock.
      space.move(voice, to: Point(x: 0, y: 2_400), tween: Tween(duration: 3))
      let start = engine.audioFrame.index
      var last = DispatchTime.now().uptimeNanoseconds
      #expect(
        waitUntil(timeout: 60) {
          let now = DispatchTime.now().uptimeNanoseconds
          space.update(deltaTime: Double(now - last) / 1e9)
          last = now
          return engine.audioFrame.index - start > engine.frames(forSeconds: 2.2)
        })
      voice.stop()
    }
    // From 1 s to 1.8 s after the tone is first heard: inside the move, however the mix kept time.
    let onset = try #require(capture.left.audibleRange(threshold: 1e-3)).lowerBound
    try #require(capture.left.samples.count >= onset + 86_400)
    let heard = capture.left.frequency(in: (onset + 48_000)..<(onset + 86_400))
    let expected = 500 * 1_000 / (1_000 - 200.0)
    #expect(abs(heard - expected) / expected < 0.005, "heard \(heard) Hz, expected \(expected)")
  }
}
