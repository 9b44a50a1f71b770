import Dispatch
@_spi(FoleyStreams) public import FoleyAudio
public import FoleyCore
import Foundation

/// Speaks utterances through an `AudioEngine`: AVSpeechSynthesizer for games, on espeak-ng.
///
/// Utterances queue and are spoken one after another. Each is synthesised ahead (off the game
/// thread) and plays as a streamed voice of category `FoleyAudio/SoundCategory/speech`: its
/// bus volume and session policy apply (by default it pauses when the window loses focus and
/// resumes at the same sample), and so does the master limiter. It can pause at a word's end and
/// go on with the next word, and it reports each word as it is about to be heard.
///
/// ```swift
/// let speech = SpeechSynthesizer(engine: engine)
/// speech.ducking = SpeechDucking(categories: [.music, .ambience], decibels: -10)
/// speech.observe { event in
///   if case .willSpeakRange(let range, let line) = event { subtitle.text = String(line.string[range]) }
/// }
/// speech.speak(Utterance(string: "The bridge is out. Take the river path."))
/// speech.pauseSpeaking(at: .word)
/// speech.continueSpeaking()
/// ```
///
/// Events arrive on the game thread through the session's `GameThreadMailbox`: while it speaks,
/// the synthesizer follows the words heard at every drain of the mailbox (each update of a scene
/// the engine is attached to, each `EventPump.poll()`), and every 20 ms from the main queue for a
/// game that has neither. No game calls ``deliverEvents()`` by hand.
@MainActor
public final class SpeechSynthesizer {
  public let engine: AudioEngine
  public let backend: any SpeechBackend
  /// Turn other categories down while speech plays (nil: no ducking).
  public var ducking: SpeechDucking?
  /// Whether each utterance is captioned with its words while it is heard, through the engine's
  /// captions (`engine.captions`, category `speech`). On by default.
  public var showsCaptions = true

  /// The utterance being spoken.
  struct Speaking {
    let utterance: Utterance
    let feed: SpeechFeed
    let stream: PCMStream
    /// Source frames of silence before the speech.
    let leadingFrames: Int
    /// Words reported so far.
    var wordsReported = 0
    /// A pause or stop at a word's end is under way.
    var holdingFor: HoldPurpose?
    var isPaused = false
    var isCancelled = false
    /// The mix frame it was cancelled on: its voice's end is taken only from a later one (see
    /// ``deliverEvents()``).
    var cancelledOnFrame: AudioFrame?
  }

  enum HoldPurpose {
    case pause
    case stop
  }

  /// Utterances waiting their turn, each synthesising its first piece ahead.
  private var queue: [SpeechFeed] = []
  var speaking: Speaking?
  private var observers = ObserverList<SpeechEvent>()
  private var isTicking = false
  /// The synthesizer's poller in the mailbox while it speaks.
  private var pollerToken: Int?
  private let synthesisQueue = DispatchQueue(label: "foley.speech.synthesis", qos: .userInitiated)
  private let tracker = SynthesisTracker()
  /// The engine's wait for this synthesizer's work (an offline render waits for the speech).
  private var idleWaiter = 0
  /// The longest piece of text synthesised at once (characters): an utterance starts speaking as
  /// soon as its first piece is made.
  package var pieceLength = 400
  /// How much speech is synthesised ahead of what is heard, at most (plus one piece).
  package var synthesisAheadSeconds = 20.0

  /// A synthesizer that speaks through `engine` with `backend` (espeak-ng by default).
  public init(engine: AudioEngine, backend: any SpeechBackend = EspeakBackend.shared) {
    self.engine = engine
    self.backend = backend
    idleWaiter = engine.addIdleWaiter { [tracker, synthesisQueue] in
      while tracker.inFlight.load(ordering: .acquiring) > 0 { synthesisQueue.sync {} }
    }
  }

  isolated deinit {
    engine.removeIdleWaiter(idleWaiter)
  }

  /// True while an utterance is being spoken or waits its turn (also while paused).
  public var isSpeaking: Bool { speaking != nil || !queue.isEmpty }

  /// True while paused by ``pauseSpeaking(at:)``.
  public var isPaused: Bool { speaking?.isPaused ?? false }

  /// The utterance being spoken.
  public var currentUtterance: Utterance? { speaking?.utterance }

  /// Queues `utterance`; it starts when those before it have finished.
  public func speak(_ utterance: Utterance) {
    let mailbox = engine.session.mailbox
    let feed = SpeechFeed(
      utterance: utterance, backend: backend, queue: synthesisQueue, pieceLength: pieceLength,
      aheadSeconds: synthesisAheadSeconds, tracker: tracker
    ) { [weak self] in
      mailbox.post { self?.deliverEvents() }
    }
    queue.append(feed)
    if pollerToken == nil {
      pollerToken = mailbox.addPoller { [weak self] in self?.deliverEvents() }
    }
    feed.synthesizeIfNeeded()
    // On the embedded mixer (an offline render, a test) the first piece is made now: the
    // utterance then starts on the same step every run, however fast espeak-ng ran (it started
    // one step early or late when the piece was made before or after the next mailbox drain).
    if !engine.streamFiller.refillsByItself { feed.waitUntilReady() }
    startNextIfIdle()
    scheduleTick()
  }

  /// An utterance's words as a caption: its whitespace folded, at most 200 characters.
  static func captionText(_ string: String) -> String {
    let words = string.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    return words.count <= 200 ? words : String(words.prefix(199)) + "…"
  }

  /// Pauses speaking at once or at the end of the current word. False when nothing is being
  /// spoken (or it is paused already).
  @discardableResult
  public func pauseSpeaking(at boundary: SpeechBoundary) -> Bool {
    guard var current = speaking, !current.isPaused, current.holdingFor == nil, !current.isCancelled else {
      return false
    }
    switch boundary {
    case .immediate:
      current.stream.voice.pause()
      current.isPaused = true
      speaking = current
      emit(.didPause(current.utterance))
    case .word:
      current.holdingFor = .pause
      current.stream.hold(atSourceFrame: holdFrame(for: current))
      speaking = current
    }
    return true
  }

  /// Goes on after a pause: with the next word after a pause at a word, at the very sample after
  /// an immediate one. False when not paused.
  @discardableResult
  public func continueSpeaking() -> Bool {
    guard var current = speaking else { return false }
    if current.holdingFor == .pause {
      // Asked to go on before the pause took hold: it simply does not happen.
      current.holdingFor = nil
      current.stream.release()
      speaking = current
      return true
    }
    guard current.isPaused else { return false }
    current.isPaused = false
    if current.stream.isHolding {
      current.stream.release()
    } else {
      current.stream.voice.resume()
    }
    speaking = current
    emit(.didContinue(current.utterance))
    scheduleTick()
    return true
  }

  /// Stops speaking at once or after the current word, and forgets the utterances still queued.
  /// False when there was nothing to stop.
  @discardableResult
  public func stopSpeaking(at boundary: SpeechBoundary) -> Bool {
    let hadQueue = !queue.isEmpty
    for feed in queue { feed.cancel() }
    queue.removeAll()
    guard var current = speaking else { return hadQueue }
    if boundary == .word, !current.isPaused {
      current.holdingFor = .stop
      current.stream.hold(atSourceFrame: holdFrame(for: current))
      speaking = current
    } else {
      cancel(current)
    }
    return true
  }

  // MARK: - Events

  /// Calls `body` with every ``SpeechEvent``, on the game thread, until the observation is
  /// cancelled.
  @discardableResult
  public func observe(_ body: @escaping @MainActor (SpeechEvent) -> Void) -> Observation {
    let token = observers.add(body)
    return Observation { [weak self] in self?.observers.remove(token) }
  }

  /// Moves speaking along and reports what was heard since the last call: words about to be
  /// heard, pauses taking hold, utterances finishing and the next one starting.
  public func deliverEvents() {
    defer {
      // Done speaking: the mailbox need not ask any more.
      if !isSpeaking, let token = pollerToken {
        engine.session.mailbox.removePoller(token)
        pollerToken = nil
      }
    }
    if var current = speaking {
      let heard = current.stream.heardSourceFrame - current.leadingFrames
      let words = current.feed.words
      while current.wordsReported < words.count,
        words[current.wordsReported].startFrame <= heard + lookAhead(current)
      {
        let word = words[current.wordsReported]
        current.wordsReported += 1
        speaking = current
        emit(.willSpeakRange(word.range, current.utterance))
      }
      if let purpose = current.holdingFor, current.stream.isHolding {
        current.holdingFor = nil
        switch purpose {
        case .pause:
          current.isPaused = true
          speaking = current
          emit(.didPause(current.utterance))
        case .stop:
          speaking = current
          cancel(current)
        }
      } else {
        speaking = current
      }
      // A cancelled voice's stop is served on the audio queue, at whatever moment it gets to it:
      // its end is taken once the mix has moved on (at once on a device; on the embedded mixer,
      // at the next step, every run, instead of on this step or the next as the queue raced
      // the game thread: an offline render was not the same twice).
      if let current = speaking, current.stream.isFinished,
        current.cancelledOnFrame.map({ engine.audioFrame > $0 }) ?? true
      {
        speaking = nil
        emit(current.isCancelled ? .didCancel(current.utterance) : .didFinish(current.utterance))
      }
    }
    startNextIfIdle()
    if speaking == nil, queue.isEmpty { engine.endDuck(named: Self.duckName) }
  }

  // MARK: - Inside

  private static let duckName = "foley.speech"

  /// Words are reported a little before they are heard, as AVSpeechSynthesizer does: one game
  /// frame (16 ms) at the backend's rate.
  private func lookAhead(_ current: Speaking) -> Int { current.feed.sampleRate / 60 }

  /// The source frame to stop at for a pause or stop at a word: the end of the current word (or
  /// now, in the pause after it).
  private func holdFrame(for current: Speaking) -> Int {
    let heard = current.stream.heardSourceFrame - current.leadingFrames
    // The current word is the one being heard, or the one the game was just told is coming.
    let words = current.feed.words
    let beingHeard = words.lastIndex { $0.startFrame <= heard } ?? -1
    let index = max(beingHeard, current.wordsReported - 1)
    let end = index >= 0 ? max(words[index].endFrame, heard) : heard
    return current.leadingFrames + max(0, end)
  }

  private func cancel(_ current: Speaking) {
    var cancelled = current
    cancelled.isCancelled = true
    cancelled.cancelledOnFrame = engine.audioFrame
    cancelled.holdingFor = nil
    cancelled.stream.stop()
    cancelled.feed.cancel()
    speaking = cancelled
  }

  /// Starts the next queued utterance once nothing is being spoken and its first piece is made.
  private func startNextIfIdle() {
    while speaking == nil, let feed = queue.first, feed.isReady {
      queue.removeFirst()
      let utterance = feed.utterance
      if let error = feed.state.withLock({ $0.failure }) {
        emit(.didFail(utterance, error))
        continue
      }
      guard feed.sampleRate > 0 else {
        // An empty text: nothing to say.
        emit(.didStart(utterance))
        emit(.didFinish(utterance))
        continue
      }
      let source = SpeechSource(
        feed, before: utterance.preUtteranceDelay, after: utterance.postUtteranceDelay)
      if let ducking {
        engine.duck(ducking.categories, by: ducking.decibels, named: Self.duckName, duration: 0.15)
      }
      let stream = engine.playStream(source, name: "speech", category: .speech, volume: utterance.volume)
      speaking = Speaking(
        utterance: utterance, feed: feed, stream: stream, leadingFrames: source.leadingFrames)
      if showsCaptions {
        engine.captions.track(
          stream.voice, caption: Caption(Self.captionText(utterance.string), category: .speech),
          category: .speech,
          duration: nil)
      }
      emit(.didStart(utterance))
    }
  }

  /// While speaking, looks again every 20 ms from the main queue: the fallback for a game whose
  /// loop drains no mailbox (no attached scene, no `EventPump`).
  private func scheduleTick() {
    guard !isTicking else { return }
    isTicking = true
    DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(20)) { [weak self] in
      MainActor.assumeIsolated {
        guard let self else { return }
        self.isTicking = false
        self.deliverEvents()
        if self.isSpeaking { self.scheduleTick() }
      }
    }
  }

  private func emit(_ event: SpeechEvent) {
    // A line that cannot be spoken (no such voice, no espeak-ng data) is the observers' to report;
    // with none it is logged, so that it never fails silently.
    if case .didFail(let utterance, let error) = event, observers.isEmpty {
      engine.core.logger.error("speech: cannot speak \"\(utterance.string.prefix(40))\": \(error)")
    }
    observers.send(event)
  }
}

/// Which categories speech turns down while it plays, and by how much.
public struct SpeechDucking: Sendable, Hashable {
  public var categories: Set<SoundCategory>
  /// How far down, in dB (negative).
  public var decibels: Double

  public init(categories: Set<SoundCategory> = [.music, .ambience], decibels: Double = -10) {
    self.categories = categories
    self.decibels = decibels
  }
}
