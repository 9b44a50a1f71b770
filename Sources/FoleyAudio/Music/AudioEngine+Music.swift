extension AudioEngine {
  /// The engine's own ``MusicPlayer``, made on first use; the music actions and an attached
  /// scene's event delivery use it. Make more players with ``MusicPlayer/init(engine:category:)``
  /// for music in other categories.
  ///
  /// ```swift
  /// engine.music.play(Track(named: "Music/theme.ogg", loopCount: -1))
  /// ```
  @MainActor public var music: MusicPlayer {
    defaultMusicPlayer.withLock { player in
      if let player { return player }
      let made = MusicPlayer(engine: self)
      player = made
      return made
    }
  }

  /// The engine's player if one was made (scenes deliver its events without making one).
  @MainActor var musicIfMade: MusicPlayer? { defaultMusicPlayer.withLock { $0 } }
}

extension AudioEngine {
  /// CPU seconds the music thread has spent decoding and converting, for the benchmark.
  package var musicDecodeCPUSeconds: Double {
    Double(streamFiller.cpuNanoseconds.load(ordering: .relaxed)) / 1e9
  }
}

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
