/// A speech synthesiser Foley can speak through: text in, mono samples and word timings out.
/// ``EspeakBackend`` is the one Foley ships; another engine fits behind the same few calls.
///
/// ```swift
/// struct Silent: SpeechBackend {
///   func voices() -> [SpeechVoice] { [] }
///   func synthesize(_ text: String, voice: SpeechVoice?, rate: Double, pitch: Double) throws(SpeechError)
///     -> SynthesizedSpeech { SynthesizedSpeech(text: text, samples: [], sampleRate: 22_050, words: []) }
/// }
/// ```
public protocol SpeechBackend: Sendable {
  /// The voices it can speak with.
  func voices() -> [SpeechVoice]
  /// Speaks `text` into samples. `rate` is 0...1 (0.5 normal), `pitch` a multiplier (1 normal).
  func synthesize(
    _ text: String, voice: SpeechVoice?, rate: Double, pitch: Double
  ) throws(SpeechError)
    -> SynthesizedSpeech
}

/// A voice a backend speaks with.
public struct SpeechVoice: Sendable, Hashable, CustomStringConvertible {
  /// What the backend knows the voice by (espeak-ng: the voice file, such as `gmw/en-GB-x-rp`).
  public var identifier: String
  /// A name to show.
  public var name: String
  /// The language, as a BCP 47 tag (`en-gb`, `fr-fr`).
  public var language: String

  public init(identifier: String, name: String, language: String) {
    self.identifier = identifier
    self.name = name
    self.language = language
  }

  public var description: String { "\(name) (\(language))" }
}

/// Speech as samples: mono, 16-bit, at the backend's rate, with where each word starts and ends.
public struct SynthesizedSpeech: Sendable {
  /// One spoken word: the part of the text it says and the samples it takes.
  public struct Word: Sendable, Hashable {
    /// The word in the text that was spoken.
    public var range: Range<String.Index>
    /// Its first sample.
    public var startFrame: Int
    /// One past its last audible sample (the silence after it is not part of it).
    public var endFrame: Int

    public init(range: Range<String.Index>, startFrame: Int, endFrame: Int) {
      self.range = range
      self.startFrame = startFrame
      self.endFrame = endFrame
    }
  }

  public var text: String
  public var samples: [Int16]
  public var sampleRate: Int
  public var words: [Word]

  public init(text: String, samples: [Int16], sampleRate: Int, words: [Word]) {
    self.text = text
    self.samples = samples
    self.sampleRate = sampleRate
    self.words = words
  }

  /// The length in seconds.
  public var duration: Double { Double(samples.count) / Double(sampleRate) }
}

/// Why speech could not be made.
public struct SpeechError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: Sendable, Hashable {
    /// The synthesiser cannot start (its data is missing, or it is not installed).
    case unavailable
    /// The voice asked for does not exist.
    case unknownVoice
    /// The synthesiser failed on this text.
    case synthesisFailed
  }

  public var code: Code
  public var message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String {
    switch code {
    case .unavailable: "speech is unavailable: \(message)"
    case .unknownVoice: "no such voice: \(message)"
    case .synthesisFailed: "speech synthesis failed: \(message)"
    }
  }
}
