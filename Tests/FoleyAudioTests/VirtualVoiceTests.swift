import FoleyAudio
import FoleyAudioTesting
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Virtual voices and the voice budget: a voice nobody hears gives its channel back and keeps
/// its place in time; back on a channel it continues on the sample its clock reached.
@MainActor
@Suite("Virtual voices", .serialized)
struct VirtualVoiceTests {
  /// `count` frames of mono noise in ±0.05…0.25 (never zero, so a frame out of place shows).
  static func noise(frames count: Int, seed: UInt32 = 12_345) -> Data {
    makeNoiseWAV(frames: count, seed: seed)
  }

  /// The samples of ``noise(frames:seed:)``.
  static func noiseSamples(frames count: Int, seed: UInt32 = 12_345) -> [Float] {
    FoleyTestSupport.noiseSamples(frames: count, seed: seed)
  }

  /// A scene with its listener at the origin, attached to `engine` with positional actions and
  /// sounds silent (so virtual) beyond `distance`.
  static func sceneHeardWithin(
    _ distance: Double, through engine: AudioEngine, speedOfSound: Double? = nil
  ) -> (Scene, Node) {
    let scene = Scene(size: Size(width: 800, height: 600))
    let listener = Node()
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.maximumDistance = distance
    spatial.speedOfSound = speedOfSound
    engine.attach(to: scene, positional: true, spatial: spatial)
    return (scene, listener)
  }

  /// How many of the link's voices are not placed where their node is heard from the listener
  /// now (each update must leave none), and how many of them can be heard there.
  static func outOfDatePlacements(_ link: SceneAudioLink, listener: Node) -> (wrong: Int, heard: Int) {
    let spatial = link.spatial
    let here = listener.positionInScene
    var wrong = 0
    var heard = 0
    for (node, placement) in link.followedPlacements {
      let offset = node.positionInScene - here
      let gain = spatial.gain(atDistance: (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot())
      if gain > 0 { heard += 1 }
      if abs(gain - placement.gain) > 1e-6
        || (gain > 0 && abs(spatial.pan(forHorizontalOffset: offset.dx) - placement.pan) > 1e-6)
      {
        wrong += 1
      }
    }
    return (wrong, heard)
  }

  /// Plays the same sound twice from one frame, hard left (left alone) and hard right (sent
  /// virtual by its volume and brought back); returns the capture and the right voice's gap.
  func leftAgainstRight(
    frames: Int, loops: Int, rate: Double = 1
  ) throws -> (DiskCapture, AudioStatistics?, VoiceCensus) {
    var statistics: AudioStatistics?
    var census = VoiceCensus()
    let capture = try captureDiskOutput { engine, output in
      let sound = try engine.sound(data: Self.noise(frames: frames), name: "noise.wav")
      #expect(output.waitForMore(frames: 4_800))
      let first = engine.audioFrame + 9_600
      let reference = engine.play(sound, pan: -1, loops: loops, rate: rate, start: .frame(first))
      let wanderer = engine.play(sound, pan: 1, loops: loops, rate: rate, start: .frame(first))
      #expect(waitUntil { wanderer.startFrame != nil && engine.audioFrame.index > first.index })
      #expect(output.waitForMore(seconds: 0.2))
      wanderer.volume = 0
      #expect(waitUntil { wanderer.isVirtual })
      census = engine.voiceCensus()
      // Away for longer than a pass of the sound, so the clock wraps while it is virtual.
      #expect(output.waitForMore(seconds: 0.45))
      wanderer.volume = 1
      #expect(waitUntil { !wanderer.isVirtual })
      #expect(output.waitForMore(seconds: 0.3))
      statistics = engine.statistics
      #expect(reference.isPlaying && wanderer.isPlaying)
    }
    return (capture, statistics, census)
  }

  /// The right channel equals the left, sample for sample, before the voice left and from 5 ms
  /// after it came back to the end of the capture; in between it was silent for a while.
  func expectContinuity(_ capture: DiskCapture) throws {
    let left = capture.left.samples
    let right = capture.right.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    #expect(right[start] == left[start])
    // Where the right channel fell silent (the voice went virtual) and came back.
    let silent = try #require((start..<right.count).first { right[$0] == 0 && right[$0 + 1] == 0 })
    let back = try #require((silent..<right.count).first { right[$0] != 0 })
    #expect(back - silent > 9_600, "virtual for \(back - silent) frames")
    // Before: identical up to the fade-out (the de-click ramp at most 240 frames before).
    let before = start..<max(start, silent - 480)
    #expect(before.count > 4_800)
    #expect(before.allSatisfy { right[$0] == left[$0] }, "the two differ before the voice went virtual")
    // After the 5 ms ramp-in (240 frames) the wanderer is where the reference is: 0 samples off.
    let after = (back + 240)..<(left.lastIndex { $0 != 0 } ?? back)
    #expect(after.count > 4_800)
    let mismatches = after.filter { right[$0] != left[$0] }.count
    #expect(mismatches == 0, "\(mismatches) of \(after.count) samples differ after the return")
    // During the ramp the voice is already on its frame: each sample is a fraction of the left's.
    let ramp = back..<(back + 240)
    #expect(ramp.allSatisfy { left[$0] == 0 ? right[$0] == 0 : (0...1.0001).contains(right[$0] / left[$0]) })
  }

  @Test("a looping voice that goes virtual and comes back continues on the predicted frame: 0 samples off")
  func loopComesBackOnTheSample() throws {
    // 0.25 s of noise looping; virtual for 0.45 s, so its clock wraps.
    let (capture, statistics, census) = try leftAgainstRight(frames: 12_000, loops: -1)
    #expect(census.virtual == 1 && census.audible == 1)
    #expect(statistics?.virtualizations == 1 && statistics?.virtualVoices == 0)
    try expectContinuity(capture)
  }

  @Test("a one-shot that goes virtual and comes back continues on the predicted frame: 0 samples off")
  func oneShotComesBackOnTheSample() throws {
    let (capture, statistics, _) = try leftAgainstRight(frames: 96_000, loops: 0)
    #expect(statistics?.virtualizations == 1)
    try expectContinuity(capture)
  }

  @Test(
    "a voice at rate 1.5 or 0.75 that goes virtual and comes back continues on the predicted frame: 0 samples off",
    arguments: [1.5, 0.75])
  func shapedVoiceComesBackOnTheSample(rate: Double) throws {
    // The resampler holds about 400 source frames it has read and not played: the voice's place
    // is where it is heard, not where its lane reads. Away for a whole number of source frames
    // (the device's buffers times these rates), it is back sample for sample.
    let (capture, statistics, _) = try leftAgainstRight(frames: 12_000, loops: -1, rate: rate)
    #expect(statistics?.virtualizations == 1)
    try expectContinuity(capture)
  }

  @Test(
    "at a rate that leaves a fraction of a frame (1.1), a voice comes back on its frame: the best match is at 0 lag"
  )
  func shapedVoiceComesBackOnItsFrame() throws {
    let (capture, _, _) = try leftAgainstRight(frames: 12_000, loops: -1, rate: 1.1)
    let left = capture.left.samples
    let right = capture.right.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    let silent = try #require((start..<right.count).first { right[$0] == 0 && right[$0 + 1] == 0 })
    let back = try #require((silent..<right.count).first { right[$0] != 0 })
    let region = (back + 480)..<(back + 480 + 4_800)
    #expect(region.upperBound + 1_000 < left.count)
    // Normalised cross-correlation of the two sides over ±1,000 frames: its peak is where the
    // returned voice is against the one left playing.
    var best = (lag: Int.min, correlation: -2.0)
    let energyRight = region.reduce(0.0) { $0 + Double(right[$1] * right[$1]) }
    for lag in -1_000...1_000 {
      var dot = 0.0
      var energyLeft = 0.0
      for index in region {
        dot += Double(right[index] * left[index + lag])
        energyLeft += Double(left[index + lag] * left[index + lag])
      }
      let correlation = dot / (energyRight * energyLeft).squareRoot()
      if correlation > best.correlation { best = (lag, correlation) }
    }
    #expect(best.lag == 0, "back \(best.lag) frames off")
    // Off by a fraction of a frame: white noise decorrelates fast, so well above chance, below 1.
    #expect(best.correlation > 0.7, "correlation \(best.correlation)")
  }

  @Test("a one-shot that starts unheard never takes a channel, and ends when its clock runs out")
  func silentOneShotEndsOnTime() throws {
    _ = try captureDiskOutput { engine, output in
      let sound = try engine.sound(data: Self.noise(frames: 14_400), name: "short.wav")
      #expect(output.waitForMore(frames: 2_400))
      let voice = engine.play(sound, volume: 0)
      #expect(waitUntil { voice.isVirtual })
      #expect(engine.voiceCensus().virtual == 1)
      let started = Date()
      #expect(waitUntil { voice.isFinished })
      // 0.3 s of sound: it ends then, give or take the queue's wake and a buffer.
      #expect(Date().timeIntervalSince(started) < 2)
      #expect(!voice.isVirtual && engine.voiceCensus().virtual == 0)
      #expect(engine.statistics.activeVoices == 0 && engine.statistics.virtualVoices == 0)
    }
  }

  @Test("a budget of two: the two loudest are mixed, the rest virtual; a quiet one turned up takes a place")
  func budgetRanksByLoudness() throws {
    var configuration = AudioConfiguration()
    configuration.maximumAudibleVoices = 2
    let capture = try captureDiskOutput(configuration: configuration) { engine, output in
      let sound = try engine.sound(data: Self.noise(frames: 4_800), name: "loop.wav")
      #expect(output.waitForMore(frames: 2_400))
      // Two on the left, loud; two on the right, quiet.
      let voices = [0.8, 0.6, 0.3, 0.2].enumerated().map { index, volume in
        engine.play(sound, volume: volume, pan: index < 2 ? -1 : 1, loops: -1)
      }
      #expect(waitUntil { voices[2].isVirtual && voices[3].isVirtual })
      #expect(!voices[0].isVirtual && !voices[1].isVirtual)
      #expect(engine.voiceCensus().virtual == 2 && engine.voiceCensus().audible == 2)
      #expect(output.waitForMore(seconds: 0.3))
      // Within 3 dB of the quieter heard voice is not enough to take its place (no flapping)...
      voices[2].volume = 0.7
      #expect(output.waitForMore(seconds: 0.1))
      #expect(voices[2].isVirtual && !voices[1].isVirtual)
      // ...well above it is.
      voices[3].volume = 1
      #expect(waitUntil { !voices[3].isVirtual && voices[1].isVirtual })
      #expect(engine.voiceCensus().virtual == 2)
      #expect(output.waitForMore(seconds: 0.2))
    }
    let right = capture.right.samples
    let left = capture.left.samples
    let heardLeft = try #require(left.firstIndex { $0 != 0 })
    // The quiet pair on the right was not heard while the loud pair played: 0.25 s of silence.
    #expect(right[heardLeft..<(heardLeft + 12_000)].allSatisfy { $0 == 0 })
    // Later the one turned up is heard there.
    #expect(right.suffix(4_800).contains { abs($0) > 0.04 })
  }

  @Test("a bus's own budget: two ambience loops, one heard; other buses untouched; out of range refused")
  func busBudget() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    #expect(throws: AudioEffectError.self) { try engine.bus(.ambience).setMaximumAudibleVoices(0) }
    #expect(throws: AudioEffectError.self) { try engine.bus(.ambience).setMaximumAudibleVoices(5_000) }
    try engine.bus(.ambience).setMaximumAudibleVoices(1)
    #expect(engine.bus(.ambience).maximumAudibleVoices == 1)
    var ambience = SoundSettings()
    ambience.category = .ambience
    let wind = try Sound(
      data: Self.noise(frames: 4_800), name: "wind.wav", engine: engine, settings: ambience)
    let hit = try engine.sound(data: Self.noise(frames: 48_000), name: "hit.wav")
    let loud = engine.play(wind, volume: 0.9, loops: -1)
    let soft = engine.play(wind, volume: 0.4, loops: -1)
    let effects = [engine.play(hit, volume: 0.1), engine.play(hit, volume: 0.1)]
    mixer.advance(seconds: 0.05)
    #expect(!loud.isVirtual && soft.isVirtual && effects.allSatisfy { !$0.isVirtual })
    // Lifting the bus's budget brings the soft one back.
    try engine.bus(.ambience).setMaximumAudibleVoices(nil)
    mixer.advance(seconds: 0.05)
    #expect(!soft.isVirtual && engine.voiceCensus().virtual == 0)
  }

  @Test("a muted bus sends its voices virtual; unmuted they come back; stopping a virtual voice ends it")
  func mutedBusAndStop() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let sound = try engine.sound(data: Self.noise(frames: 4_800), name: "loop.wav")
    let voices = (0..<3).map { _ in engine.play(sound, volume: 0.5, loops: -1) }
    mixer.advance(seconds: 0.05)
    #expect(voices.allSatisfy { !$0.isVirtual })
    engine.bus(.effects).volume = 0
    mixer.advance(seconds: 0.05)
    #expect(voices.allSatisfy { $0.isVirtual })
    #expect(engine.voiceCensus().virtual == 3 && engine.voiceCensus().audible == 0)
    // Paused while virtual: counted as paused, and its clock stops.
    voices[0].pause()
    mixer.advance(seconds: 0.05)
    #expect(voices[0].state == .paused && engine.voiceCensus().pausedByGame == 1)
    engine.bus(.effects).volume = 1
    mixer.advance(seconds: 0.05)
    #expect(!voices[1].isVirtual && !voices[2].isVirtual && voices[0].isVirtual)
    voices[0].resume()
    mixer.advance(seconds: 0.05)
    #expect(!voices[0].isVirtual && voices[0].isPlaying)
    engine.bus(.effects).volume = 0
    mixer.advance(seconds: 0.05)
    voices[1].stop()
    engine.stopAllVoices()
    mixer.advance(seconds: 0.05)
    #expect(voices.allSatisfy { $0.isFinished })
    #expect(engine.statistics.activeVoices == 0 && engine.statistics.virtualVoices == 0)
  }

  @Test(
    "5,000 looping emitters beyond the maximum distance take no channel; walking up to one brings it back")
  func fieldOfEmitters() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let (scene, listener) = Self.sceneHeardWithin(300, through: engine)
    let torch = try engine.sound(data: Self.noise(frames: 4_800), name: "torch.wav")
    var nodes: [AudioNode] = []
    for index in 0..<5_000 {
      let node = AudioNode(sound: torch)
      node.position = Point(x: 1_000 + Double(index % 100) * 50, y: Double(index / 100) * 50)
      scene.addChild(node)
      nodes.append(node)
    }
    scene.update(deltaTime: 1.0 / 60)
    scene.update(deltaTime: 1.0 / 60)
    mixer.advance(seconds: 0.05)
    #expect(engine.voiceCensus().virtual == 5_000)
    #expect(engine.voiceCensus().audible == 0)
    #expect(mixer.allocatedChannels <= AudioConfiguration().initialChannels)
    // The listener walks to the first torch.
    listener.position = Point(x: 1_000, y: 0)
    scene.update(deltaTime: 1.0 / 60)
    mixer.advance(seconds: 0.05)
    let heard = nodes.filter { $0.voice.map { !$0.isVirtual } ?? false }
    // Torches within 300 points: (0,0), (50,0)…(250,0) and the same rows up to 250 points away.
    #expect(!heard.isEmpty && heard.count < 40)
    #expect(heard.contains { $0 === nodes[0] })
    #expect(engine.voiceCensus().audible == heard.count)
    #expect(engine.voiceCensus().virtual == 5_000 - heard.count)
    #expect(mixer.takeOutput().contains { $0 != 0 })
  }

  @Test(
    "an emitter carried by a moving parent, and the listener walking a long way: still emitters are placed again when either moves"
  )
  func stillEmittersNoticeMoves() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let (scene, listener) = Self.sceneHeardWithin(300, through: engine)
    let loop = try engine.sound(data: Self.noise(frames: 4_800), name: "loop.wav")
    let cart = Node()
    cart.position = Point(x: 2_000, y: 0)
    scene.addChild(cart)
    let carried = AudioNode(sound: loop)
    carried.position = Point(x: 10, y: 0)
    cart.addChild(carried)
    let far = AudioNode(sound: loop)
    far.position = Point(x: 0, y: 1_000)
    scene.addChild(far)
    func frame() {
      scene.update(deltaTime: 1.0 / 60)
      mixer.advance(seconds: 1.0 / 60)
    }
    for _ in 0..<3 { frame() }
    #expect(carried.voice?.isVirtual == true && far.voice?.isVirtual == true)
    // The cart (not the emitter) moves next to the listener: its child is heard.
    cart.position = Point(x: 50, y: 0)
    for _ in 0..<3 { frame() }
    #expect(carried.voice?.isVirtual == false)
    // The listener walks towards the far one in small steps (each far less than its 700-point
    // slack): it is heard once within 300 points, not before.
    var heardAt: Double?
    for step in 1...100 {
      listener.position = Point(x: 0, y: Double(step) * 10)
      frame()
      if heardAt == nil, far.voice?.isVirtual == false { heardAt = Double(step) * 10 }
    }
    #expect(heardAt.map { (700...720).contains($0) } == true, "heard at \(String(describing: heardAt))")
  }

  @Test(
    "random walks of listener, emitters and their parents: after every update each voice is placed where it is heard",
    arguments: [2_026, 7, 99] as [UInt64]
  )
  func placementsFollowEveryMove(seed: UInt64) throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let (scene, listener) = Self.sceneHeardWithin(400, through: engine)
    let loop = try engine.sound(data: Self.noise(frames: 4_800), name: "loop.wav")
    var random = SeededRandomNumbers(seed: seed)
    func point(_ range: ClosedRange<Double>) -> Point {
      Point(x: Double.random(in: range, using: &random), y: Double.random(in: range, using: &random))
    }
    let carts = (0..<10).map { _ in Node() }
    for cart in carts {
      cart.position = point(-2_000...2_000)
      scene.addChild(cart)
    }
    var emitters: [AudioNode] = []
    for index in 0..<300 {
      let emitter = AudioNode(sound: loop)
      emitter.position = index % 3 == 0 ? point(-200...200) : point(-2_000...2_000)
      if index % 3 == 0 { carts[index % 10].addChild(emitter) } else { scene.addChild(emitter) }
      emitters.append(emitter)
    }
    let link = try #require(SceneAudioLink.of(scene))
    var wrong = 0
    var heardAtSomePoint = 0
    for frame in 0..<400 {
      // The listener strolls, and now and then jumps; a few emitters and carts move.
      if frame % 97 == 0 {
        listener.position = point(-1_500...1_500)
      } else if (200..<260).contains(frame) {
        // Standing still: only the emitters' own moves count.
      } else {
        listener.position = listener.position + Vector(dx: 25, dy: Double(frame % 7) - 3)
        if listener.position.x > 2_000 { listener.position = Point(x: -2_000, y: listener.position.y) }
      }
      for _ in 0..<5 {
        let moved = emitters[Int.random(in: 0..<300, using: &random)]
        moved.position = moved.position + Vector(dx: 40, dy: -30)
      }
      carts[frame % 10].position = point(-2_000...2_000)
      if (300..<340).contains(frame) {
        // Most voices move at once (every cart): the link walks every slot instead of a list.
        for cart in carts { cart.position = cart.position + Vector(dx: -15, dy: 20) }
        for emitter in emitters.prefix(150) { emitter.position = emitter.position + Vector(dx: 5, dy: 5) }
      }
      if frame % 50 == 25 {
        // Taken out and put back: its voice's slot is freed, and reused.
        let emitter = emitters[Int.random(in: 0..<300, using: &random)]
        let parent = emitter.parent
        emitter.removeFromParent()
        scene.update(deltaTime: 1.0 / 60)
        mixer.advance(seconds: 0.02)
        parent?.addChild(emitter)
      }
      scene.update(deltaTime: 1.0 / 60)
      let (wrongNow, heardNow) = Self.outOfDatePlacements(link, listener: listener)
      wrong += wrongNow
      heardAtSomePoint += heardNow
    }
    #expect(heardAtSomePoint > 1_000, "the walk must bring voices within hearing")
    #expect(wrong == 0, "\(wrong) placements were out of date after their update")
  }

  @Test(
    "doppler on, then an update of no time in which most emitters moved: the walk over every slot finds the moved ones"
  )
  func zeroStepAfterDopplerPlacesTheMovedEmitters() throws {
    // With doppler every update places every slot and leaves the near list and far heap unsorted;
    // an update of no time has no doppler, so it walks every slot again, and with most nodes
    // moved (none marked) it must find them by comparing places.
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let (scene, listener) = Self.sceneHeardWithin(400, through: engine, speedOfSound: 3_430)
    let loop = try engine.sound(data: Self.noise(frames: 4_800), name: "loop.wav")
    let emitters = (0..<200).map { index in
      let emitter = AudioNode(sound: loop)
      emitter.position = Point(x: Double(index % 20) * 30 - 300, y: Double(index / 20) * 30 - 150)
      scene.addChild(emitter)
      return emitter
    }
    let link = try #require(SceneAudioLink.of(scene))
    func wrongPlacements() -> Int { Self.outOfDatePlacements(link, listener: listener).wrong }
    for _ in 0..<3 {
      for emitter in emitters { emitter.position = emitter.position + Vector(dx: 7, dy: -3) }
      scene.update(deltaTime: 1.0 / 60)
    }
    #expect(link.followedPlacements.count == 200)
    #expect(wrongPlacements() == 0)
    for emitter in emitters.prefix(150) { emitter.position = emitter.position + Vector(dx: -40, dy: 25) }
    scene.update(deltaTime: 0)
    #expect(wrongPlacements() == 0, "an update of no time after doppler must still place the moved emitters")
    for emitter in emitters.prefix(150) { emitter.position = emitter.position + Vector(dx: 40, dy: -25) }
    scene.update(deltaTime: 0)
    #expect(wrongPlacements() == 0)
  }

  @Test("a scene stepped by a huge, infinite or NaN time with positional voices plays on: no trap")
  func hugeStepsDoNotTrap() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let (scene, _) = Self.sceneHeardWithin(300, through: engine)
    let torch = AudioNode(sound: try engine.sound(data: Self.noise(frames: 4_800), name: "torch.wav"))
    torch.position = Point(x: 100, y: 0)
    scene.addChild(torch)
    for step in [1.0 / 60, 1e308, .infinity, .nan, -1, 0, 1.0 / 60] {
      scene.update(deltaTime: step)
      mixer.advance(frames: 512)
    }
    #expect(torch.voice?.isPlaying == true)
  }
}
