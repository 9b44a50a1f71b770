import Foundation

/// The music player at one moment, for an inspector (``MusicPlayer/inspection``).
///
/// ```swift
/// if let music = engine.music.inspection.track {
///   print(music, engine.music.inspection.musicalTime ?? "-")
/// }
/// ```
public struct MusicSnapshot: Sendable, Hashable, Codable {
  /// The heard track's title, nil when nothing plays.
  public var track: String?
  /// Where the heard track is, and its length, in seconds.
  public var time: Double?
  public var duration: Double?
  /// Bar and beat of the frame being heard, as `"bar:beat"`, when the track has
  /// a tempo map.
  public var musicalTime: String?
  public var isPlaying: Bool
  public var volume: Double
  public var rate: Double
  /// Stems playing together (0: none, 1: a plain track).
  public var stems: Int
  /// Tracks waiting in the queue after the current one.
  public var queued: Int
  /// Frames a stream could not supply in time, since the engine opened.
  public var underrunFrames: Int
}

extension MusicPlayer {
  /// What the player is doing now.
  public var inspection: MusicSnapshot {
    let playing = nowPlaying
    let musical = musicalTime.map { "\($0.bar):\($0.beat)" }
    return MusicSnapshot(
      track: playing?.title, time: currentTime, duration: playing?.duration, musicalTime: musical,
      isPlaying: isPlaying, volume: volume, rate: playbackRate, stems: stemCount,
      queued: max(0, queue.count - (currentIndex ?? -1) - 1), underrunFrames: underrunFrames)
  }
}
