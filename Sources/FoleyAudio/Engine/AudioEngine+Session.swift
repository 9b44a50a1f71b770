public import FoleySession

extension AudioEngine {
  /// What every category without a policy of its own does while the session is inactive for an
  /// unfocused reason. ``SessionPolicy/ambient`` by default.
  public var sessionPolicy: SessionPolicy {
    get { core.policies.withLock { $0.standard } }
    set {
      core.policies.withLock { $0.standard = newValue }
      core.noteUncaptured("session policies")
      core.queue.async { [core] in core.reapplySessionModes() }
    }
  }

}

extension AudioEngine: AudioSessionParticipant {
  public func sessionDidChange(_ transition: AudioSession.Transition) {
    guard !isClosed else { return }
    core.syncOnQueue { core.applySession(transition) }
  }

  /// Our device went away: pause everything (the session's `deviceLost`), reopen the default
  /// device in the same format and restore the voices where they were. If none opens, stay
  /// silent until a device is added.
  public func audioDeviceRemoved(deviceID: UInt32, isCapture: Bool) {
    guard !isCapture, !isClosed, deviceID != 0, deviceID == core.deviceID.load(ordering: .acquiring) else {
      return
    }
    addDeviceLost()
    if core.syncOnQueue({ core.replaceDevice() }) { clearDeviceLost() }
  }

  /// A device appeared: if we have none, try once to open it.
  public func audioDeviceAdded(index: UInt32, isCapture: Bool) {
    guard !isCapture, !isClosed else { return }
    if core.syncOnQueue({ core.retryDevice() }) { clearDeviceLost() }
  }
}
