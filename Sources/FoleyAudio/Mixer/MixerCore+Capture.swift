import Dispatch
import FoleyCore
import Foundation

// Capturing what the engine is told: each command recorded on the queue as it is applied, with
// the frame the mix applies it from. While a capture runs, a command's work on the queue runs
// under the audio lock, so that no buffer is mixed between reading the frame and the command
// taking effect (SDL mixes on its own thread; the embedded mixer only when advanced).
extension MixerCore {
  /// Starts a capture on the queue: its frame 0 is the next frame the mix makes.
  func startCapture(to url: URL, replacing: Bool, limit: Int) throws(CaptureError) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard state.isOpen else { throw .engineClosed }
    guard state.capture == nil else { throw .alreadyCapturing }
    let result = backend.holdingAudioLock { () -> Result<CommandCapture, CaptureError> in
      // Moves reach the mix through the queue while a capture runs: the voices it follows are
      // taken back first.
      stopFollowingAll()
      let frame = mixer.framesMixed.load(ordering: .acquiring)
      let header = CaptureHeader(
        format: "foley-capture", version: CaptureHeader.currentVersion, sampleRate: format.sampleRate,
        channels: format.channels, bufferFrames: format.bufferFrames, startFrame: frame,
        engine: capturedEngineSettings, mix: Self.capturedMix(buses.withLock { $0 }),
        voicesAtStart: table.countedVoices + state.virtual.voices.count + state.orphans.count)
      let mixer = mixer
      do throws(CaptureError) {
        return .success(
          try CommandCapture(
            url: url, replacing: replacing, limit: limit, header: header,
            frameNow: { mixer.framesMixed.load(ordering: .acquiring) }))
      } catch {
        return .failure(error)
      }
    }
    let capture = try result.get()
    state.capture = capture
    isCapturing.store(true, ordering: .releasing)
    let settings = buses.withLock { $0 }
    let frame = capture.startFrame
    if settings.effects.values.contains(where: { !$0.isEmpty }) {
      capture.noteUnsupported("bus effects", at: frame)
    }
    if !settings.parents.isEmpty { capture.noteUnsupported("bus routing", at: frame) }
    // Which voices a budget keeps audible is decided on the queue's own time.
    if ranksVoices { capture.noteUnsupported("voice budgets", at: frame) }
    if !state.sessionState.isActive { capture.noteUnsupported("session at start", at: frame) }
    if policies.withLock({ !$0.byCategory.isEmpty || $0.standard != PolicyTable().standard }) {
      capture.noteUnsupported("session policies", at: frame)
    }
  }

  /// Ends the capture that runs, if one does, and says what it holds.
  func stopCapture(reason: String) -> CaptureSummary? {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let capture = state.capture else { return nil }
    state.capture = nil
    isCapturing.store(false, ordering: .releasing)
    return capture.finish(reason: reason, at: mixer.framesMixed.load(ordering: .acquiring))
  }

  /// Runs `body`, a command's work on the queue; while a capture runs, under the audio lock, and
  /// then records what `command` says, stamped with the frame the next buffer starts on: the
  /// first frame the command shapes.
  func capturing(_ command: () -> CaptureCommand?, _ body: () -> Void) {
    guard let capture = state.capture else { return body() }
    backend.holdingAudioLock {
      let frame = mixer.framesMixed.load(ordering: .acquiring)
      body()
      if let command = command() { capture.record(command, at: frame) }
    }
  }

  /// Records a play the queue has just started (or left waiting for its scheduled frame), from
  /// what its voice held when it was admitted.
  func recordPlay(_ voice: Voice, of sound: Sound, loops: Int, admitted: AdmittedPlay) {
    guard let capture = state.capture, voice.state != .finished else { return }
    let frame = mixer.framesMixed.load(ordering: .acquiring)
    let id = capture.soundID(for: sound, at: frame)
    let play = CapturedPlay(
      voice: voice.id, sound: id, volume: voice.volume, pan: voice.heardPan, groupVolume: voice.groupVolume,
      loops: loops, rate: admitted.rate, start: admitted.schedule.map(capture.relative),
      joinsLate: admitted.joinsLate ? true : nil,
      level: admitted.level.map { level in
        CapturedLevel(
          from: level.from, frames: level.frames, easing: level.easing.captureName,
          start: capture.relativeStart(level.start))
      }, normalization: voice.normalization, placementGain: admitted.placement?.gain,
      placementPan: admitted.placement?.pan)
    capture.record(.play(play), at: frame)
    if admitted.hasModulators { capture.noteUnsupported("voice modulators", at: frame) }
  }

  /// What a play's voice holds for its start, read before the start uses it up.
  struct AdmittedPlay {
    var rate: Double
    var schedule: UInt64?
    var joinsLate: Bool
    var level: (from: Double, frames: Int, easing: Easing, start: UInt64)?
    var placement: SpatialPlacement?
    var hasModulators: Bool

    init(_ voice: Voice) {
      rate = voice.playbackRate
      schedule = voice.schedule.frame
      joinsLate = voice.schedule.joinsLate
      let from = Double(bitPattern: voice.pendingLevelFrom.load(ordering: .relaxed))
      level =
        from.isNaN
        ? nil
        : (
          from, voice.pendingLevelFrames.load(ordering: .relaxed),
          Easing.decoded(voice.pendingLevelShape.load(ordering: .relaxed)),
          voice.pendingLevelStart.load(ordering: .relaxed)
        )
      placement = voice.initialPlacement
      hasModulators = voice.hasModulators.load(ordering: .relaxed)
    }
  }

  /// A voice's shaping request while a capture runs: stored on the queue under the audio lock,
  /// stamped with the frame the next buffer starts on when it asks for none, its shaper given
  /// there and then, and recorded.
  func shapeCaptured(_ kind: ShapingKind, _ request: RampRequest, needsShaper: Bool, of voice: Voice) {
    queue.async { [self] in
      guard let capture = state.capture else {
        applyShaping(kind, request, needsShaper: needsShaper, of: voice)
        return
      }
      // A play asked for before this request is started (and recorded) first.
      if voice.state == .pending { servePlayRequests() }
      // The same request again (a scene sets every voice's doppler and send each update) changes
      // nothing the mix hears but the pace of a ramp already on its way there: while capturing
      // it is left out, so that a capture holds what changed.
      let last = RampRequest(packed: voice.request(kind))
      guard
        request.start != 0 || last.target != request.target || last.frames != request.frames
          || last.easing != request.easing
      else { return }
      backend.holdingAudioLock {
        let frame = mixer.framesMixed.load(ordering: .acquiring)
        var stamped = request
        if stamped.start == 0 { stamped.start = frame }
        applyShaping(kind, stamped, needsShaper: needsShaper, of: voice)
        capture.record(
          .shape(
            voice: voice.id, kind: kind.rawValue, target: Double(stamped.target), frames: Int(stamped.frames),
            easing: stamped.easing.captureName, start: capture.relative(stamped.start)), at: frame)
      }
    }
  }

  /// Makes this engine one that replays a capture: its voices' moves stay with the queue.
  func beginReplay() {
    queue.sync { state.isReplaying = true }
  }

  /// A captured shaping request, applied as the live engine's queue applied it.
  func replayShaping(_ kind: ShapingKind, _ request: RampRequest, of voice: Voice) {
    let needsShaper = Self.needsShaper(kind, request.target)
    queue.async { [self] in
      if voice.state == .pending { servePlayRequests() }
      applyShaping(kind, request, needsShaper: needsShaper, of: voice)
    }
  }

  /// Whether a voice shaped so needs a shaper on its lane (as the voice's setters decide).
  static func needsShaper(_ kind: ShapingKind, _ target: Float) -> Bool {
    switch kind {
    case .rate, .doppler: target != 1
    case .cutoff: target < VoiceShaping.openCutoffLog2
    case .send: false
    }
  }

  /// Stores the request and, if the voice now needs one, puts a shaper on its channel at once.
  private func applyShaping(_ kind: ShapingKind, _ request: RampRequest, needsShaper: Bool, of voice: Voice) {
    voice.store(kind, request)
    guard needsShaper, !voice.needsShaper.exchange(true, ordering: .relaxed), state.isOpen, state.hasDevice,
      let channel = table.channel(of: voice)
    else { return }
    ensureShaper(on: channel)
  }

  /// Notes, from any thread, a command of a kind the capture does not record, so that a replay
  /// names it (one atomic load when no capture runs).
  func noteUncaptured(_ kind: String) {
    guard isCapturing.load(ordering: .relaxed) else { return }
    queue.async { [self] in
      state.capture?.noteUnsupported(kind, at: mixer.framesMixed.load(ordering: .acquiring))
    }
  }

  /// A tween as a capture writes it.
  func captured(_ tween: Tween) -> CapturedTween {
    CapturedTween(
      duration: tween.duration, easing: tween.easing.captureName,
      start: state.capture?.relativeStart(tween.startFrame))
  }

  static func capturedMix(_ settings: BusSettings) -> CapturedMix {
    CapturedMix(
      volumes: Dictionary(uniqueKeysWithValues: settings.volumes.map { ($0.key.name, $0.value) }),
      muted: settings.muted.map(\.name).sorted(), soloed: settings.soloed.map(\.name).sorted(),
      critical: settings.critical.map(\.name).sorted(),
      ducks: settings.ducks.mapValues {
        CapturedDuck(buses: $0.categories.map(\.name).sorted(), gain: $0.gain)
      },
      masterVolume: settings.masterVolume, isMasterMuted: settings.isMasterMuted, isMono: settings.isMono,
      balance: settings.balance, dynamicRange: settings.dynamicRange)
  }

  private var capturedEngineSettings: CapturedEngineSettings {
    CapturedEngineSettings(
      maximumChannels: configuration.maximumChannels,
      maximumAudibleVoices: configuration.maximumAudibleVoices,
      virtualizesInaudibleVoices: configuration.virtualizesInaudibleVoices,
      declickDuration: configuration.declickDuration, closeFadeDuration: configuration.closeFadeDuration,
      limiterCeilingDecibels: configuration.limiter?.ceilingDecibels,
      limiterLookAhead: configuration.limiter?.lookAhead, limiterRelease: configuration.limiter?.release)
  }
}

extension BusSettings {
  /// The settings a captured mix describes, over `self`'s effects, routing and player settings,
  /// each number held to the range the game's own setters hold it to.
  func applying(_ mix: CapturedMix) -> BusSettings {
    var settings = self
    settings.volumes = Dictionary(
      uniqueKeysWithValues: mix.volumes.map { (SoundCategory($0.key), $0.value.clamped(to: 0...1, or: 1)) })
    settings.muted = Set(mix.muted.map { SoundCategory($0) })
    settings.soloed = Set(mix.soloed.map { SoundCategory($0) })
    settings.critical = Set(mix.critical.map { SoundCategory($0) })
    settings.ducks = mix.ducks.mapValues {
      (Set($0.buses.map { SoundCategory($0) }), $0.gain.clamped(to: 0...1, or: 1))
    }
    settings.masterVolume = mix.masterVolume.clamped(to: 0...1, or: 1)
    settings.isMasterMuted = mix.isMasterMuted
    settings.isMono = mix.isMono
    settings.balance = mix.balance.clamped(to: -1...1, or: 0)
    settings.dynamicRange = mix.dynamicRange
    return settings
  }
}
