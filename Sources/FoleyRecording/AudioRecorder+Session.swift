internal import CFoleySDL2
public import FoleySession

// The session pauses and resumes a take (unless it keeps recording while inactive); losing the
// capture device ends it with a typed error and a valid file.
extension AudioRecorder: AudioSessionParticipant {
  public func sessionDidChange(_ change: AudioSession.Transition) {
    guard !options.contains(.keepsRecordingWhenInactive) else { return }
    queue.sync {
      if !change.new.isActive {
        pauseOnQueue(bySession: true)
      } else if state == .paused, pausedBySession {
        pausedBySession = false
        resumeOnQueue()
      }
    }
  }

  public func audioDeviceRemoved(deviceID: UInt32, isCapture: Bool) {
    guard isCapture, deviceID == device else { return }
    queue.sync { _ = finishOnQueue(error: .deviceLost(url)) }
  }

  public func audioDeviceAdded(index: UInt32, isCapture: Bool) {}
}
