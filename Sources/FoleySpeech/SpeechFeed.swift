import Dispatch
@_spi(FoleyStreams) import FoleyAudio
import FoleyCore
import Synchronization

/// Syntheses queued or running on a synthesizer's queue, so an offline render (`waitUntilIdle`)
/// can wait for them: the speech it mixes then never depends on how fast espeak-ng ran.
final class SynthesisTracker: Sendable {
  let inFlight = Atomic<Int>(0)
  package init() {}
}

/// An utterance synthesised a piece at a time, a bounded amount ahead of what is heard: it starts
/// speaking as soon as its first piece (a sentence or so) is ready, and a text of any length
/// costs only the pieces in flight, not the whole of it (1 MB of text once synthesised for minutes
/// and grew past 82 MB before a word was heard).
///
/// The text is cut at sentence ends (or spaces) into pieces of at most `pieceLength` characters.
/// The backend's queue synthesises the next piece whenever less than `aheadSeconds` of speech is
/// waiting to be read; the stream filler reads the samples through ``SpeechSource``. Word ranges
/// are mapped back into the utterance's own string, and word frames onto one timeline: if the
/// reader ever catches up with the synthesis, it reads silence, and the timeline counts it.
package final class SpeechFeed: Sendable {
  struct State {
    /// Synthesised samples not read yet.
    var pending: [Int16] = []
    var pendingStart = 0
    /// Frames on the timeline so far (samples appended, and silence read during a catch-up).
    var timelineEnd = 0
    /// Frames read so far.
    var readFrames = 0
    var words: [SynthesizedSpeech.Word] = []
    var sampleRate = 0
    var nextPiece = 0
    var isSynthesizing = false
    /// Every piece is made, or one failed: nothing more comes.
    var isComplete = false
    /// Why the first piece failed (then nothing is spoken).
    var failure: SpeechError?
    var isCancelled = false
    /// Frames of silence read while the synthesis was behind.
    var catchUpFrames = 0
    var pendingCount: Int { pending.count - pendingStart }
  }

  let utterance: Utterance
  let pieces: [Range<String.Index>]
  let aheadSeconds: Double
  private let backend: any SpeechBackend
  private let queue: DispatchQueue
  /// Called on the backend's queue after each piece (the synthesizer posts a delivery).
  private let onProgress: @Sendable () -> Void
  private let tracker: SynthesisTracker
  let state = Locked(State())

  init(
    utterance: Utterance, backend: any SpeechBackend, queue: DispatchQueue, pieceLength: Int,
    aheadSeconds: Double, tracker: SynthesisTracker = SynthesisTracker(),
    onProgress: @escaping @Sendable () -> Void
  ) {
    self.tracker = tracker
    self.utterance = utterance
    self.pieces = Self.pieces(of: utterance.string, length: pieceLength)
    self.aheadSeconds = aheadSeconds
    self.backend = backend
    self.queue = queue
    self.onProgress = onProgress
  }

  /// Whether the first piece is made (or failed): the utterance can start (or fail).
  var isReady: Bool { state.withLock { $0.sampleRate > 0 || $0.failure != nil || $0.isComplete } }

  /// Blocks until the first piece is made (or failed): for the embedded mixer's deterministic runs.
  func waitUntilReady() {
    synthesize(while: { !isReady })
  }

  /// Makes pieces, waiting for each, for as long as `behind` holds.
  private func synthesize(while behind: () -> Bool) {
    while behind() {
      synthesizeIfNeeded()
      queue.sync {}  // the piece being made (the queue is serial) is done
    }
  }

  /// The words made so far, on the timeline.
  var words: [SynthesizedSpeech.Word] { state.withLock { $0.words } }

  var sampleRate: Int { state.withLock { $0.sampleRate } }

  /// Starts or continues the synthesis if less than `aheadSeconds` of speech waits to be read.
  func synthesizeIfNeeded() {
    let start = state.withLock { state -> Bool in
      guard !state.isSynthesizing, !state.isComplete, !state.isCancelled else { return false }
      let ahead = state.sampleRate == 0 ? 0 : Double(state.pendingCount) / Double(state.sampleRate)
      guard ahead < aheadSeconds else { return false }
      state.isSynthesizing = true
      return true
    }
    guard start else { return }
    tracker.inFlight.add(1, ordering: .relaxed)
    queue.async { self.synthesizeNext() }
  }

  /// Nothing more is to be made (the utterance was stopped).
  func cancel() {
    state.withLock { $0.isCancelled = true }
  }

  private func synthesizeNext() {
    // Counted down last: a next piece this one starts is counted before this one stops counting.
    defer { tracker.inFlight.subtract(1, ordering: .releasing) }
    let index = state.withLock { $0.nextPiece }
    guard index < pieces.count else {
      state.withLock {
        $0.isComplete = true
        $0.isSynthesizing = false
      }
      onProgress()
      return
    }
    let text = utterance.string
    let range = pieces[index]
    let piece = String(text[range])
    let result = Result { () throws(SpeechError) in
      try backend.synthesize(
        piece, voice: utterance.voice, rate: utterance.rate, pitch: utterance.pitchMultiplier)
    }
    state.withLock { state in
      state.isSynthesizing = false
      state.nextPiece = index + 1
      switch result {
      case .failure(let error):
        if index == 0 { state.failure = error }
        state.isComplete = true
      case .success(let speech):
        if state.sampleRate == 0 { state.sampleRate = speech.sampleRate }
        let offset = state.timelineEnd
        for word in speech.words {
          // The piece's own indices, moved into the utterance's string by their UTF-8 offsets.
          let lower = piece.utf8.distance(from: piece.startIndex, to: word.range.lowerBound)
          let upper = piece.utf8.distance(from: piece.startIndex, to: word.range.upperBound)
          let base = range.lowerBound
          state.words.append(
            SynthesizedSpeech.Word(
              range: text.utf8.index(base, offsetBy: lower)..<text.utf8.index(base, offsetBy: upper),
              startFrame: offset + word.startFrame, endFrame: offset + word.endFrame))
        }
        // A piece at another rate (a backend that changed its mind) is not resampled: it is the
        // backend's own rate for every piece of one voice.
        state.pending += speech.samples
        state.timelineEnd += speech.samples.count
        if state.nextPiece >= pieces.count { state.isComplete = true }
      }
    }
    onProgress()
    synthesizeIfNeeded()
  }

  /// Reads up to `count` frames (as floats) into `buffer` from the timeline; returns the frames
  /// read and whether the speech has ended (everything read, nothing more to come).
  /// - Parameter waiting: wait for the synthesis rather than read silence when it is behind (an
  ///   offline render: the speech mixed must not depend on how fast espeak-ng ran; a piece made
  ///   after the renderer's wait for background work once came out as silence under load).
  func read(
    into buffer: UnsafeMutablePointer<Float>, count: Int, waiting: Bool = false
  ) -> (
    frames: Int, ended: Bool
  ) {
    if waiting {
      synthesize(while: { state.withLock { $0.pendingCount == 0 && !$0.isComplete && !$0.isCancelled } })
    }
    let outcome = state.withLock { state -> (Int, Bool) in
      let available = state.pendingCount
      if available == 0 {
        if state.isComplete || state.isCancelled { return (0, true) }
        // The synthesis is behind: silence, counted on the timeline.
        let frames = min(count, state.sampleRate / 50)
        for index in 0..<frames { buffer[index] = 0 }
        state.timelineEnd += frames
        state.readFrames += frames
        state.catchUpFrames += frames
        return (frames, false)
      }
      let frames = min(count, available)
      for index in 0..<frames { buffer[index] = Float(state.pending[state.pendingStart + index]) / 32_768 }
      state.pendingStart += frames
      state.readFrames += frames
      if state.pendingStart > 1 << 16 {
        state.pending.removeFirst(state.pendingStart)
        state.pendingStart = 0
      }
      return (frames, false)
    }
    synthesizeIfNeeded()
    return outcome
  }

  /// `text` cut into pieces of at most `length` characters: at the last sentence end in each
  /// stretch, else the last space, else anywhere.
  package static func pieces(of text: String, length: Int) -> [Range<String.Index>] {
    var pieces: [Range<String.Index>] = []
    var start = text.startIndex
    while start < text.endIndex {
      let limit = text.index(start, offsetBy: max(1, length), limitedBy: text.endIndex) ?? text.endIndex
      guard limit < text.endIndex else {
        pieces.append(start..<text.endIndex)
        break
      }
      let stretch = text[start..<limit]
      let sentenceEnd = stretch.lastIndex { ".!?;\n".contains($0) }.map { text.index(after: $0) }
      let space = stretch.lastIndex { $0 == " " }.map { text.index(after: $0) }
      var end = sentenceEnd ?? space ?? limit
      if end <= start { end = limit }
      pieces.append(start..<end)
      start = end
    }
    return pieces
  }
}
