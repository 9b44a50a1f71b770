import FoleyAudio
import FoleyCore
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Every number a game can hand the sound, set to the values a bug or a hostile game computes —
/// NaN, ±infinity, ±1e308, -1 and 0 — while a positional scene with a wall and a door plays on
/// SDL's disk driver. The output must hold no non-finite sample, and none may have reached the
/// master's last guard either (it would have hidden the poison); the sound must still play after.
@MainActor
@Suite("Hostile numbers (disk driver)", .serialized)
struct HostileNumberTests {
  static let hostile: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, -1, 0]

  /// One public member: how to set it to a value, and the value that puts it back.
  struct Member {
    var name: String
    var neutral: Double
    var set: @MainActor (Double) -> Void
  }

  @Test("no hostile value of any public member puts a non-finite sample in the mix")
  func sweep() throws {
    let tone = makeToneWAV(frequency: 440, duration: 1, amplitude: 0.3, channels: 1)
    var guarded = 0
    var failures: [String] = []
    var after = 0
    let capture = try captureDiskOutput { engine, output in
      let scene = Scene(size: Size(width: 800, height: 600))
      let listener = Node()
      listener.position = Point(x: 400, y: 300)
      scene.addChild(listener)
      scene.listener = listener
      var spatial = SpatialAudio()
      spatial.speedOfSound = 3_430
      engine.attach(to: scene, positional: true, spatial: spatial)
      let wall = Wall(points: [Point(x: 0, y: -200), Point(x: 0, y: 200)], material: .brick)
      wall.position = Point(x: 500, y: 300)
      scene.addChild(wall)
      let door = Portal(from: Point(x: 500, y: 100), to: Point(x: 500, y: 60), openness: 0.5)
      scene.addChild(door)
      let hum = AudioNode(data: tone, name: "hum.wav")
      hum.position = Point(x: 600, y: 300)
      scene.addChild(hum)
      let sound = try engine.sound(data: tone, name: "tone.wav")
      let voice = engine.play(sound, volume: 0.5, loops: -1)
      let bus = engine.bus(.effects)
      let filter = FilterEffect(.lowPass, frequency: 4_000)
      try bus.setEffects([filter])
      @MainActor func run(_ action: Action) { hum.run(action) }
      // A parameter the voice follows and a snapshot on its bus, for the grammar's own members.
      try engine.defineParameter("hostile", range: 0...1, default: 0.5)
      try engine.defineSnapshot(
        MixSnapshot("hostile", buses: [.effects: .init(volumeDecibels: -6, lowPass: 2_000)]))
      let follow = try ParameterCurve([(0, -12), (1, 0)], interpolation: .smooth)
      let members: [Member] = [
        Member(name: "Voice.volume", neutral: 0.5) { voice.volume = $0 },
        Member(name: "Voice.pan", neutral: 0) { voice.pan = $0 },
        Member(name: "Voice.setPlaybackRate", neutral: 1) { voice.setPlaybackRate($0) },
        Member(name: "Voice.setPlaybackRate(tween:)", neutral: 0) {
          voice.setPlaybackRate(1, tween: Tween(duration: $0))
        },
        Member(name: "Voice.setLowPassCutoff", neutral: 20_000) { voice.setLowPassCutoff($0) },
        Member(name: "Voice.seek(to:)", neutral: 0) { voice.seek(to: $0) },
        Member(name: "Voice.setParameter", neutral: 0.5) {
          try? voice.setParameter("hostile", to: $0, tween: Tween(duration: $0))
        },
        Member(name: "AudioEngine.setMasterVolume(_:tween:)", neutral: 1) {
          engine.setMasterVolume($0, tween: Tween(duration: $0))
        },
        Member(name: "AudioEngine.play(start:fadeIn:)", neutral: 0) { value in
          let frame = AudioFrame(Int(value.isFinite ? max(-1e12, min(1e12, value)) : 0))
          engine.play(sound, volume: 0.1, start: .frame(frame), fadeIn: Tween(duration: value)).stop()
        },
        Member(name: "Voice.setReverbSend", neutral: 0) { voice.setReverbSend($0) },
        Member(name: "AudioEngine.play(volume:pan:rate:)", neutral: 0.5) { value in
          engine.play(sound, volume: value, pan: value, rate: value).stop(tween: 0.05)
        },
        Member(name: "AudioBus.volume", neutral: 1) { bus.volume = $0 },
        Member(name: "AudioBus.setVolume(_:tween:)", neutral: 1) {
          bus.setVolume($0, tween: Tween(duration: $0))
        },
        Member(name: "AudioBus.duck(by:)", neutral: 0) {
          bus.duck(by: $0, named: "hostile", duration: $0)
        },
        Member(name: "AudioBus.setReverbSend", neutral: 0) {
          try? bus.setReverbSend($0, tween: Tween(duration: $0))
        },
        Member(name: "AudioEngine.masterVolume", neutral: 1) { engine.masterVolume = $0 },
        Member(name: "AudioEngine.balance", neutral: 0) { engine.balance = $0 },
        Member(name: "FilterEffect.setFrequency", neutral: 4_000) {
          filter.setFrequency($0, tween: Tween(duration: $0))
        },
        Member(name: "effects made with hostile numbers", neutral: 0) { value in
          try? bus.setEffects([
            FilterEffect(.highPass, frequency: value, q: value),
            DelayEffect(time: value, feedback: value, wet: value, dry: value, damping: value),
            CompressorEffect(
              threshold: value, ratio: value, attack: value, release: value, range: value, makeUpGain: value),
          ])
        },
        Member(name: "ReverbEffect.apply", neutral: 0.5) { value in
          engine.reverb.apply(.init(roomSize: value, damping: value, preDelay: value, wet: value))
        },
        Member(name: "Action.changeVolume(to:)", neutral: 1) { run(.changeVolume(to: $0, duration: 0)) },
        Member(name: "Action.changeVolume(by:)", neutral: 0) { run(.changeVolume(by: $0, duration: 0.02)) },
        Member(name: "Action.changeVolume(duration:)", neutral: 0) {
          run(.changeVolume(to: 0.8, duration: $0))
        },
        Member(name: "Action.stereoPan(to:)", neutral: 0) { run(.stereoPan(to: $0, duration: 0)) },
        Member(name: "Action.stereoPan(by:)", neutral: 0) { run(.stereoPan(by: $0, duration: 0.02)) },
        Member(name: "Action.changePlaybackRate(to:)", neutral: 1) {
          run(.changePlaybackRate(to: $0, duration: 0))
        },
        Member(name: "Action.changeReverb(to:)", neutral: 0) { run(.changeReverb(to: $0, duration: 0)) },
        Member(name: "Action.changeObstruction(to:)", neutral: 0) {
          run(.changeObstruction(to: $0, duration: 0))
        },
        Member(name: "Action.changeOcclusion(to:)", neutral: 0) {
          run(.changeOcclusion(to: $0, duration: 0))
        },
        Member(name: "AudioNode.position", neutral: 600) { hum.position = Point(x: $0, y: 300) },
        Member(name: "AudioNode.xScale", neutral: 1) { hum.xScale = $0 },
        Member(name: "listener position", neutral: 400) { listener.position = Point(x: 400, y: $0) },
        Member(name: "Wall.points", neutral: 200) {
          wall.points = [Point(x: 0, y: -200), Point(x: $0, y: $0)]
        },
        Member(name: "Wall.xScale", neutral: 1) { wall.xScale = $0 },
        Member(name: "Wall.zRotation", neutral: 0) { wall.zRotation = $0 },
        Member(name: "Portal.openness", neutral: 0.5) { door.openness = $0 },
        Member(name: "Portal.from", neutral: 100) { door.from = Point(x: 500, y: $0) },
        Member(name: "AcousticMaterial", neutral: 0) { value in
          wall.material = AcousticMaterial(attenuationDecibels: value, cutoff: value)
        },
        Member(name: "SpatialAudio", neutral: 400) { value in
          var hostile = SpatialAudio()
          hostile.panWidth = value
          hostile.maximumDistance = value
          hostile.speedOfSound = value
          hostile.distanceModel = .inverse(reference: value, rolloff: value)
          engine.setSpatialAudio(hostile, for: scene)
        },
        Member(name: "Scene.update(deltaTime:)", neutral: 1.0 / 60) { scene.update(deltaTime: $0) },
        Member(name: "AudioEngine.setParameter", neutral: 0.5) { value in
          try? voice.setModulators([.parameter("hostile", curve: follow)])
          try? engine.setParameter(
            "hostile", to: value, tween: Tween(duration: value, easing: .easeIn(power: 8)))
        },
        Member(name: "AudioEngine.applySnapshot", neutral: 0) { value in
          try? engine.applySnapshot("hostile", intensity: value, tween: Tween(duration: value))
        },
        Member(name: "Modulator.lfo", neutral: 1) { value in
          try? voice.setModulators([.lfo(.sampleAndHold, rateHz: value, depthDecibels: value)])
        },
        Member(name: "Voice.setVolume(_:tween:)", neutral: 0.5) { value in
          voice.setVolume(value, tween: Tween(duration: value, easing: .smoothstep))
        },
      ]
      for member in members {
        for value in Self.hostile {
          member.set(value)
          scene.update(deltaTime: 1.0 / 60)
          // Two device buffers: the change reaches the queue and the mixing thread.
          #expect(output.waitForMore(frames: 2_048))
          let reached = engine.statistics.nonFiniteSamples
          if reached > guarded { failures.append("\(member.name) = \(value): \(reached - guarded) samples") }
          guarded = reached
        }
        member.set(member.neutral)
        if member.name == "SpatialAudio" { engine.setSpatialAudio(spatial, for: scene) }
        scene.update(deltaTime: 1.0 / 60)
      }
      try bus.setEffects([])
      // Loses nothing: the sound is still heard after the sweep.
      after = output.framesWritten
      #expect(output.waitForMore(frames: 9_600))
      #expect(voice.state == .playing)
    }
    #expect(failures.isEmpty, "non-finite samples reached the master's guard: \(failures)")
    #expect(
      capture.left.samples.allSatisfy { $0.isFinite } && capture.right.samples.allSatisfy { $0.isFinite })
    let tail = after..<min(after + 9_600, capture.left.samples.count)
    #expect(capture.left.rms(in: tail) > 0.01, "the voice is not heard after the sweep")
  }

  @Test("a NaN in the mix is put out as silence and counted by the master's guard")
  func lastGuard() throws {
    let master = MasterBus(
      format: AudioDeviceFormat(
        driver: "none", sampleRate: 48_000, sampleFormat: .float32, channels: 2, bufferFrames: 512),
      limiter: LimiterSettings(), volumeStep: 0.001)
    var block = [Float](repeating: 0.25, count: 512 * 2)
    block[10] = .nan
    block[11] = .infinity
    block.withUnsafeMutableBufferPointer { master.process(float: $0.baseAddress!, frames: 512) }
    #expect(master.nonFiniteSamples == 2)
    #expect(block.allSatisfy { $0.isFinite })
  }

  @Test("a caption's hold time and threshold refuse NaN and infinity, keeping the last good value")
  func captionTimes() throws {
    let engine = try AudioEngine(embedded: EmbeddedMixer(), session: AudioSession())
    defer { engine.close() }
    let captions = engine.captions
    for value in Self.hostile where !value.isFinite {
      captions.holdTime = value
      captions.threshold = value
    }
    #expect(captions.holdTime == 1 && captions.threshold == -60)
    captions.holdTime = 1e308
    captions.threshold = -1e308
    #expect(captions.holdTime == 3_600 && captions.threshold == -200)
  }
}
