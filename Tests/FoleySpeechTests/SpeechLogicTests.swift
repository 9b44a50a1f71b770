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
