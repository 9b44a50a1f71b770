internal import CFoleyEspeak
import Dispatch
import FoleyCore
import Foundation

/// Speech by espeak-ng 1.51 (Debian's `libespeak-ng1`, GPL-3.0-or-later): the voices of its data
/// folder, 22,050 Hz mono.
///
/// espeak-ng keeps global state and is not reentrant, so every call goes through one serial
/// queue for the whole process, and it is initialised once, on first use. Synthesis runs in its
/// synchronous mode, which is fast (about 10 ms for 3.5 s of speech on the CI machine).
///
/// ```swift
/// let speech = try EspeakBackend.shared.synthesize("Hello there.", voice: nil, rate: 0.5, pitch: 1)
/// print(speech.duration, speech.words.map { speech.text[$0.range] })
/// ```
public final class EspeakBackend: SpeechBackend {
  /// The one espeak-ng of this process.
  public static let shared = EspeakBackend()

  private let queue = DispatchQueue(label: "foley.espeak")
  // Touched only on `queue`.
  nonisolated(unsafe) private var sampleRate: Int?
  nonisolated(unsafe) private var startError: String?

  private init() {}

  public func voices() -> [SpeechVoice] {
    queue.sync {
      guard startIfNeeded() != nil, let list = espeak_ListVoices(nil) else { return [] }
      var voices: [SpeechVoice] = []
      var index = 0
      while let entry = list[index] {
        let voice = entry.pointee
        let identifier = voice.identifier.map { String(cString: $0) } ?? ""
        let name = voice.name.map { String(cString: $0) } ?? identifier
        // `languages`: a priority byte, then a NUL-terminated name, repeated; the first is the main one.
        let language = voice.languages.map { String(cString: $0 + 1) } ?? ""
        voices.append(SpeechVoice(identifier: identifier, name: name, language: language))
        index += 1
      }
      return voices
    }
  }

  /// Why no file can be opened now, when the process or the system is out of descriptors; nil
  /// otherwise.
  private static func descriptorsExhausted() -> String? {
    let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
    guard probe < 0 else {
      _ = SystemCall.close(probe)
      return nil
    }
    let reason = errno
    return reason == EMFILE || reason == ENFILE ? SystemCall.describe(reason) : nil
  }

  public func synthesize(
    _ text: String, voice: SpeechVoice?, rate: Double, pitch: Double
  ) throws(SpeechError)
    -> SynthesizedSpeech
  {
    let result: Result<SynthesizedSpeech, SpeechError> = queue.sync {
      guard let sampleRate = startIfNeeded() else {
        return .failure(SpeechError(.unavailable, startError ?? "espeak-ng did not start"))
      }
      let name = voice?.identifier ?? "en"
      guard espeak_SetVoiceByName(name) == EE_OK else {
        // espeak-ng says only that the voice did not load: a process out of descriptors cannot
        // open the voice's file, which is no unknown voice. Asked of the system directly.
        if let exhausted = Self.descriptorsExhausted() {
          return .failure(SpeechError(.unavailable, "voice \(name) could not be opened: \(exhausted)"))
        }
        return .failure(SpeechError(.unknownVoice, name))
      }
      espeak_SetParameter(espeakRATE, Int32(Self.wordsPerMinute(rate)), 0)
      espeak_SetParameter(espeakPITCH, Int32(Self.pitchValue(pitch)), 0)
      let collector = Collector()
      Collector.current = collector
      defer { Collector.current = nil }
      let status = text.withCString { bytes in
        espeak_Synth(bytes, strlen(bytes) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
      }
      guard status == EE_OK else {
        return .failure(SpeechError(.synthesisFailed, "espeak_Synth returned \(status)"))
      }
      return .success(collector.speech(of: text, sampleRate: sampleRate))
    }
    return try result.get()
  }

  /// Whether a thread with the default attributes (espeak-ng's) can be started now.
  static func canStartThread() -> Bool {
    var thread = pthread_t()
    guard pthread_create(&thread, nil, { _ in nil }, nil) == 0 else { return false }
    pthread_join(thread, nil)
    return true
  }

  /// espeak-ng's words per minute for a rate in 0...1: 80 at 0, its normal 175 at 0.5, 450 at 1.
  static func wordsPerMinute(_ rate: Double) -> Int {
    let clamped = min(1, max(0, rate.isFinite ? rate : 0.5))
    let value = clamped <= 0.5 ? 80 + (175 - 80) * clamped / 0.5 : 175 + (450 - 175) * (clamped - 0.5) / 0.5
    return Int(value.rounded())
  }

  /// espeak-ng's pitch (0...100, 50 normal) for a multiplier in 0.5...2.
  static func pitchValue(_ multiplier: Double) -> Int {
    let clamped = min(2, max(0.5, multiplier.isFinite ? multiplier : 1))
    return Int(min(100, 50 * clamped).rounded())
  }

  private func startIfNeeded() -> Int? {
    if let sampleRate { return sampleRate }
    guard startError == nil else { return nil }
    // espeak-ng starts a thread when it initialises and aborts the process when it cannot (an
    // assertion in its fifo.c), as under a tight address-space limit. A thread started and
    // joined here first says whether one can be; glibc keeps the joined thread's stack for the
    // next thread, espeak-ng's.
    guard Self.canStartThread() else {
      startError = "cannot start espeak-ng: no thread can be created (memory or thread limits)"
      return nil
    }
    // espeakINITIALIZE_DONT_EXIT: a missing data folder must not end the game.
    let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
    guard rate > 0 else {
      startError = "espeak_Initialize failed (is espeak-ng-data installed?)"
      return nil
    }
    espeak_SetSynthCallback(synthCallback)
    sampleRate = Int(rate)
    return sampleRate
  }
}

/// What one synthesis produced, collected by the callback (on the espeak queue).
private final class Collector {
  nonisolated(unsafe) static var current: Collector?
  var samples: [Int16] = []
  /// Word starts: the 1-based character (Unicode scalar) position, the length, the sample.
  /// (The length is not used: the word is taken from the text.)
  var words: [(position: Int, length: Int, sample: Int)] = []

  func speech(of text: String, sampleRate: Int) -> SynthesizedSpeech {
    let scalars = text.unicodeScalars
    let tokens = Self.wordTokens(in: text)
    var spoken: [SynthesizedSpeech.Word] = []
    var previousEnd = text.startIndex
    for (index, word) in words.enumerated() {
      guard word.position >= 1, word.position - 1 < scalars.count else { continue }
      let reported = scalars.index(scalars.startIndex, offsetBy: word.position - 1)
      // espeak-ng's positions are right for plain words but not always for phrases it knows as
      // one ("déjà vu" reports "vu" inside "déjà"), so each is snapped to the text's word that
      // holds it, and never to one already reported.
      guard
        let token = tokens.first(where: { $0.contains(reported) && $0.lowerBound >= previousEnd })
          ?? tokens.first(where: { $0.lowerBound >= max(reported, previousEnd) })
      else { continue }
      previousEnd = token.upperBound
      let next = index + 1 < words.count ? words[index + 1].sample : samples.count
      spoken.append(
        SynthesizedSpeech.Word(
          range: token, startFrame: min(word.sample, samples.count),
          endFrame: audibleEnd(from: word.sample, before: next)))
    }
    return SynthesizedSpeech(text: text, samples: samples, sampleRate: sampleRate, words: spoken)
  }

  /// The text's words: runs of letters, digits, marks and apostrophes.
  static func wordTokens(in text: String) -> [Range<String.Index>] {
    var tokens: [Range<String.Index>] = []
    var start: String.Index?
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      let isWordCharacter = character.isLetter || character.isNumber || character == "'" || character == "’"
      if isWordCharacter, start == nil { start = index }
      if !isWordCharacter, let begun = start {
        tokens.append(begun..<index)
        start = nil
      }
      index = text.index(after: index)
    }
    if let begun = start { tokens.append(begun..<text.endIndex) }
    return tokens
  }

  /// One past the last sample louder than 1% of full scale before `limit` (the word's sound,
  /// without the pause that follows it).
  private func audibleEnd(from start: Int, before limit: Int) -> Int {
    var end = min(limit, samples.count)
    while end > start, abs(Int(samples[end - 1])) < 328 { end -= 1 }
    return max(end, min(start, samples.count))
  }
}

private let synthCallback:
  @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) ->
    Int32 = { wav, count, events in
      guard let collector = Collector.current else { return 1 }
      if var event = events {
        while event.pointee.type != espeakEVENT_LIST_TERMINATED {
          if event.pointee.type == espeakEVENT_WORD {
            collector.words.append(
              (Int(event.pointee.text_position), Int(event.pointee.length), Int(event.pointee.sample)))
          }
          event += 1
        }
      }
      if let wav, count > 0 {
        collector.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count)))
      }
      return 0
    }
