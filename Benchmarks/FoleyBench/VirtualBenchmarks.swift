import Foley
import Foundation
import Logging

/// Many emitters, few heard: 5,000 looping positional emitters (`AudioNode`s) of which 32 are
/// within the maximum distance, against the same scene whose other 4,968 nodes are silent plain
/// nodes (what the virtual emitters cost the audio system), against the 32 emitters alone, and
/// against 32 plain looping voices with no scene. Process CPU over the same wall time, the scene
/// updating at 60 Hz on this thread, SDL mixing on its own.
@MainActor
enum VirtualBenchmarks {
  /// Process CPU seconds over `seconds` with `heard` emitters in range and `unheard` beyond it
  /// (or `plain` looping voices and an empty scene).
  static func cpu(
    heard: Int, unheard: Int, plain: Bool, silentNodes: Bool = false, silentAudioNodes: Bool = false,
    walking: Bool = false, sound: Data,
    seconds: Double,
    logger: Logger
  ) throws
    -> (cpu: Double, virtual: Int, audible: Int)
  {
    let engine = try AudioEngine(session: AudioSession(), logger: logger)
    defer { engine.close() }
    var settings = SoundSettings()
    settings.volume = 0.03
    let torch = try Sound(data: sound, name: "torch.wav", engine: engine, settings: settings)
    let scene = Scene(size: Size(width: 800, height: 600))
    let listener = Node()
    scene.addChild(listener)
    scene.listener = listener
    var spatial = SpatialAudio()
    spatial.maximumDistance = 400
    engine.attach(to: scene, positional: true, spatial: spatial)
    var voices: [Voice] = []
    if plain {
      for index in 0..<heard { voices.append(engine.play(torch, pan: MixBenchmarks.pan(index), loops: -1)) }
    } else {
      for index in 0..<(heard + unheard) {
        let node: Node
        if index >= heard && silentNodes {
          node = Node()
        } else {
          let emitter = AudioNode(sound: torch)
          // The same objects, not playing: what the scene costs without their voices.
          if index >= heard && silentAudioNodes { emitter.autoplayLooped = false }
          node = emitter
        }
        // The heard ones on a circle of 200 points; the rest from 1,000 points out.
        let angle = Double(index) * 2.399
        let radius = index < heard ? 200 : 1_000 + Double(index) * 2
        node.position = Point(x: radius * cos(angle), y: radius * sin(angle))
        scene.addChild(node)
      }
    }
    var step = 0
    func frame() {
      if walking {
        // The listener walks a circle of 100 points round the middle, 3 points an update.
        step += 1
        let angle = Double(step) * 0.03
        listener.position = Point(x: 100 * cos(angle), y: 100 * sin(angle))
      }
      scene.update(deltaTime: 1.0 / 60)
    }
    for _ in 0..<30 { frame() }
    engine.waitUntilIdle()
    Clocks.sleep(seconds: 0.5)
    let census = engine.voiceCensus()
    let before = Clocks.processCPUNanoseconds
    let start = Clocks.wallNanoseconds
    var next = start
    while Clocks.wallNanoseconds - start < UInt64(seconds * 1e9) {
      frame()
      next += 16_666_667
      let now = Clocks.wallNanoseconds
      if next > now { Clocks.sleep(seconds: Double(next - now) / 1e9) }
    }
    return (Double(Clocks.processCPUNanoseconds - before) / 1e9, census.virtual, census.audible)
  }

  static func figures(_ long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let seconds = quick ? 3.0 : 6.0
    let rounds = quick ? 2 : 3
    var field: [Double] = []
    var alone: [Double] = []
    var plain: [Double] = []
    var sameScene: [Double] = []
    var sameObjects: [Double] = []
    var walkingField: [Double] = []
    var walkingScene: [Double] = []
    var census = (virtual: 0, audible: 0)
    for _ in 0..<rounds {
      let many = try cpu(
        heard: 32, unheard: 4_968, plain: false, sound: long, seconds: seconds, logger: logger)
      census = (many.virtual, many.audible)
      field.append(many.cpu)
      alone.append(
        try cpu(heard: 32, unheard: 0, plain: false, sound: long, seconds: seconds, logger: logger).cpu)
      sameScene.append(
        try cpu(
          heard: 32, unheard: 4_968, plain: false, silentNodes: true, sound: long, seconds: seconds,
          logger: logger
        ).cpu)
      sameObjects.append(
        try cpu(
          heard: 32, unheard: 4_968, plain: false, silentAudioNodes: true, sound: long, seconds: seconds,
          logger: logger
        ).cpu)
      plain.append(
        try cpu(heard: 32, unheard: 0, plain: true, sound: long, seconds: seconds, logger: logger).cpu)
      walkingField.append(
        try cpu(
          heard: 32, unheard: 4_968, plain: false, walking: true, sound: long, seconds: seconds,
          logger: logger
        ).cpu)
      walkingScene.append(
        try cpu(
          heard: 32, unheard: 4_968, plain: false, silentNodes: true, walking: true, sound: long,
          seconds: seconds, logger: logger
        ).cpu)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return [
      "virtual_emitters_cpu_ratio": median(field) / median(sameScene),
      "virtual_emitters_cpu_ratio_32_alone": median(field) / median(alone),
      "silent_nodes_cpu_percent": median(sameScene) / seconds * 100,
      "virtual_emitters_cpu_ratio_same_objects": median(field) / median(sameObjects),
      "silent_audio_nodes_cpu_percent": median(sameObjects) / seconds * 100,
      "virtual_emitters_cpu_ratio_plain": median(field) / median(plain),
      "virtual_emitters_cpu_ratio_walking": median(walkingField) / median(walkingScene),
      "virtual_emitters_walking_cpu_percent": median(walkingField) / seconds * 100,
      "virtual_emitters_cpu_percent": median(field) / seconds * 100,
      "audible_emitters_cpu_percent": median(alone) / seconds * 100,
      "plain_voices_cpu_percent": median(plain) / seconds * 100,
      "virtual_emitters_census": ["virtual": census.virtual, "audible": census.audible],
    ]
  }
}
