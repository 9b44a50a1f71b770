@_spi(FoleyStreams) public import FoleyAudio
import FoleyCore
public import FoleyScene

extension Action {
  /// Speaks `utterance` through the synthesizer of the engine attached to the node's scene, and
  /// finishes when it has been spoken (or cancelled, or failed): a sequence can say a line, then
  /// move on.
  ///
  /// ```swift
  /// guide.run(.sequence([.speak(Utterance(string: "Follow me.")), .move(to: gate, duration: 2)]))
  /// ```
  public static func speak(_ utterance: Utterance) -> Action {
    .behavior(SpeakBehavior(utterance: utterance))
  }
}

extension SpeechSynthesizer {
  /// The synthesizer the `.speak` action uses for `engine` (one per engine, made on first use and
  /// let go when the engine is closed).
  public static func shared(for engine: AudioEngine) -> SpeechSynthesizer {
    SynthesizerRegistry.synthesizers.removeAll { $0.engine.isClosed }
    if let found = SynthesizerRegistry.synthesizers.first(where: { $0.engine === engine }) { return found }
    let made = SpeechSynthesizer(engine: engine)
    SynthesizerRegistry.synthesizers.append(made)
    return made
  }
}

@MainActor
private enum SynthesizerRegistry {
  static var synthesizers: [SpeechSynthesizer] = []
}

struct SpeakBehavior: ActionBehavior {
  let utterance: Utterance
  /// An estimate for sequences and timing curves: the real length is known once it is spoken.
  var duration: Double { Double(utterance.string.count) / 14 }

  func makeRunner(on node: Node) -> any ActionRunner {
    SpeakRunner(utterance: utterance)
  }
}

@MainActor
final class SpeakRunner: ActionRunner {
  private let utterance: Utterance
  private var synthesizer: SpeechSynthesizer?
  private var token: Observation?
  private var done = false

  init(utterance: Utterance) {
    self.utterance = utterance
  }

  func advance(by deltaTime: Double, on node: Node) -> Double? {
    if synthesizer != nil {
      // The scene's mailbox drains drive the synthesizer while the action waits for it.
      return done ? 0 : nil
    }
    guard let engine = node.scene?.service(AudioEngine.self), !engine.isClosed else { return deltaTime }
    let synthesizer = SpeechSynthesizer.shared(for: engine)
    self.synthesizer = synthesizer
    let id = utterance.id
    token = synthesizer.observe { [weak self] event in
      switch event {
      case .didFinish(let spoken), .didCancel(let spoken), .didFail(let spoken, _):
        if spoken.id == id { self?.finish() }
      default: break
      }
    }
    synthesizer.speak(utterance)
    return nil
  }

  private func finish() {
    done = true
    token?.cancel()
    token = nil
  }

  func restart(on node: Node) -> Bool { false }
}
