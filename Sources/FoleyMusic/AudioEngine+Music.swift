@_spi(FoleyStreams) public import FoleyAudio
package import FoleyCore

extension AudioEngine {
  /// The engine's own ``MusicPlayer``, made on first use; the music actions use it. Make more
  /// players with ``MusicPlayer/init(engine:category:)`` for music in other categories.
  ///
  /// ```swift
  /// engine.music.play(Track(named: "Music/theme.ogg", loopCount: -1))
  /// ```
  @MainActor public var music: MusicPlayer {
    musicState.player.withLock { player in
      if let player { return player }
      let made = MusicPlayer(engine: self)
      player = made
      return made
    }
  }

  /// What FoleyMusic keeps for this engine.
  package var musicState: EngineMusic {
    feature {
      EngineMusic(
        checker: TrackChecker(
          isolated: core.configuration.isolatesDecoders, timeout: core.configuration.decodeTimeout * 6))
    }
  }
}

/// What FoleyMusic keeps per engine: the check every player's tracks pass (each file checked once
/// whichever player plays it) and the engine's own player.
package final class EngineMusic: Sendable {
  package let checker: TrackChecker
  package let player = Locked<MusicPlayer?>(nil)

  package init(checker: TrackChecker) {
    self.checker = checker
  }
}
