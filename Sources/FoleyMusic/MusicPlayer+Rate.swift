@_spi(FoleyStreams) public import FoleyAudio

extension MusicPlayer {
  /// The rate the music plays at: 1 as recorded, 1.25 a quarter faster and higher (pitch and
  /// tempo together, through the same resampler as any voice). Every track plays at it, the one
  /// heard now and those to come.
  ///
  /// ```swift
  /// music.setPlaybackRate(1.2, tween: 3)    // the chase speeds the music up
  /// ```
  public var playbackRate: Double { playQueue.settings.rate }

  /// Moves the music's playback rate to `rate` (0.25…4, clamped; NaN changes nothing) along
  /// `tween` (at once unless given).
  public func setPlaybackRate(_ rate: Double, tween: Tween = .immediate) {
    guard !rate.isNaN else { return }
    let value = rate.clamped(to: VoiceShaping.rates, or: 1)
    playQueue.update { $0.rate = value }
    for stream in liveStreams { stream.voice.setPlaybackRate(value, tween: tween) }
  }
}
