@_spi(FoleyStreams) import FoleyAudio
import FoleyCore

/// A music player's queue, shared by the game thread, which edits it, and the stream filler,
/// which takes the next track the moment the current one's end is decoded. So a queue plays on
/// gaplessly (or crossfades) whether or not the game thread is looking.
///
/// Positions index the play order (the queue's own order, or a shuffled one). Edits keep the
/// positions already played where they were, so a position a stream holds stays meaningful.
package final class MusicQueue: Sendable {
  package struct Settings: Sendable {
    package var repeatMode = MusicPlayer.RepeatMode.off
    /// Seconds the next track overlaps the end of the current one (0: gapless).
    package var crossfade = 0.0
    package var volume = 1.0
    /// The playback rate every track plays at (1: as recorded).
    package var rate = 1.0
  }

  private struct State {
    package var tracks: [Track] = []
    /// Indices into `tracks`, in play order.
    package var order: [Int] = []
    package var isShuffled = false
    package var settings = Settings()
  }

  private let state = Locked(State())

  package var tracks: [Track] { state.withLock { $0.tracks } }
  package var settings: Settings { state.withLock { $0.settings } }

  package func update(_ change: (inout Settings) -> Void) {
    state.withLock { change(&$0.settings) }
  }

  /// The track at `position` in play order.
  package func track(at position: Int) -> Track? {
    state.withLock { state in
      state.order.indices.contains(position) ? state.tracks[state.order[position]] : nil
    }
  }

  /// The index in ``tracks`` of the track at `position` in play order.
  package func index(at position: Int) -> Int? {
    state.withLock { $0.order.indices.contains(position) ? $0.order[position] : nil }
  }

  /// Replaces the tracks; play order starts again, from `first` (shuffled after it if
  /// shuffling). Returns the play-order position of `first`.
  @discardableResult
  func replace(with tracks: [Track], first: Int = 0) -> Int {
    state.withLock { state in
      state.tracks = tracks
      state.order = Array(tracks.indices)
      guard state.isShuffled, tracks.indices.contains(first) else {
        return min(first, max(0, tracks.count - 1))
      }
      state.order.remove(at: first)
      state.order.shuffle()
      state.order.insert(first, at: 0)
      return 0
    }
  }

  /// Adds tracks after the last one (at random places after `position` when shuffling).
  package func append(_ tracks: [Track], after position: Int?) {
    state.withLock { state in
      let first = state.tracks.count
      state.tracks += tracks
      for index in first..<state.tracks.count {
        if state.isShuffled {
          let earliest = min(state.order.count, (position ?? -1) + 1)
          state.order.insert(index, at: Int.random(in: earliest...state.order.count))
        } else {
          state.order.append(index)
        }
      }
    }
  }

  /// Turns shuffling on or off; what has been played up to `position` keeps its place.
  func setShuffled(_ shuffled: Bool, keepingThrough position: Int?) {
    state.withLock { state in
      guard state.isShuffled != shuffled else { return }
      state.isShuffled = shuffled
      let kept = position.map { min($0 + 1, state.order.count) } ?? 0
      var rest = Array(state.order[kept...])
      if shuffled { rest.shuffle() } else { rest.sort() }
      state.order = Array(state.order[..<kept]) + rest
    }
  }

  package var isShuffled: Bool { state.withLock { $0.isShuffled } }

  /// What plays after `position` (nil: the first): the same track again in ``MusicPlayer/RepeatMode/one``
  /// unless `skipping`, the next, or the first again in ``MusicPlayer/RepeatMode/all``.
  package func entry(after position: Int?, skipping: Bool = false) -> (track: Track, position: Int)? {
    state.withLock { state in
      guard !state.order.isEmpty else { return nil }
      guard let position, state.order.indices.contains(position) else {
        return (state.tracks[state.order[0]], 0)
      }
      if state.settings.repeatMode == .one, !skipping {
        return (state.tracks[state.order[position]], position)
      }
      if position + 1 < state.order.count { return (state.tracks[state.order[position + 1]], position + 1) }
      if state.settings.repeatMode != .off { return (state.tracks[state.order[0]], 0) }
      return nil
    }
  }

  /// What played before `position`: the previous track, the last one again in
  /// ``MusicPlayer/RepeatMode/all``, else nil.
  package func entry(before position: Int) -> (track: Track, position: Int)? {
    state.withLock { state in
      guard !state.order.isEmpty else { return nil }
      if position - 1 >= 0, position - 1 < state.order.count {
        return (state.tracks[state.order[position - 1]], position - 1)
      }
      if state.settings.repeatMode != .off {
        return (state.tracks[state.order[state.order.count - 1]], state.order.count - 1)
      }
      return nil
    }
  }

  package var count: Int { state.withLock { $0.tracks.count } }
}
