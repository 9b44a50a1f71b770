extension AudioEngine {
  /// Plays `source` as a streamed voice of `category` (for FoleySpeech and other generators).
  package func playStream(
    _ source: any PCMSource, name: String, category: SoundCategory, volume: Double
  )
    -> PCMStream
  {
    let stream = streamFiller.makeStream(source: source, name: name, category: category, volume: volume)
    streamFiller.start(stream)
    return stream
  }
}
