public import FoleyScene
public import Foundation

extension Action {
  /// Plays sound bytes on a channel of their own, so the same sound overlaps itself.
  ///
  /// The bytes are decoded once per engine however often the action runs (the cache is keyed on
  /// the bytes). While the audio session is inactive the action does nothing, finishes at once
  /// and counts as suppressed.
  ///
  /// ```swift
  /// let boom = try Data(contentsOf: URL(fileURLWithPath: "Assets/boom.wav"))
  /// sprite.run(.sequence([.playSound(data: boom, waitForCompletion: true), .removeFromParent()]))
  /// ```
  ///
  /// - Parameters:
  ///   - name: the asset's name for logs and errors.
  ///   - waitForCompletion: true to finish when the sound ends (seen at the next scene update);
  ///     false to finish at once.
  ///   - engine: the engine to play through; by default the one attached to the node's scene
  ///     (`AudioEngine.attach(to:)`). Without one the action does nothing.
  public static func playSound(
    data: Data, name: String? = nil, waitForCompletion: Bool = false, engine: AudioEngine? = nil
  ) -> Action {
    .behavior(
      PlaySoundBehavior(source: .data(data, name: name), waitForCompletion: waitForCompletion, engine: engine)
    )
  }

  /// Plays a sound file from the engine's asset root (`Assets/` by default), loaded and decoded
  /// once by name. SpriteKit's `playSoundFileNamed(_:waitForCompletion:)`.
  public static func playSoundFileNamed(_ name: String, waitForCompletion: Bool) -> Action {
    .behavior(PlaySoundBehavior(source: .named(name), waitForCompletion: waitForCompletion, engine: nil))
  }

  /// Plays an already decoded ``Sound``.
  public static func play(_ sound: Sound, waitForCompletion: Bool = false) -> Action {
    .behavior(PlaySoundBehavior(source: .sound(sound), waitForCompletion: waitForCompletion, engine: nil))
  }

  /// Changes the volume of the voices the node started (and will start) to `volume` over
  /// `duration` seconds.
  public static func changeVolume(to volume: Double, duration: TimeInterval) -> Action {
    .behavior(ChangeVolumeBehavior(target: max(0, volume), relative: false, duration: duration))
  }

  /// Changes the volume of the node's voices by `delta` over `duration` seconds.
  public static func changeVolume(by delta: Double, duration: TimeInterval) -> Action {
    .behavior(ChangeVolumeBehavior(target: delta, relative: true, duration: duration))
  }
}

struct PlaySoundBehavior: ActionBehavior {
  enum Source: Sendable {
    case data(Data, name: String?)
    case named(String)
    case sound(Sound)
  }

  let source: Source
  let waitForCompletion: Bool
  let engine: AudioEngine?

  var duration: TimeInterval {
    if waitForCompletion, case .sound(let sound) = source { return sound.duration }
    return 0
  }

  func makeRunner(on node: Node) -> any ActionRunner {
    PlaySoundRunner(behavior: self)
  }
}

@MainActor
final class PlaySoundRunner: ActionRunner {
  private let behavior: PlaySoundBehavior
  private var voice: Voice?

  init(behavior: PlaySoundBehavior) {
    self.behavior = behavior
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    if let voice {
      return voice.isFinished ? 0 : nil
    }
    guard let engine = behavior.engine ?? node.scene?.service(AudioEngine.self) else { return deltaTime }
    let source: MixerCore.PlaySource
    switch behavior.source {
    case .data(let data, let name): source = .data(data, name: name)
    case .named(let name): source = .named(name, url: engine.assetRoot.appendingPathComponent(name))
    case .sound(let sound): source = .sound(sound)
    }
    let pan =
      node.scene.flatMap { scene in scene.service(SceneAudioLink.self)?.pan(for: node, in: scene) } ?? 0
    let started = engine.play(source, volume: 1, pan: pan, groupVolume: engine.nodeVolumes.volume(of: node))
    engine.nodeVolumes.register(started, for: node)
    voice = started
    return behavior.waitForCompletion && !started.isFinished ? nil : deltaTime
  }
}

struct ChangeVolumeBehavior: ActionBehavior {
  let target: Double
  let relative: Bool
  let duration: TimeInterval

  func makeRunner(on node: Node) -> any ActionRunner {
    ChangeVolumeRunner(behavior: self)
  }

  func reversed() -> any ActionBehavior {
    relative ? ChangeVolumeBehavior(target: -target, relative: true, duration: duration) : self
  }
}

@MainActor
final class ChangeVolumeRunner: ActionRunner {
  private let behavior: ChangeVolumeBehavior
  private var start: Double?
  private var elapsed: TimeInterval = 0

  init(behavior: ChangeVolumeBehavior) {
    self.behavior = behavior
  }

  func advance(by deltaTime: TimeInterval, on node: Node) -> TimeInterval? {
    guard let table = node.scene?.service(AudioEngine.self)?.nodeVolumes else { return deltaTime }
    let from = start ?? table.volume(of: node)
    start = from
    let goal = behavior.relative ? from + behavior.target : behavior.target
    elapsed += deltaTime
    let progress = behavior.duration > 0 ? min(1, elapsed / behavior.duration) : 1
    table.setVolume(max(0, from + (goal - from) * progress), of: node)
    return progress >= 1 ? max(0, elapsed - behavior.duration) : nil
  }
}
