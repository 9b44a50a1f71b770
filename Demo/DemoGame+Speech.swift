import Foley
import FoleySpeech
import Foundation

/// The demo's speech: T reads the audio state aloud, the word being said shows as a subtitle, and
/// the wind ducks under it (the music ducks by the speech's own level: see the sound map's mix).
extension DemoGame {
  /// Speech through the same engine: the music and the wind duck while it talks.
  func startSpeech() {
    let speech = SpeechSynthesizer.shared(for: engine)
    // The wind ducks by the speech's flag; the music by the speech's level (the map's mix).
    speech.ducking = SpeechDucking(categories: [.ambience], decibels: -10)
    // The HUD shows the line word by word as a subtitle: not again in the captions.
    speech.showsCaptions = false
    speech.observe { [weak self] event in
      guard let self else { return }
      switch event {
      case .didStart(let utterance):
        self.subtitle = (utterance.string, nil)
        self.report.speech.utterances += 1
      case .willSpeakRange(let range, let utterance):
        self.subtitle = (utterance.string, range)
        self.report.speech.words.append(String(utterance.string[range]))
      case .didFinish, .didCancel: self.subtitle = nil
      case .didFail(_, let error):
        self.subtitle = nil
        self.report.errors.append("speech: \(error)")
      default: break
      }
    }
    self.speech = speech
  }

  /// Says `line` now, cutting what was being said at its next word (the game's announcements).
  func announce(_ line: String) {
    guard let speech else { return }
    speech.stopSpeaking(at: .word)
    speech.speak(Utterance(string: line))
  }

  /// Says what the HUD shows: the session, the voices (the same count as the HUD's), the music
  /// and the round.
  func speakStatus() {
    guard speech != nil else { return }
    let census = engine.voiceCensus()
    var line = session.isActive ? "Audio is active." : "Audio is paused."
    line += " \(census.audible) voices playing."
    if let title = engine.music.nowPlaying?.title {
      line += " Music: \(title)."
    } else if !engine.music.queue.isEmpty {
      // Asked for but not heard yet (its file is still being checked, or the device is slow).
      line += " Music starting."
    }
    line += " \(chimesFoundSentence) Score \(round.score)."
    announce(line)
  }
}
