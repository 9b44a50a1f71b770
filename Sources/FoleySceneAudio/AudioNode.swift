public import FoleyAudio
public import FoleyScene
public import Foundation

/// A node that plays a sound where it is: SpriteKit's `SKAudioNode`. By default it loops its
/// sound from the moment it is in a scene whose engine is attached, is heard from its place
/// relative to the scene's `FoleyScene/Scene/listener` (quieter with distance, panned to its
/// side, updated every frame), pauses while its scene (or an ancestor) is paused, and stops with a
/// short ramp when it leaves the scene.
///
/// ```swift
/// let campfire = AudioNode(fileNamed: "fire.ogg")        // loops, positional
/// campfire.position = Point(x: 300, y: 120)
/// scene.addChild(campfire)
/// scene.listener = player
/// campfire.run(.sequence([.wait(forDuration: 5), .changeVolume(to: 0.2, duration: 2)]))
/// campfire.run(.stop())                                  // or .pause(), .play(), .stereoPan(to:duration:)
/// ```
///
/// With ``autoplayLooped`` off it plays once, when ``play(fadeIn:)`` (or `Action.play()`) asks.
@MainActor
open class AudioNode: Node {
  /// Start playing, looped, as soon as the node is in a scene with an engine (SpriteKit's
  /// `autoplayLooped`). Off: nothing plays until ``play(fadeIn:)``, and then the sound plays once.
  public var autoplayLooped = true
  /// Heard from the node's place relative to the listener (on by default, as in SpriteKit);
  /// off: heard centred, at full level. Read when the sound starts.
  public var isPositional = true
  /// The sound's voice while it plays or is paused.
  public private(set) var voice: Voice?
  /// What moves the node's volume while it plays (`Voice.setModulators(_:)`): a
  /// game parameter through a curve, an LFO, an envelope, a follower of another bus. Set them
  /// before the node starts, or while it plays;
  /// every voice the node starts takes them. A list the engine refuses (more than four, a
  /// parameter it does not define) is logged, and the voice plays without it.
  ///
  /// ```swift
  /// try engine.defineParameter("danger", range: 0...1, default: 0)
  /// let hum = AudioNode(fileNamed: "hum.wav")
  /// hum.modulators = [.parameter("danger", curve: try ParameterCurve([(0, -9), (1, 0)]))]
  /// ball.addChild(hum)
  /// ```
  public var modulators: [Modulator] = [] {
    didSet { applyModulators() }
  }
  /// The node's own values of game parameters, by name (``setParameter(_:to:tween:)``).
  public private(set) var parameters: [String: Double] = [:]

  /// Sets the node's own value of game parameter `name`, at once or along `tween`: its
  /// modulators that follow `name` read it in place of the engine's value (`Voice.setParameter`),
  /// for the voice playing now and every one it starts.
  ///
  /// ```swift
  /// let car = AudioNode(fileNamed: "motor.wav")
  /// car.modulators = [.parameter("rpm", curve: try ParameterCurve([(0, -20), (1, 0)]))]
  /// try car.setParameter("rpm", to: 0.7, tween: 0.5)
  /// ```
  /// - Throws: what `Voice.setParameter` throws, when a voice plays; before one does, a name the
  ///   engine does not define is logged when the voice starts.
  public func setParameter(_ name: String, to value: Double, tween: Tween = .immediate) throws(ParameterError)
  {
    if let voice, !voice.isFinished { try voice.setParameter(name, to: value, tween: tween) }
    parameters[name] = value
  }
  /// Why the file of ``init(url:)`` could not be read (nil: it was, or the node was made another
  /// way).
  public private(set) var readError: String?
  private let source: SoundSource
  /// The game asked for sound (`play()`, or autoplay once in a scene) and has not paused or
  /// stopped it since. Off at first: a node that does not autoplay waits for `play()`.
  private var wantsToPlay = false
  private var isPausedByGame = false
  /// How the next start comes in (``play(fadeIn:)``); at once after it.
  private var nextFadeIn = Tween.immediate
  private var isHeldByScene = false
  private weak var link: SceneAudioLink?

  /// A node that plays the file `name` from the engine's asset roots.
  public convenience init(fileNamed name: String) {
    self.init(source: .named(name))
  }

  /// A node that plays `sound`.
  public convenience init(sound: Sound) {
    self.init(source: .sound(sound))
  }

  /// A node that plays sound bytes (decoded once per engine, like `playSound(data:)`).
  public convenience init(data: Data, name: String? = nil) {
    self.init(source: .data(SoundDataReference(data: data, name: name)))
  }

  /// A node that plays the file at `url`, anywhere on disk: SpriteKit's `SKAudioNode(url:)`.
  /// The file is mapped now and decoded once per engine, as bytes are. A file that cannot be read
  /// makes a node that plays nothing, and the engine logs why (with the file's path) when the node
  /// would start; ``readError`` says it at once.
  ///
  /// ```swift
  /// let url = Bundle.main.url(forResource: "heartbeat", withExtension: "wav")!
  /// let heartbeat = AudioNode(url: url)
  /// scene.addChild(heartbeat)
  /// ```
  public convenience init(url: URL) {
    do {
      let bytes = try Data(contentsOf: url, options: .mappedIfSafe)
      self.init(source: .data(SoundDataReference(data: bytes, name: url.lastPathComponent)))
    } catch {
      let reason = "\(url.path) could not be read: \((error as NSError).localizedDescription)"
      self.init(source: .data(SoundDataReference(data: Data(), name: reason)))
      readError = reason
    }
  }

  package init(source: SoundSource) {
    self.source = source
    super.init()
    // The node's audio state lives in its storage slot, which also hears the node join and leave
    // scenes.
    _ = NodeAudio.ensure(self)
  }

  /// Starts the sound (again from the beginning if it was stopped), or resumes it if paused. A
  /// start comes in from silence along `fadeIn` (at once unless given; a resume is at once), as
  /// every other way to play does; if the node cannot start yet (no engine, a paused scene) the
  /// fade-in waits for its start.
  ///
  /// ```swift
  /// campfire.play(fadeIn: Tween(duration: 2, easing: .easeOut))
  /// campfire.stop(tween: 1.5)
  /// ```
  public func play(fadeIn: Tween = .immediate) {
    nextFadeIn = fadeIn
    wantsToPlay = true
    if let voice, voice.state == .paused {
      isPausedByGame = false
      if !isHeldByScene { voice.resume() }
      return
    }
    isPausedByGame = false
    startIfReady()
  }

  /// Pauses the sound where it is; ``play(fadeIn:)`` resumes it.
  public func pause() {
    guard let voice, !voice.isFinished else {
      wantsToPlay = false
      return
    }
    isPausedByGame = true
    voice.pause()
  }

  /// Stops the sound, its level moving to silence along `tween` (a short ramp unless given; an
  /// envelope among its modulators releases); ``play(fadeIn:)`` starts it again from the beginning.
  public func stop(tween: Tween = .immediate) {
    wantsToPlay = false
    isPausedByGame = false
    voice?.stop(tween: tween)
    voice = nil
  }

  // MARK: - The scene's side

  package func didEnter(_ scene: Scene) {
    guard let link = SceneAudioLink.of(scene) else { return }  // started when an engine attaches
    engineAttached(link)
  }

  func engineAttached(_ link: SceneAudioLink) {
    self.link = link
    link.register(self)
    isHeldByScene = SceneAudioLink.isPausedInTree(self)
    if autoplayLooped || wantsToPlay {
      wantsToPlay = true
      startIfReady()
    }
  }

  package func willLeave(_ scene: Scene) {
    link?.unregister(self)
    link = nil
    voice?.stop()
    voice = nil
    isHeldByScene = false
    // Back in a scene, an autoplaying node starts again; one started by `play()` waits for it.
    wantsToPlay = autoplayLooped
  }

  /// The scene's engine was detached (or the scene went): the sound stops.
  func sceneWentAway() {
    link = nil
    voice?.stop()
    voice = nil
  }

  /// The scene (or an ancestor) paused or unpaused.
  func setHeldByScene(_ held: Bool) {
    guard held != isHeldByScene else { return }
    isHeldByScene = held
    guard let voice, !voice.isFinished else {
      // Asked to play while the scene was paused: it starts now.
      if !held { startIfReady() }
      return
    }
    guard !isPausedByGame else { return }
    if held { voice.pause() } else { voice.resume() }
  }

  private func startIfReady() {
    guard wantsToPlay, !isHeldByScene, let link, voice == nil || voice!.isFinished, let scene = self.scene,
      SceneAudioLink.of(scene) === link
    else { return }
    // The modulators ride with the play, so the voice starts under them (an envelope's attack
    // from its first frame).
    var options = PlayOptions.given(pan: 0, rate: 1, start: .now, fadeIn: nextFadeIn)
    if !modulators.isEmpty {
      options = options ?? PlayOptions()
      options?.modulators = modulators
    }
    guard
      let started = SceneVoices.start(
        source, for: self, volume: 1, loops: autoplayLooped ? -1 : 0, positional: isPositional,
        options: options),
      !started.isFinished
    else { return }
    nextFadeIn = .immediate
    voice = started
    for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
      do {
        try started.setParameter(name, to: value)
      } catch {
        started.core?.logger.warning(
          "audio node \(self.name ?? "unnamed"): parameter \"\(name)\" refused: \(error)")
      }
    }
  }

  private func applyModulators() {
    guard let voice, !voice.isFinished else { return }
    do {
      try voice.setModulators(modulators)
    } catch {
      voice.core?.logger.warning("audio node \(name ?? "unnamed"): modulators refused: \(error)")
    }
  }

  /// Every audio node in `node`'s subtree.
  package static func forEach(in node: Node, _ body: (AudioNode) -> Void) {
    if let audioNode = node as? AudioNode { body(audioNode) }
    for child in node.children { forEach(in: child, body) }
  }
}
