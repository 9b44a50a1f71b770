public import Foundation

extension AudioEngine {
  /// Starts capturing every command the engine applies, each stamped with the frame of the mix
  /// it took effect on, to a capture file at `url`: what a bug report carries, and what
  /// `OfflineRenderer.replay(_:to:)` renders again to the same samples.
  ///
  /// The capture's frame 0 is the next frame the mix makes. Its lines are written by a queue of
  /// their own as the commands are applied (the game thread does no more per play than without
  /// one), each with a single `write`, so a capture cut short by a crash holds everything up to
  /// its last whole line. It ends at ``stopCapture()``, when the engine closes, or when it reaches
  /// `limit` bytes (it then says so in its last line). It holds no audio and no text but sound
  /// names: see the Capturing article for what is in it.
  ///
  /// ```swift
  /// try engine.startCapture(to: URL(fileURLWithPath: "round.foleycapture"), replacing: true)
  /// engine.play(hit)
  /// // …the round…
  /// if let summary = engine.stopCapture() { print(summary.records, summary.bytes) }
  /// ```
  /// - Parameters:
  ///   - url: the capture file; refused if one is there unless `replacing`.
  ///   - replacing: whether to replace a file already at `url`.
  ///   - limit: the most bytes the file may reach (at least 4,096).
  /// - Throws: ``CaptureError``: `.exists`, `.cannotWrite`, `.alreadyCapturing`, `.engineClosed`.
  public func startCapture(to url: URL, replacing: Bool = false, limit: Int = 16 << 20) throws(CaptureError) {
    guard !isClosed else { throw .engineClosed }
    let limit = max(4_096, limit)
    let result = core.syncOnQueue { () -> Result<Void, CaptureError> in
      do throws(CaptureError) {
        return .success(try core.startCapture(to: url, replacing: replacing, limit: limit))
      } catch {
        return .failure(error)
      }
    }
    try result.get()
  }

  /// Ends the capture that runs and says what it holds (nil when none runs).
  @discardableResult
  public func stopCapture() -> CaptureSummary? {
    guard !isClosed else { return nil }
    return core.syncOnQueue { core.stopCapture(reason: "stopped") }
  }

  /// Whether a capture runs.
  public var isCapturing: Bool { core.isCapturing.load(ordering: .acquiring) }
}
