/// What happens when a sound asks to play and there is no room: every channel is busy at the
/// engine's cap, or the sound already has `maximumInstances` voices.
public enum ChannelPolicy: Sendable, Hashable {
  /// Stop the voice that started longest ago (with a de-click ramp) and play.
  case stealOldest
  /// Stop the lowest-priority voice if it is below this sound's priority; otherwise reject.
  case stealLowestPriority
  /// Do not play; the request counts as rejected.
  case reject
}
