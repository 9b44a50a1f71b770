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

  /// SDL's id of the capture device the recorder opened: what `SDL_AUDIODEVICEREMOVED` names, and
  /// what `SDL_GetAudioDeviceStatus` takes (paused while the recorder is; stopped once it
  /// finished).
  ///
  /// ```swift
  /// if event.adevice.which == recorder.deviceID { print("our microphone went away") }
  /// ```
  public var deviceID: UInt32 { device }

  public func audioDeviceRemoved(deviceID: UInt32, isCapture: Bool) {
    guard isCapture, deviceID == device else { return }
    queue.sync { _ = finishOnQueue(error: .deviceLost(url)) }
  }

  public func audioDeviceAdded(index: UInt32, isCapture: Bool) {}
}
