import FoleySession
import Foundation

/// Float frames at the source's own rate and channel count, read in order: what a ``PCMStream``
/// plays (synthesised speech, a game's own generator).
package protocol PCMSource: AnyObject, Sendable {
  var sampleRate: Int { get }
  var channels: Int { get }
  /// Reads up to `count` interleaved frames into `buffer`; 0 at the end. Called on the stream
  /// filler's queue only.
  /// - Parameter waiting: the embedded mixer or an offline render is refilling: a source still
  ///   making its frames (speech being synthesised) waits for them rather than giving silence,
  ///   so what is mixed never depends on how fast it ran. False on a real device, where a late
  ///   source must not hold the other streams.
  func read(into buffer: UnsafeMutablePointer<Float>, count: Int, waiting: Bool) -> Int
}

/// A streamed voice playing a ``PCMSource``: converted to the mix's format on the music thread and
/// played through the engine like any voice (category bus, session, de-click, device restore).
/// It can stop at a frame of its source and wait (``hold(atSourceFrame:)``), and says which frame
/// of its source is being heard.
///
/// ```swift
/// let stream = engine.playStream(source, category: .speech, volume: 1, name: "line 12")
/// stream.hold(atSourceFrame: wordEnd)     // pauses there, sample-exactly
/// stream.release()                        // and goes on
/// ```
///
/// Invariant behind `@unchecked Sendable`: as for its ``StreamPipe``; its own fields are immutable.
package final class PCMStream: StreamPipe, @unchecked Sendable {
  package let source: any PCMSource
  package let name: String

  package init(source: any PCMSource, name: String, pipe: Setup) {
    self.source = source
    self.name = name
    super.init(pipe)
  }

  /// The frame of the source being heard now (0 before anything is).
  package var heardSourceFrame: Int {
    Int((Double(framesRead) * Double(source.sampleRate) / Double(format.sampleRate)).rounded(.down))
  }

  /// The mix frames per source frame.
  var rateRatio: Double { Double(format.sampleRate) / Double(source.sampleRate) }

  /// Stops at source frame `frame` (fading out over the de-click time before it) and waits for
  /// ``release()``.
  package func hold(atSourceFrame frame: Int) {
    effect.hold(atFrame: Int((Double(frame) * rateRatio).rounded()))
  }

  /// Goes on from where a hold stopped.
  package func release() {
    effect.release()
  }

  /// Stopped at a hold, waiting.
  package var isHolding: Bool { effect.isHolding.load(ordering: .acquiring) }

  /// Played out (or stopped).
  package var isFinished: Bool { voice.isFinished }

  /// Stops it at once, with a de-click ramp.
  package func stop() {
    isCancelled.store(true, ordering: .releasing)
    voice.stop()
  }
}
