import FoleyAudio
import FoleyAudioTesting
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// The space's logic on the embedded mixer, advanced by hand: which listener hears a voice, its
/// hysteresis, pinning, tweened moves, virtual voices beyond the maximum distance, and what it
/// refuses.
@MainActor
@Suite("Sound in space without a scene")
struct AudioSpaceTests {
  static func engine() throws -> (AudioEngine, EmbeddedMixer) {
    let mixer = EmbeddedMixer()
    return (try AudioEngine(embedded: mixer, session: AudioSession()), mixer)
  }

  @Test(
    "the listener that hears a voice changes once it is nearer another by half the blend, and back the same")
  func hysteresis() throws {
    let (engine, mixer) = try Self.engine()
    defer { engine.close() }
    let space = engine.space
    space.listenerBlend = 100
    try space.setListeners([Point(x: 0, y: 0), Point(x: 1_000, y: 0)])
    let sound = try engine.sound(data: makeToneWAV(frequency: 220, duration: 1), name: "tone.wav")
    let voice = space.play(sound, at: Point(x: 400, y: 0), loops: -1)
    var heard: [Int?] = []
    for x in [490.0, 510, 520, 560, 520, 480, 460] {
      space.move(voice, to: Point(x: x, y: 0))
      space.update(deltaTime: 1.0 / 60)
      mixer.advance(seconds: 1.0 / 60)
      heard.append(space.listener(hearing: voice))
    }
    // 520 is 40 nearer the second listener (half the blend is 50), 560 is 120 nearer; 480 is
    // 40 nearer the first again, 460 is 80 nearer.
    #expect(heard == [0, 0, 0, 1, 1, 1, 0])
    #expect(space.position(of: voice) == Point(x: 460, y: 0))
    // The inspector says which listener hears it; a voice the space does not place has none.
    let plain = engine.play(sound, loops: -1)
    mixer.advance(seconds: 0.02)
    let voices = engine.inspector.snapshot().voices
    #expect(voices.first { $0.id == voice.id }?.listener == 0)
    #expect(voices.first { $0.id == plain.id }.map { $0.listener == nil } == true)
    try space.pin(voice, toListener: 1)
    space.update(deltaTime: 1.0 / 60)
    #expect(space.listener(hearing: voice) == 1)
    try space.pin(voice, toListener: nil)
    space.update(deltaTime: 1.0 / 60)
    #expect(space.listener(hearing: voice) == 0)
  }

  @Test("a tweened move follows its easing on the engine's clock; a finished voice is let go")
  func tweenedMove() throws {
    let (engine, mixer) = try Self.engine()
    defer { engine.close() }
    let space = engine.space
    let sound = try engine.sound(data: makeToneWAV(frequency: 220, duration: 0.5), name: "tone.wav")
    let voice = space.play(sound, at: Point(x: 0, y: 0))
    space.update(deltaTime: 0.01)
    let start = engine.audioFrame.index
    space.move(
      voice, to: Point(x: 100, y: 0),
      tween: Tween(duration: 0.2, easing: .easeIn, start: .frame(AudioFrame(start))))
    #expect(try #require(space.position(of: voice)).x < 1)
    // Half way on the clock, an ease-in (power 2) has gone a quarter of the way.
    mixer.advance(frames: engine.frames(forSeconds: 0.1))
    let halfway = try #require(space.position(of: voice))
    #expect(abs(halfway.x - 25) < 1, "\(halfway)")
    mixer.advance(seconds: 0.15)
    #expect(space.position(of: voice) == Point(x: 100, y: 0))
    #expect(space.voiceCount == 1)
    mixer.advance(seconds: 0.5)
    #expect(voice.isFinished)
    space.update(deltaTime: 0.01)
    #expect(space.voiceCount == 0 && space.position(of: voice) == nil)
  }

  @Test(
    "doppler keeps a voice's factor while the clock waits for a slow mix, and gives 1 back when turned off"
  )
  func dopplerOnAWaitingClock() throws {
    let (engine, mixer) = try Self.engine()
    defer { engine.close() }
    let space = engine.space
    space.spatial.distanceModel = .none
    space.spatial.speedOfSound = 1_000
    let sound = try engine.sound(data: makeToneWAV(frequency: 220, duration: 1), name: "tone.wav")
    let voice = space.play(sound, at: Point(x: 0, y: 3_000), loops: -1)
    // 200 units a second towards the listener on the engine's clock: c / (c − v) = 1.25.
    space.move(voice, to: Point(x: 0, y: 2_400), tween: Tween(duration: 3))
    func factor() -> Double? { engine.inspector.snapshot().voices.first { $0.id == voice.id }?.doppler }
    for _ in 0..<10 {
      space.update(deltaTime: 1.0 / 60)
      mixer.advance(seconds: 1.0 / 60)
    }
    #expect(abs(try #require(factor()) - 1.25) < 1e-3)
    // The game runs on while the mix does not: the clock goes two buffers ahead and waits there.
    // A factor read over a clock that has not moved would say the voice stands still.
    var held: [Double] = []
    for _ in 0..<10 {
      space.update(deltaTime: 1.0 / 60)
      held.append(try #require(factor()))
    }
    #expect(held.allSatisfy { abs($0 - 1.25) < 1e-3 }, "\(held)")
    mixer.advance(seconds: 1.0 / 60)
    space.update(deltaTime: 1.0 / 60)
    #expect(abs(try #require(factor()) - 1.25) < 1e-3)
    space.spatial.speedOfSound = nil
    space.update(deltaTime: 1.0 / 60)
    #expect(factor() == 1)
  }

  @Test("beyond the maximum distance a voice goes virtual, and comes back when its listener nears")
  func virtualBeyondMaximum() throws {
    let (engine, mixer) = try Self.engine()
    defer { engine.close() }
    let space = engine.space
    space.spatial.maximumDistance = 500
    let sound = try engine.sound(data: makeToneWAV(frequency: 220, duration: 1), name: "tone.wav")
    let voice = space.play(sound, at: Point(x: 800, y: 0), loops: -1)
    space.update(deltaTime: 0.02)
    mixer.advance(seconds: 0.05)
    #expect(voice.isVirtual)
    try space.moveListener(0, to: Point(x: 600, y: 0))
    space.update(deltaTime: 0.02)
    mixer.advance(seconds: 0.05)
    #expect(!voice.isVirtual)
  }

  @Test("bad listeners and positions are refused with typed errors, and nothing changes")
  func refusals() throws {
    let (engine, mixer) = try Self.engine()
    defer { engine.close() }
    let space = engine.space
    #expect(throws: SpatialError.listenerCount(0)) { try space.setListeners([]) }
    #expect(throws: SpatialError.listenerCount(5)) {
      try space.setListeners(Array(repeating: Point.zero, count: 5))
    }
    #expect(throws: SpatialError.nonFinitePosition) { try space.setListeners([Point(x: .nan, y: 0)]) }
    #expect(throws: SpatialError.noSuchListener(2, count: 1)) { try space.moveListener(2, to: .zero) }
    #expect(throws: SpatialError.nonFinitePosition) {
      try space.moveListener(0, to: Point(x: 0, y: .infinity))
    }
    #expect(space.listeners == [Point(x: 0, y: 0)])
    let sound = try engine.sound(data: makeToneWAV(frequency: 220, duration: 1), name: "tone.wav")
    let voice = space.play(sound, at: Point(x: 50, y: 0), loops: -1)
    #expect(throws: SpatialError.noSuchListener(1, count: 1)) { try space.pin(voice, toListener: 1) }
    // A play pinned to a listener the space does not have is heard from its nearest.
    let unpinned = space.play(sound, at: Point(x: -20, y: 0), listener: 3)
    #expect(space.listener(hearing: unpinned) == 0)
    space.move(voice, to: Point(x: .nan, y: 3))
    #expect(space.position(of: voice) == Point(x: 50, y: 0))
    for step in [Double.nan, -1, 0, .infinity] { space.update(deltaTime: step) }
    space.listenerBlend = .nan
    #expect(space.listenerBlend == 100)
    // A play at a position that is not a number is heard at the first listener.
    let lost = space.play(sound, at: Point(x: .infinity, y: 0))
    #expect(space.position(of: lost) == Point(x: 0, y: 0))
    mixer.advance(seconds: 0.05)
    #expect(!voice.isFinished && !lost.isFinished)
    #expect("\(SpatialError.noSuchListener(2, count: 1))" == "no listener 2: the space has 1 (0…0)")
  }

  @Test("a captioned sound played through the space is captioned from where its listener hears it")
  func captionsFromTheSpace() throws {
    let (engine, mixer) = try Self.engine()
    defer { engine.close() }
    let space = engine.space
    try space.setListeners([Point(x: 0, y: 0), Point(x: 1_000, y: 0)])
    var settings = SoundSettings()
    settings.caption = Caption("Horn")
    let horn = try Sound(
      data: makeToneWAV(frequency: 440, duration: 1), name: "horn.wav", engine: engine, settings: settings)
    // 300 to the left of the second listener (it is 700 right of the first).
    space.play(horn, at: Point(x: 700, y: 0))
    mixer.advance(seconds: 0.05)
    space.update(deltaTime: 1.0 / 60)
    engine.captions.update()
    let source = try #require(engine.captions.radar().first)
    #expect(source.caption.text == "Horn")
    #expect(try #require(source.distance) == 300)
    #expect(try #require(source.direction).side < -0.99, "\(source)")
  }

  @Test("a captioned sound heard through a door is captioned from the door, not through the wall")
  func captionsLeadThroughDoors() throws {
    let (engine, mixer) = try Self.engine()
    defer { engine.close() }
    let space = engine.space
    space.spatial.distanceModel = .inverse(reference: 100, rolloff: 1)
    // A brick wall 200 above the listener with a door from x = 300 to 400; the horn is behind the
    // wall up and to the left, so the straight line points left and the way it is heard points
    // right, to the door.
    space.acoustics = AudioSpace.Acoustics(
      walls: [
        .init(points: [Point(x: -2_000, y: 200), Point(x: 300, y: 200)], material: .brick),
        .init(points: [Point(x: 400, y: 200), Point(x: 2_000, y: 200)], material: .brick),
      ],
      portals: [.init(from: Point(x: 300, y: 200), to: Point(x: 400, y: 200))])
    var settings = SoundSettings()
    settings.caption = Caption("Horn")
    let horn = try Sound(
      data: makeToneWAV(frequency: 440, duration: 2), name: "horn.wav", engine: engine, settings: settings)
    let voice = space.play(horn, at: Point(x: -300, y: 400), loops: -1)
    for _ in 0..<3 {
      space.update(deltaTime: 1.0 / 60)
      mixer.advance(seconds: 1.0 / 60)
    }
    engine.captions.update()
    let source = try #require(engine.captions.radar().first)
    let direction = try #require(source.direction)
    #expect(direction.side > 0.5, "\(source)")
    // Over the way through the door: to its middle (350, 200), then on to the horn.
    let near = (350.0 * 350 + 200 * 200).squareRoot()
    let far = (650.0 * 650 + 200 * 200).squareRoot()
    #expect(abs(try #require(source.distance) - (near + far)) < 1, "\(source)")
    // With the door gone (a wall across it), the straight line again.
    space.acoustics = AudioSpace.Acoustics(
      walls: [.init(points: [Point(x: -2_000, y: 200), Point(x: 2_000, y: 200)], material: .brick)])
    for _ in 0..<3 {
      space.update(deltaTime: 1.0 / 60)
      mixer.advance(seconds: 1.0 / 60)
    }
    engine.captions.update()
    let straight = try #require(engine.captions.radar().first { $0.caption.text == "Horn" })
    #expect(try #require(straight.direction).side < -0.5, "\(straight)")
    voice.stop()
  }
}
