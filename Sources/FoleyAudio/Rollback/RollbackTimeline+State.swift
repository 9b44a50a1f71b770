// What a rollback timeline holds behind its lock: the requests as they asked, the voices they
// sound on, and the re-simulation under way.

/// One request of a timeline's, as it asked.
struct RollbackRequest: Sendable {
  var sound: Sound
  var frame: Int
  var volume: Double
  var pan: Double
  var loops: Int
  var rate: Double
  var late: RollbackTimeline.LateStart
  var ifMispredicted: RollbackTimeline.Misprediction

  /// The same sound on the same frame, played the same way: kept, not restarted.
  func matches(_ other: RollbackRequest) -> Bool {
    sound === other.sound && frame == other.frame && loops == other.loops && rate == other.rate
  }
}

/// A request and the voice it sounds on (nil when it was not started).
struct RollbackEntry: Sendable {
  var request: RollbackRequest
  var voice: Voice?
  /// The simulation frame a stop silences it from.
  var stoppedAt: Int?
  /// Whether its confirmed stop has let the voice go.
  var released = false
}

/// A timeline's requests, behind its lock.
struct TimelineState: Sendable {
  var entries: [RollbackKey: RollbackEntry] = [:]
  var confirmedThrough = -1
  var newestFrame = -1
  var resimulatingFrom: Int?
  var resimulated: [RollbackKey: RollbackRequest] = [:]
  var resimulatedOrder: [RollbackKey] = []
  var resimulatedStops: [RollbackKey: Int] = [:]
  var rollbacks = 0

  mutating func noteFrame(_ frame: Int) { newestFrame = max(newestFrame, frame) }
}

/// What a timeline holds, kept to the unconfirmed window.
extension RollbackTimeline {
  /// Confirms what has fallen out of the window.
  func confine(_ state: inout TimelineState) {
    let window = max(1, settings.window ?? framesPerSecond * 2)
    let oldest = state.newestFrame - window
    if oldest > state.confirmedThrough, state.resimulatingFrom == nil {
      state.confirmedThrough = oldest
      forgetConfirmed(&state)
    }
  }

  /// Drops the requests of confirmed frames whose sound has ended or can no longer be reached.
  func forgetConfirmed(_ state: inout TimelineState) {
    let through = state.confirmedThrough
    // Keys collected, then changed: the table is neither copied nor rebuilt each frame.
    var released: [RollbackKey] = []
    var forgotten: [RollbackKey] = []
    for (key, entry) in state.entries where entry.request.frame <= through {
      if let voice = entry.voice, !voice.isFinished {
        // A stop made final: the voice, silent or falling silent, is let go.
        if !entry.released, let stop = entry.stoppedAt, stop <= through { released.append(key) }
      } else {
        forgotten.append(key)
      }
    }
    for key in released {
      state.entries[key]?.voice?.stop(tween: settings.fadeOut)
      state.entries[key]?.released = true
    }
    for key in forgotten { state.entries[key] = nil }
  }
}
