import FoleyAudio
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleySession
import FoleySpeech
import FoleyTestSupport
import Foundation
import Testing

/// Speech through the engine, read back from SDL's disk driver: real espeak-ng, real SDL_mixer.
@MainActor
@Suite("Speech (disk driver)", .serialized)
struct SpeechOutputTests {
  /// Records every event, delivering them as the test waits.
  final class Log {
    var events: [SpeechEvent] = []
    var words: [String] = []
    func finished(_ count: Int = 1) -> Bool {
      events.filter { if case .didFinish = $0 { true } else { false } }.count >= count
    }
  }

  static func log(_ speech: SpeechSynthesizer) -> Log {
    let log = Log()
    speech.observe { event in
      log.events.append(event)
      if case .willSpeakRange(let range, let utterance) = event {
        log.words.append(String(utterance.string[range]))
      }
    }
    return log
  }

  /// The audible runs of `signal` (gaps of 150 ms or more between them).
  static func runs(_ signal: Signal) -> [Range<Int>] {
    signal.segments(minimumGap: 7_200, threshold: 0.003)
  }

  /// The audible length of synthesised speech, in the mix's frames.
  static func audibleFrames(_ speech: SynthesizedSpeech, from first: Int = 0) -> Int {
    let samples = speech.samples[first...]
    guard let start = samples.firstIndex(where: { abs(Int($0)) > 98 }),
      let end = samples.lastIndex(where: { abs(Int($0)) > 98 })
    else { return 0 }
    return Int(Double(end + 1 - start) * 48_000 / Double(speech.sampleRate))
  }

  @Test(
    "speech is heard in the voice band, as long as the synthesis converted to the device rate, with words in order"
  )
  func speechIsHeard() throws {
    let text = "Café naïve, hello world."
    let synthesized = try EspeakBackend.shared.synthesize(text, voice: nil, rate: 0.5, pitch: 1)
    var log = Log()
    let capture = try captureDiskOutput { engine, _ in
      let speech = SpeechSynthesizer(engine: engine)
      log = Self.log(speech)
      speech.speak(Utterance(string: text))
      #expect(speech.isSpeaking)
      #expect(
        waitUntil {
          speech.deliverEvents(); return log.finished()
        })
      #expect(!speech.isSpeaking)
    }
    #expect(log.words == ["Café", "naïve", "hello", "world"])
    let signal = capture.left
    let audible = try #require(signal.audibleRange(threshold: 0.003))
    let expected = Self.audibleFrames(synthesized)
    #expect(abs(audible.count - expected) < 480, "\(audible.count) frames heard, \(expected) synthesised")
    // Voice-band energy: far more between 150 Hz and 3.4 kHz than above 6 kHz.
    let voice = stride(from: 150.0, through: 3_400, by: 50).reduce(0) {
      $0 + signal.power(atFrequency: $1, in: audible)
    }
    let hiss = stride(from: 6_000.0, through: 9_250, by: 50).reduce(0) {
      $0 + signal.power(atFrequency: $1, in: audible)
    }
    #expect(voice > 20 * hiss, "voice band \(voice), above 6 kHz \(hiss)")
    #expect(signal.rms(in: audible) > 0.02)
  }

  @Test("pause at a word: silent within 20 ms of the word's end; continue: the next word, nothing lost")
  func pauseAtWord() throws {
    let text = "one two three four five six"
    let synthesized = try EspeakBackend.shared.synthesize(text, voice: nil, rate: 0.5, pitch: 1)
    let two = try #require(synthesized.words.first { text[$0.range] == "two" })
    let three = try #require(synthesized.words.first { text[$0.range] == "three" })
    var log = Log()
    let capture = try captureDiskOutput { engine, output in
      let speech = SpeechSynthesizer(engine: engine)
      log = Self.log(speech)
      speech.speak(Utterance(string: text))
      #expect(
        waitUntil {
          speech.deliverEvents(); return log.words.contains("two")
        })
      #expect(speech.pauseSpeaking(at: .word))
      #expect(
        waitUntil {
          speech.deliverEvents(); return speech.isPaused
        })
      #expect(output.waitForMore(seconds: 0.4))
      #expect(speech.continueSpeaking())
      #expect(
        waitUntil {
          speech.deliverEvents(); return log.finished()
        })
    }
    #expect(log.words == ["one", "two", "three", "four", "five", "six"])
    #expect(log.events.contains { if case .didPause = $0 { true } else { false } })
    #expect(log.events.contains { if case .didContinue = $0 { true } else { false } })
    // Output and synthesis lined up at the speech's first sound.
    let runs = Self.runs(capture.left)
    try #require(runs.count >= 2, "\(runs)")
    let firstSound = try #require(synthesized.samples.firstIndex { abs(Int($0)) > 98 })
    let scale = 48_000 / Double(synthesized.sampleRate)
    let pauseExpected = runs[0].lowerBound + Int(Double(two.endFrame - firstSound) * scale)
    // The pause's gap: the longest silence (the others are the speech's own short pauses).
    let gaps = zip(runs, runs.dropFirst()).map { ($0.upperBound, $1.lowerBound) }
    let gap = try #require(gaps.max { $0.1 - $0.0 < $1.1 - $1.0 })
    #expect(abs(gap.0 - pauseExpected) < 960, "silent at \(gap.0), the word ended at \(pauseExpected)")
    // After the pause: "three" to the end, all of it.
    let after = runs.filter { $0.lowerBound >= gap.1 }
    let heardAfter = after.last!.upperBound - after.first!.lowerBound
    let expectedAfter = Self.audibleFrames(synthesized, from: three.startFrame)
    #expect(abs(heardAfter - expectedAfter) < 960, "\(heardAfter) heard after, \(expectedAfter) synthesised")
  }

  @Test("an immediate pause ramps down and holds; stop cancels the utterance and clears the queue")
  func immediatePauseAndStop() throws {
    var log = Log()
    let capture = try captureDiskOutput { engine, output in
      let speech = SpeechSynthesizer(engine: engine)
      log = Self.log(speech)
      speech.speak(Utterance(string: "This is a rather long sentence that will be cut short."))
      speech.speak(Utterance(string: "Never heard."))
      speech.speak(Utterance(string: "Nor this."))
      #expect(
        waitUntil {
          speech.deliverEvents(); return log.words.count >= 3
        })
      #expect(speech.pauseSpeaking(at: .immediate))
      #expect(speech.isPaused && !speech.pauseSpeaking(at: .immediate))
      #expect(waitUntil { engine.voiceCensus().pausedByGame == 1 })
      #expect(output.waitForMore(seconds: 0.3))
      #expect(speech.stopSpeaking(at: .immediate))
      #expect(
        waitUntil {
          speech.deliverEvents(); return !speech.isSpeaking
        })
      #expect(output.waitForMore(seconds: 0.3))
    }
    let cancelled = log.events.compactMap { if case .didCancel(let u) = $0 { u.string } else { nil } }
    #expect(cancelled == ["This is a rather long sentence that will be cut short."])
    #expect(
      !log.events.contains { if case .didStart(let u) = $0 { u.string != cancelled.first } else { false } })
    // One run of speech, ending in a ramp rather than a cut.
    let runs = Self.runs(capture.left)
    try #require(runs.count >= 1)
    let end = runs.last!.upperBound
    #expect(
      capture.left.peak(in: (end - 24)..<end) < 0.5
        * max(0.01, capture.left.peak(in: (end - 2_400)..<(end - 240))))
  }

  @Test("focus lost during speech: silence; regained: it goes on where it was, nothing skipped or repeated")
  func focusDuringSpeech() throws {
    let text = "Seven eight nine ten eleven twelve."
    let synthesized = try EspeakBackend.shared.synthesize(text, voice: nil, rate: 0.5, pitch: 1)
    let session = AudioSession()
    var log = Log()
    let capture = try captureDiskOutput(session: session) { engine, output in
      let speech = SpeechSynthesizer(engine: engine)
      log = Self.log(speech)
      speech.speak(Utterance(string: text))
      #expect(
        waitUntil {
          speech.deliverEvents(); return log.words.count >= 2
        })
      session.handle(.focusLost)
      #expect(waitUntil { engine.voiceCensus().pausedBySession == 1 })
      #expect(output.waitForMore(seconds: 0.4))
      session.handle(.focusGained)
      #expect(
        waitUntil {
          speech.deliverEvents(); return log.finished()
        })
    }
    #expect(log.words.count == 6)
    // All of the speech is heard, once: the audible frames add up to the synthesis' (give or take
    // the two 5 ms ramps and the pauses inside the speech, which the gap detection ignores).
    let runs = Self.runs(capture.left)
    let gaps = zip(runs, runs.dropFirst()).map { $1.lowerBound - $0.upperBound }
    let longest = try #require(gaps.max())
    #expect(longest > 14_400)  // the focus gap, at least 0.3 s
    let heard = runs.last!.upperBound - runs.first!.lowerBound - longest
    let expected = Self.audibleFrames(synthesized)
    #expect(abs(heard - expected) < 960, "\(heard) heard, \(expected) synthesised")
  }

  @Test("an utterance is captioned with its words while it is heard, and the caption ends after it")
  func speechIsCaptioned() throws {
    var captions: [CaptionEvent] = []
    var finishedAt: Int?
    let capture = try captureDiskOutput { engine, _ in
      let scene = Scene()
      engine.attach(to: scene)
      engine.captions.observe { captions.append($0) }
      let speech = SpeechSynthesizer(engine: engine)
      let log = Self.log(speech)
      speech.speak(Utterance(string: "The bridge\n  is out."))
      #expect(waitUntil(stepping: scene, timeout: 60) { log.finished() })
      finishedAt = captions.count
      #expect(waitUntil(stepping: scene, timeout: 30) { captions.contains { $0.phase == .ended } })
    }
    let began = try #require(captions.first)
    #expect(began.phase == .began && began.text == "The bridge is out." && began.category == .speech)
    #expect(began.direction == nil && began.side == 0 && began.duration == nil)
    // Begun while the words were heard, ended only after the line finished.
    #expect(try #require(finishedAt) >= 1 && captions.last?.phase == .ended)
    #expect(Self.runs(capture.left).count >= 1)
  }
}
