import ArgumentParser
import Foley
import FoleySpeech
import Foundation

/// `foley-demo say TEXT [--rate R] [--pitch P] [--voice V] [--list-voices]`: speaks through the
/// engine and prints each word as it is heard, with its time.
struct SayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "say",
    abstract: "Speak text through Foley's engine (espeak-ng), printing each word as it is heard.",
    discussion: "espeak-ng is GPL-3.0-or-later; it is linked by FoleySpeech only.")

  @Argument(help: "What to say.")
  var text: [String] = []

  @Option(help: "Speaking rate, 0...1 (0.5 normal).")
  var rate: Double = 0.5

  @Option(help: "Pitch multiplier, 0.5...2.")
  var pitch: Double = 1

  @Option(help: "A voice: a language (en-gb, fr) or a voice name from --list-voices.")
  var voice: String?

  @Flag(help: "List the voices and exit.")
  var listVoices = false

  func validate() throws {
    guard listVoices || !text.isEmpty else { throw ValidationError("give the text to say") }
    guard rate.isFinite, (0...1).contains(rate) else { throw ValidationError("--rate must be in 0...1") }
    guard pitch.isFinite, (0.5...2).contains(pitch) else {
      throw ValidationError("--pitch must be in 0.5...2")
    }
  }

  @MainActor
  func run() async throws {
    if listVoices {
      for voice in SpeechVoice.voices() { say("\(voice.language)\t\(voice.name)\t\(voice.identifier)") }
      return
    }
    var utterance = Utterance(string: text.joined(separator: " "))
    utterance.rate = rate
    utterance.pitchMultiplier = pitch
    if let voice {
      guard let found = SpeechVoice.voice(language: voice) else {
        FileHandle.standardError.write(Data("foley-demo: no voice '\(voice)' (see --list-voices)\n".utf8))
        throw ExitCode(2)
      }
      utterance.voice = found
    }
    let engine = try AudioEngine.forTool("foley.say")
    defer { engine.close() }
    let speech = SpeechSynthesizer(engine: engine)
    var done = false
    var failed = false
    var started = ContinuousClock.now
    speech.observe { event in
      switch event {
      case .didStart: started = ContinuousClock.now
      case .willSpeakRange(let range, let spoken):
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        say(String(format: "%6.2f s  ", seconds) + spoken.string[range])
      case .didFinish: done = true
      case .didFail(_, let error):
        FileHandle.standardError.write(Data("foley-demo: \(error)\n".utf8))
        failed = true
        done = true
      default: break
      }
    }
    speech.speak(utterance)
    while !done {
      try await Task.sleep(for: .milliseconds(5))
      engine.session.mailbox.drain()  // this loop is the game thread: it drains the mailbox
    }
    await engine.waitUntilSilent(upTo: 2)
    if failed { throw ExitCode(1) }
  }
}
