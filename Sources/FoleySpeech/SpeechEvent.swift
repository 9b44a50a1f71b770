// What speaking did and how to hear of it: the events, and where speaking stops.

/// Where speaking stops when it is paused or stopped.
public enum SpeechBoundary: Sendable, Hashable {
  /// At once, with a 5 ms ramp.
  case immediate
  /// At the end of the word being spoken (its last sound, before the pause that follows it).
  case word
}

/// What speaking did, delivered on the game thread: AVSpeechSynthesizerDelegate's moments.
public enum SpeechEvent: Sendable, Hashable {
  case didStart(Utterance)
  /// A word is about to be heard: its range in the utterance's string (for subtitles).
  case willSpeakRange(Range<String.Index>, Utterance)
  case didPause(Utterance)
  case didContinue(Utterance)
  case didFinish(Utterance)
  case didCancel(Utterance)
  /// The utterance could not be spoken; the next one goes on.
  case didFail(Utterance, SpeechError)
}
