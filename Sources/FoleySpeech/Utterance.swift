public import Foundation

/// Something to say, and how: AVSpeechUtterance's words.
///
/// ```swift
/// var line = Utterance(string: "Welcome back, captain.")
/// line.rate = 0.45                 // 0...1, 0.5 is normal
/// line.pitchMultiplier = 1.2       // 0.5...2
/// line.voice = SpeechVoice.voice(language: "en-gb")
/// line.postUtteranceDelay = 0.3
/// speech.speak(line)
/// ```
public struct Utterance: Sendable, Hashable {
  public var string: String
  /// Speaking rate in 0...1; 0.5 is normal (espeak-ng: 80, 175 and 450 words a minute at 0, 0.5, 1).
  public var rate: Double = 0.5
  /// 0.5...2; 1 is the voice's own pitch.
  public var pitchMultiplier: Double = 1
  /// 0...1, on top of the speech bus's volume.
  public var volume: Double = 1
  /// The voice; nil speaks with the backend's default (espeak-ng: English).
  public var voice: SpeechVoice?
  /// Seconds of silence before the utterance starts (held within 0…3,600; NaN is none).
  public var preUtteranceDelay: TimeInterval = 0
  /// Seconds of silence after it, before the next one (held within 0…3,600; NaN is none).
  public var postUtteranceDelay: TimeInterval = 0
  /// Tells this utterance apart from an equal one spoken again.
  public let id = UUID()

  public init(string: String) {
    self.string = string
  }
}

extension SpeechVoice {
  /// The voices the shared espeak-ng backend has.
  public static func voices() -> [SpeechVoice] {
    EspeakBackend.shared.voices()
  }

  /// The first espeak-ng voice for `language` (`en-gb`, or just `fr`), or one named so.
  public static func voice(language: String) -> SpeechVoice? {
    let wanted = language.lowercased()
    let all = voices()
    return all.first { $0.language.lowercased() == wanted }
      ?? all.first { $0.language.lowercased().hasPrefix(wanted + "-") || $0.name.lowercased() == wanted }
  }
}
