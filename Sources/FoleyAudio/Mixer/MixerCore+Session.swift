import Dispatch
import FoleySession

/// The session's modes and the buses, applied to every voice; and the census of what each voice
/// is doing.
extension MixerCore {
  package func mode(for category: SoundCategory) -> SessionMode {
    let sessionState = state.sessionState
    // Active: every category plays normally, whatever its policy (no lock for it, every start).
    if sessionState.isActive { return .normal }
    return policies.withLock { $0.mode(for: category, in: sessionState) }
  }

  /// Brings every voice in line with the session: pauses (with a ramp), ducks or resumes it.
  /// Voices the game paused are left alone, so they stay paused across the transition.
  func applySession(_ transition: AudioSession.Transition) {
    dispatchPrecondition(condition: .onQueue(queue))
    capturing({
      .session(
        inactive: transition.new.inactiveReasons.map(\.description).sorted(),
        resumesPausedVoices: transition.resumesPausedVoices)
    }) {
      state.sessionState = transition.new
      reapplySessionModes(resumingPausedVoices: transition.resumesPausedVoices)
    }
  }

  /// A captured session state, applied as the live engine's queue applied it (a replay's own
  /// session stays active: only the voices' modes follow the captured one).
  func replaySession(inactive reasons: [String], resumesPausedVoices: Bool) {
    let state = AudioSession.State(inactiveReasons: Set(reasons.map(AudioSession.Reason.init(captured:))))
    queue.async { [self] in
      self.state.sessionState = state
      reapplySessionModes(resumingPausedVoices: resumesPausedVoices)
    }
  }

  /// Re-evaluates each voice's session mode, after a transition or a policy change.
  func reapplySessionModes(resumingPausedVoices: Bool = true) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard state.isOpen else { return }
    if !resumingPausedVoices {
      // `endInterruption(shouldResume: false)`: what the session paused becomes the game's to resume.
      for index in state.orphans.indices where state.orphans[index].sessionMode == .paused {
        state.orphans[index].sessionMode = .normal
        state.orphans[index].voice.setState(.paused)
      }
    }
    for (id, entry) in state.virtual.voices {
      let voice = entry.slot.voice
      if !resumingPausedVoices, entry.slot.sessionMode == .paused {
        state.virtual.voices[id]?.slot.sessionMode = .normal
        voice.setState(.paused)
        continue
      }
      guard voice.state == .playing else { continue }
      let target = mode(for: entry.slot.category)
      guard target != entry.slot.sessionMode else { continue }
      state.virtual.voices[id]?.slot.sessionMode = target
      // A virtual voice the session holds stops its clock, as a held channel stops its lane.
      setFrozen(voice, target == .paused)
    }
    allGainsChanged(category: nil)
    guard state.hasDevice else { return }
    processFinishedChannels()
    // Starts held while waiting go after the rest: a musical one is placed by the music's clock,
    // which counts from the music's own resume.
    var heldStarts: [Int] = []
    for channel in table.occupiedChannels {
      guard let slot = table[channel], !slot.isReleasing else { continue }
      if !resumingPausedVoices, slot.sessionMode == .paused {
        table.update(channel) { $0.sessionMode = .normal }
        slot.voice.setState(.paused)
        continue
      }
      guard slot.voice.state == .playing else { continue }
      let target = mode(for: slot.category)
      guard target != slot.sessionMode else { continue }
      let wasPaused = slot.sessionMode == .paused
      table.update(channel) { $0.sessionMode = target }
      if target == .paused {
        rampToPause(channel)
      } else if wasPaused {
        if slot.waitingHeldAt != nil { heldStarts.append(channel) } else { rampToResume(channel) }
      } else {
        retarget(channel, table[channel]!)
      }
    }
    for channel in heldStarts { rampToResume(channel) }
    rebalanceVoices()
    scheduleFallbackWake()
  }

  /// Applies `given`, the bus settings as a change left them: the faders move along `tween`, and
  /// each bus whose mute, solo or ducks changed ramps its voices to their new gain over its
  /// duration (at least the de-click time), sample by sample.
  func applyBuses(_ given: BusSettings, tween: Tween) {
    dispatchPrecondition(condition: .onQueue(queue))
    let fade = tween.usableDuration
    var settings = given
    let before = state.appliedBuses
    settings.faded = moveFaders(settings, tween: tween)
    state.appliedBuses = settings
    busGains.forget()
    master.setVolume(settings.isMasterMuted ? 0 : 1)
    guard state.isOpen, state.hasDevice else { return }
    let monoChanged = before.isMono != settings.isMono
    for category in Set(state.virtual.voices.values.map(\.slot.category))
    where monoChanged || before.heardGain(for: category) != settings.heardGain(for: category) {
      allGainsChanged(category: category)
    }
    defer { rebalanceVoices() }
    for channel in table.occupiedChannels {
      guard let slot = table[channel], !slot.isReleasing, slot.voice.state == .playing,
        slot.sessionMode != .paused
      else { continue }
      let critical = slot.sound.settings.isCriticalCue
      let old = before.gain(for: slot.category, criticalCue: critical)
      let new = settings.gain(for: slot.category, criticalCue: critical)
      guard old != new || monoChanged else {
        // Only a fader moved: the channel's gain stays, but how loud it is heard changed.
        if before.faderGain(for: slot.category) != settings.faderGain(for: slot.category) {
          gainChanged(slot.voice, channel: channel)
        }
        continue
      }
      // A fade moves the whole way in `fade` seconds; short changes still take the de-click time.
      stopFollowing(channel)
      let (left, right) = channelGains(for: table[channel] ?? slot)
      let current = table.gains[channel].target
      let distance = max(abs(left - current.left), abs(right - current.right))
      let frames = Float(max(fade, configuration.declickDuration) * Double(format.sampleRate))
      keepPanTween(channel)
      table.gains[channel].setTarget(left: left, right: right, step: max(distance / frames, 1e-7))
      gainChanged(slot.voice, channel: channel)
    }
  }

  package func census() -> VoiceCensus {
    dispatchPrecondition(condition: .onQueue(queue))
    processFinishedChannels()
    var census = VoiceCensus()
    census.waitingForDevice = state.orphans.count
    for entry in state.virtual.voices.values {
      if entry.slot.voice.state == .paused {
        census.pausedByGame += 1
      } else if entry.slot.sessionMode == .paused {
        census.pausedBySession += 1
      } else {
        census.virtual += 1
      }
    }
    for channel in table.occupiedChannels {
      guard let slot = table[channel] else { continue }
      if slot.isReleasing {
        census.releasing += 1
      } else if slot.voice.state == .paused {
        census.pausedByGame += 1
      } else if slot.sessionMode == .paused {
        census.pausedBySession += 1
      } else {
        census.audible += 1
        if case .ducked = slot.sessionMode { census.ducked += 1 }
      }
    }
    return census
  }
}

extension AudioSession.Reason {
  /// The reason a capture names (its description).
  init(captured name: String) {
    switch name {
    case "focusLost": self = .focusLost
    case "minimized": self = .minimized
    case "background": self = .background
    case "interruption": self = .interruption
    case "deviceLost": self = .deviceLost
    default: self = .host(name)
    }
  }
}
