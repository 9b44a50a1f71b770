// What the tests read and a game has no use for: package members, out of the speech's production
// files.
extension SpeechSynthesizer {
  /// How far the synthesis of the utterance being spoken has got: pieces made of all its pieces,
  /// and seconds of speech made but not yet read. For tests and tools.
  package var synthesisProgress: (piecesMade: Int, pieces: Int, secondsAhead: Double, isSynthesizing: Bool)? {
    guard let feed = speaking?.feed else { return nil }
    return feed.state.withLock { state in
      (
        state.nextPiece, feed.pieces.count,
        state.sampleRate == 0 ? 0 : Double(state.timelineEnd - state.readFrames) / Double(state.sampleRate),
        state.isSynthesizing
      )
    }
  }
}
