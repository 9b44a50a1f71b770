import FoleyCore

/// A play of a sound that asked for a caption or for rumble, as the game thread's captions and
/// haptics take it.
package struct NotedPlay: Sendable {
  package let voice: Voice
  /// The sound played (nil for a stream: speech, music).
  package let sound: Sound?
  package let caption: Caption?
  package let category: SoundCategory
  /// The sound's own volume and pan.
  package let volume: Double
  package let pan: Double
  /// Seconds from its start to its end; nil when it loops for ever or is not known.
  package let duration: Double?
  /// Captioned whenever it plays, even muted (``SoundSettings/isCritical``).
  package let isCritical: Bool

  package init(
    voice: Voice, sound: Sound?, caption: Caption?, category: SoundCategory, volume: Double = 1,
    pan: Double = 0,
    duration: Double?, isCritical: Bool = false
  ) {
    self.voice = voice
    self.sound = sound
    self.caption = caption
    self.category = category
    self.volume = volume
    self.pan = pan
    self.duration = duration
    self.isCritical = isCritical
  }
}

/// Plays handed from whichever thread made them to a game-thread consumer (the captions, the
/// haptics). Bounded: a game that never updates the consumer keeps the newest ``capacity``
/// plays, not every play it ever made.
package final class PlayInbox: Sendable {
  static let capacity = 1_024
  private let plays = Locked<[NotedPlay]>([])

  package init() {}

  package func note(_ play: NotedPlay) {
    plays.withLock { plays in
      if plays.count >= Self.capacity { plays.removeFirst(plays.count - Self.capacity + 1) }
      plays.append(play)
    }
  }

  /// Whether plays wait to be taken.
  package var hasPlays: Bool { plays.withLock { !$0.isEmpty } }

  /// The plays noted since the last take.
  package func take() -> [NotedPlay] {
    plays.withLock { plays in
      defer { plays.removeAll(keepingCapacity: true) }
      return plays
    }
  }
}

extension MixerCore {
  /// Hands a play of a sound with a caption or rumble to the captions or the haptics.
  @inline(__always)
  func noteAccessible(_ source: SoundSource, voice: Voice, loops: Int) {
    guard case .sound(let sound) = source else { return }
    let settings = sound.settings
    guard settings.caption != nil || settings.rumble != nil else { return }
    let play = NotedPlay(
      voice: voice, sound: sound, caption: settings.caption, category: settings.category,
      volume: settings.volume,
      pan: settings.pan, duration: loops < 0 ? nil : sound.duration * Double(loops + 1),
      isCritical: settings.isCriticalCue)
    if settings.caption != nil { captionPlays.note(play) }
    if settings.rumble != nil { rumblePlays.note(play) }
  }
}
