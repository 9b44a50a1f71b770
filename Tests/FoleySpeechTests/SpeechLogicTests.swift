import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleySpeech
import FoleyTestSupport
import Foundation
import Testing

/// Speech's API on the embedded mixer and espeak-ng itself: voices, errors, the action, ducking.
@MainActor
@Suite("Speech (embedded mixer)", .serialized)
struct SpeechLogicTests {
  @Test("espeak-ng's voices are listed; an unknown voice is a typed error; words slice non-ASCII text")
  func backend() throws {
    let voices = SpeechVoice.voices()
    #expect(voices.count > 50)
    #expect(SpeechVoice.voice(language: "en-gb") != nil && SpeechVoice.voice(language: "fr") != nil)
    #expect(throws: SpeechError.self) {
      try EspeakBackend.shared.synthesize(
        "hi", voice: SpeechVoice(identifier: "no/such-voice", name: "x", language: "xx"), rate: 0.5, pitch: 1)
    }
    let text = "Żółć, naïve café — déjà vu!"
    let speech = try EspeakBackend.shared.synthesize(
      text, voice: SpeechVoice.voice(language: "en"), rate: 0.5, pitch: 1)
    #expect(speech.words.map { String(text[$0.range]) } == ["Żółć", "naïve", "café", "déjà", "vu"])
    #expect(speech.sampleRate == 22_050 && speech.duration > 1)
    // Each word's sound lies inside the samples, in order.
    for (word, next) in zip(speech.words, speech.words.dropFirst()) {
      #expect(word.startFrame < word.endFrame && word.endFrame <= next.startFrame)
    }
    // A faster rate speaks the same text in less time.
    let fast = try EspeakBackend.shared.synthesize(text, voice: nil, rate: 0.9, pitch: 1)
    #expect(fast.duration < 0.75 * speech.duration)
  }

  @Test("a line in a voice that does not exist fails: an event to its observer, else an error in the log")
  func unknownVoiceIsReported() throws {
    let log = CapturedLog()
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession(), logger: log.logger)
    defer { engine.close() }
    let speech = SpeechSynthesizer(engine: engine)
    var line = Utterance(string: "Nobody can say this.")
    line.voice = SpeechVoice(identifier: "no/such-voice", name: "x", language: "xx")
    func logged() -> [String] { log.lines.filter { $0.level >= .error }.map(\.message) }
    speech.speak(line)
    for _ in 0..<200 where !logged().contains(where: { $0.contains("Nobody can say") }) {
      engine.waitUntilIdle()
      mixer.advance(seconds: 0.01)
      speech.deliverEvents()
    }
    #expect(
      logged().contains { $0.contains("Nobody can say this.") && $0.contains("no such voice") }, "\(logged())"
    )
    #expect(!speech.isSpeaking)
    // Observed, the failure is the observer's: an event, and nothing in the log.
    let before = logged().count
    var failures = 0
    speech.observe { if case .didFail = $0 { failures += 1 } }
    speech.speak(line)
    for _ in 0..<200 where failures == 0 {
      engine.waitUntilIdle()
      mixer.advance(seconds: 0.01)
      speech.deliverEvents()
    }
    #expect(failures == 1)
    #expect(logged().count == before)
  }

  @Test("the .speak action waits for the line; music ducks while it speaks and comes back after")
  func actionAndDucking() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let speech = SpeechSynthesizer.shared(for: audio.engine)
    speech.ducking = SpeechDucking(categories: [.music], decibels: -20)
    // A constant level as the music, so its gain is read off the left channel.
    let music = audio.engine.music
    music.play(
      Track(data: makeToneWAV(frequency: 0, duration: 1, amplitude: 0.5), name: "dc.wav", loopCount: -1))
    audio.advance(seconds: 0.1, stepping: scene)
    let level = Float(Int16(0.5 * 32_767)) / 32_768
    #expect(audio.right.samples.last == level)
    let node = Node()
    scene.addChild(node)
    var done = false
    node.run(.sequence([.speak(Utterance(string: "Duck and cover.")), .run { done = true }]))
    // While it speaks, the music is 20 dB down (the right channel carries music plus speech, so
    // the left and right differ only by... both carry both: read the music while speech is silent).
    #expect(audio.advance(until: { speech.isSpeaking && speech.currentUtterance != nil }, stepping: scene))
    audio.advance(seconds: 0.3, stepping: scene)
    #expect(!done)
    #expect(audio.advance(until: { done }, limit: 10, stepping: scene))
    #expect(!speech.isSpeaking)
    audio.advance(seconds: 0.5, stepping: scene)
    #expect(audio.left.samples.last == level)  // back up after the line
    // Somewhere during the line the music sat at -20 dB (with speech on top now and then).
    let ducked = level * Float(pow(10, -20.0 / 20))
    #expect(audio.left.samples.contains { abs($0 - ducked) < 1e-4 })
  }
}

extension SpeechLogicTests {
  @Test(
    "infinite, huge and NaN delays around an utterance are held within an hour: no trap, and a stop ends it")
  func extremeDelays() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let speech = SpeechSynthesizer.shared(for: audio.engine)
    for (before, after) in [(Double.infinity, Double.nan), (1e308, -.infinity), (.nan, 1e19)] {
      var line = Utterance(string: "Hold.")
      line.preUtteranceDelay = before
      line.postUtteranceDelay = after
      speech.speak(line)
      #expect(audio.advance(until: { speech.isSpeaking }, stepping: scene))
      audio.advance(seconds: 0.1, stepping: scene)
      _ = speech.stopSpeaking(at: .immediate)
      #expect(audio.advance(until: { !speech.isSpeaking }, limit: 5, stepping: scene))
    }
  }
}

/// Long texts: synthesised a piece at a time, a bounded amount ahead of what is heard.
@MainActor
@Suite("Speech in pieces (embedded mixer)", .serialized)
struct SpeechPieceTests {
  @Test("a text is cut at sentence ends, then spaces, into pieces that cover it exactly")
  func piecesCoverTheText() {
    let text = "One two three. Four five six! Seven eight nine? " + String(repeating: "word ", count: 30)
    let pieces = SpeechFeed.pieces(of: text, length: 40)
    #expect(pieces.first.map { String(text[$0]) } == "One two three. Four five six!")
    #expect(pieces.allSatisfy { text.distance(from: $0.lowerBound, to: $0.upperBound) <= 40 })
    #expect(pieces.map { String(text[$0]) }.joined() == text)
    for (piece, next) in zip(pieces, pieces.dropFirst()) { #expect(piece.upperBound == next.lowerBound) }
  }

  @Test(
    "words of later pieces are reported in order, as slices of the utterance's own string, and it all plays")
  func wordsAcrossPieces() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let speech = SpeechSynthesizer(engine: audio.engine)
    speech.pieceLength = 20
    let text = "One two three. Four five six. Seven eight nine."
    var words: [String] = []
    var finished = false
    speech.observe { event in
      switch event {
      case .willSpeakRange(let range, let line): words.append(String(line.string[range]))
      case .didFinish: finished = true
      default: break
      }
    }
    speech.speak(Utterance(string: text))
    #expect(audio.advance(until: { finished }, limit: 20, stepping: scene))
    #expect(words == ["One", "two", "three", "Four", "five", "six", "Seven", "eight", "nine"])
  }

  @Test("a very long text starts at once and keeps only a bounded amount synthesised ahead")
  func longTextIsBounded() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let speech = SpeechSynthesizer(engine: audio.engine)
    speech.pieceLength = 200
    speech.synthesisAheadSeconds = 3
    // About 60,000 characters: an hour of speech, synthesised whole, would take minutes.
    let text = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 1_300)
    var started = false
    speech.observe { if case .didStart = $0 { started = true } }
    speech.speak(Utterance(string: text))
    // The first piece is synthesised on the backend's queue, in wall-clock time.
    #expect(
      waitUntil(timeout: 30) {
        audio.advance(frames: 480, stepping: scene)
        return started
      })
    // Nothing is heard now, so a bounded synthesis stops once it is as far ahead as allowed:
    // it has stopped when it is that far ahead with no piece under way (only a read starts
    // another). One that made the whole text would never stop short of it.
    #expect(
      waitUntil(timeout: 120) {
        guard let progress = speech.synthesisProgress else { return false }
        return (progress.secondsAhead >= 3 && !progress.isSynthesizing) || progress.piecesMade >= 20
      })
    var progress = try #require(speech.synthesisProgress)
    #expect(progress.pieces > 250)
    #expect(progress.piecesMade < 20, "\(progress)")
    // What waits to be heard: the ahead bound plus one piece (about 12 s) at most.
    #expect(progress.secondsAhead < 3 + 15, "\(progress)")
    // Heard on, it keeps synthesising, still bounded.
    let before = progress.piecesMade
    audio.advance(seconds: 20, stepping: scene)
    #expect(waitUntil(timeout: 30) { (speech.synthesisProgress?.piecesMade ?? 0) > before })
    progress = try #require(speech.synthesisProgress)
    #expect(progress.secondsAhead < 3 + 15, "\(progress)")
    #expect(speech.stopSpeaking(at: .immediate))
  }
}
