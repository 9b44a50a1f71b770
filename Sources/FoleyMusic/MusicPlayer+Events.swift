import Dispatch
@_spi(FoleyStreams) import FoleyAudio
public import FoleyCore
import FoleySession
import Foundation
import Synchronization

// The music's events: observers, and what is delivered to them on the game thread.
extension MusicPlayer {
  /// Calls `body` with every ``MusicEvent``, on the game thread, until the observation is
  /// cancelled.
  ///
  /// ```swift
  /// let watching = music.observe { event in print(event) }
  /// watching.cancel()
  /// ```
  @discardableResult
  public func observe(_ body: @escaping @MainActor (MusicEvent) -> Void) -> Observation {
    let token = observers.add(body)
    return Observation { [weak self] in self?.observers.remove(token) }
  }

  /// Hands observers what has happened since the last call: tracks that began to be heard,
  /// loops, failures, the end of the music. The mailbox calls it when the music thread has news;
  /// a tool that polls may call it too.
  public func deliverEvents() {
    delivery.isScheduled.store(false, ordering: .releasing)
    followSuccessors()
    for stream in outgoing + stemStreams { collectNews(of: stream, failuresOnly: true) }
    if let current { collectNews(of: current) }
    outgoing.removeAll { $0.voice.state == .finished }
    if let stream = current, stream.voice.state == .finished, stream.successor.withLock({ $0 }) == nil {
      current = nil
      isPaused = false
    }
    collectBeats()
    updateBeatPoller()
    if current == nil, outgoing.isEmpty, !hasReportedFinish {
      hasReportedFinish = true
      pendingEvents.append(.finished)
    }
    let events = pendingEvents
    pendingEvents.removeAll()
    for event in events {
      observers.send(event)
    }
  }

  /// Turns what `stream` has heard and failed since the last look into events. A stream on its way
  /// out reports only failures: its loops and tracks are no longer the music's news.
  func collectNews(of stream: MusicStream, failuresOnly: Bool = false) {
    let news = stream.takeNews()
    pendingEvents += news.failures.map { MusicEvent.failed($0.0, $0.1) }
    // Nobody listens for the music's events: the log says why the music is silent (a game or a
    // tool that observes reports failures its own way, once).
    if observers.isEmpty {
      for (track, error) in news.failures {
        engine?.core.logger.error("music: '\(track.name)' cannot play: \(error)")
      }
    }
    guard !failuresOnly else { return }
    for segment in news.segments {
      switch segment.kind {
      case .start:
        pendingEvents.append(.trackChanged(segment.nowPlaying))
        applyNormalization(to: stream, playing: segment.nowPlaying)
      case .loop(let pass): pendingEvents.append(.looped(segment.nowPlaying, pass: pass))
      case .seek: break
      }
    }
  }
}
