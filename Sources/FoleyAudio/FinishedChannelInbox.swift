internal import CSDL2Mixer
import Synchronization

/// Where SDL_mixer's channel-finished callback posts the channels that stopped.
///
/// The callback runs while SDL_mixer holds its lock, on SDL's audio thread or on the thread that
/// called `Mix_HaltChannel` (the audio queue). So it may do nothing but append to this
/// mutex-guarded list, with capacity reserved so the audio thread does not allocate; the queue
/// drains it. SDL_mixer has one callback per process, hence one inbox.
final class FinishedChannelInbox: Sendable {
  private let channels = Mutex<[Int32]>(
    {
      var list: [Int32] = []
      list.reserveCapacity(1024)
      return list
    }())

  func post(_ channel: Int32) {
    channels.withLock { $0.append(channel) }
  }

  /// Takes every posted channel, oldest first.
  func drain() -> [Int32] {
    channels.withLock { list in
      guard !list.isEmpty else { return [] }
      let drained = list
      list.removeAll(keepingCapacity: true)
      return drained
    }
  }
}

/// The one inbox SDL_mixer's process-wide callback can reach (a C function pointer captures
/// nothing). A constant, never reassigned; only one engine can have the mixer open at a time.
let finishedChannelInbox = FinishedChannelInbox()

let channelFinishedCallback: @convention(c) (Int32) -> Void = { channel in
  finishedChannelInbox.post(channel)
}
