@_spi(FoleyStreams) import FoleyAudio

extension MusicPlayer {
  /// Lets `stream` go: fades it out along `tween` (from the moment `replacement`, if any, starts,
  /// so a crossfade's halves are heard together; else from the tween's start) and lets it end,
  /// or stops it now.
  func letGo(_ stream: MusicStream, tween: Tween, replacedBy replacement: MusicStream? = nil) {
    let fadeOut = min(tween.usableDuration, 60)
    stream.effect.setFadeEasing(tween.easing)
    if current === stream { collectNews(of: stream) }
    stream.isLetGo.store(true, ordering: .releasing)
    // A stream dropped before it started passes on the fades it was to start.
    for (effect, frames) in stream.takeFadeOutsOnStart() {
      if let replacement {
        replacement.fadeOutOnStart(effect, frames: frames)
      } else {
        effect.requestFade(.fadeOut, frames: frames)
      }
    }
    let frames = Int(fadeOut * Double(sampleRate))
    if fadeOut > 0, stream.voice.state == .playing {
      if let replacement {
        replacement.fadeOutOnStart(stream.effect, frames: frames)
      } else {
        stream.effect.requestFade(
          .fadeOut, frames: frames, atMixFrame: tween.startFrame == .max ? nil : tween.startFrame)
      }
      if !outgoing.contains(where: { $0 === stream }) { outgoing.append(stream) }
    } else {
      stream.isCancelled.store(true, ordering: .releasing)
      stream.voice.stop()
      if !outgoing.contains(where: { $0 === stream }) { outgoing.append(stream) }
    }
    if current === stream { current = nil }
  }
}
