/// The common case in one pass: a float stereo sound at rate 1, unfiltered, unsent, at a steady
/// or ramping audible gain is read, scaled and summed into its bus by one SIMD loop, with no copy
/// in between. (Moving positional voices ramp all the time: each update glides to its placement.)
extension VoiceMixer {
  /// The lane's gains when it can take the direct path; nil when it needs the full one (a stream,
  /// a shaper at work, a send, a ramp towards silence, or not float stereo).
  ///
  /// The lane's voice, shaper and gain stage are borrowed, not retained: the lane holds them,
  /// and retaining and releasing each of them per voice per block doubled this check's cost.
  @inline(__always)
  func directGains(_ channel: Int) -> DirectGain? {
    guard isFloat, channels == 2, lanes[channel].stream == nil, let heldVoice = lanes[channel].voice else {
      return nil
    }
    guard lanes[channel].seekPhase == 0 else { return nil }
    let takesDirectPath = heldVoice._withUnsafeGuaranteedRef { voice -> Bool in
      guard voice.seekRequest.load(ordering: .relaxed) < 0 else { return false }
      lanes[channel].send.follow(voice.sendRequest, at: clock)
      guard lanes[channel].send.value == 0, !lanes[channel].send.isMoving else { return false }
      guard let heldShaper = lanes[channel].shaper else { return true }
      return heldShaper._withUnsafeGuaranteedRef { shaper in
        !shaper.isEngaged && !shaper.isFiltering
          && voice.rateRequest.isAtRest && voice.dopplerRequest.isAtRest && voice.cutoffRequest.isAtRest
      }
    }
    guard takesDirectPath, let gain = lanes[channel].gain else { return nil }
    return gain._withUnsafeGuaranteedRef { $0.directGain }
  }

  /// Sums the lane's next `frames` frames × `gain` into `target`; true when the sound ended.
  func mixDirect(
    _ channel: Int, into target: UnsafeMutablePointer<Float>, frames: Int, gain: DirectGain
  ) -> Bool {
    switch gain {
    case .held(let left, let right):
      let pattern = SIMD8<Float>(left, right, left, right, left, right, left, right)
      let (filled, ended) = walkPasses(channel, frames: frames) { from, offset, take in
        addScaled(from, into: target + offset * 2, count: take * 2, by: pattern)
      }
      lanes[channel].gain?._withUnsafeGuaranteedRef { $0.account(sourceFrames: filled) }
      return ended
    case .levelled(let left, let right):
      let pairs = levelledGains
      lanes[channel].gain?._withUnsafeGuaranteedRef {
        $0.levelledGains(into: pairs, frames: frames, left: left, right: right)
      }
      let (filled, ended) = walkPasses(channel, frames: frames) { from, offset, take in
        Self.addScaled(from, into: target + offset * 2, count: take * 2, byEach: pairs + offset * 2)
      }
      lanes[channel].gain?._withUnsafeGuaranteedRef {
        $0.account(sourceFrames: filled)
        $0.noteLevelFadedOut(frames: frames)
      }
      return ended
    case .ramp(let ramp):
      let (filled, ended) = walkPasses(channel, frames: frames) { from, offset, take in
        ramp.addScaled(
          from, into: target + offset * 2, frames: take, firstFrame: offset, wide: usesWideVectors)
      }
      // The ramp moves on over the whole block, as it would over a block padded with silence.
      lanes[channel].gain?._withUnsafeGuaranteedRef { $0.account(ramp, frames: frames, sourceFrames: filled) }
      return ended
    }
  }

  /// Adds `count` samples of `source`, each times its own gain in `gains`, into `target`.
  @inline(__always)
  static func addScaled(
    _ source: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, count: Int,
    byEach gains: UnsafeMutablePointer<Float>
  ) {
    let to = UnsafeMutableRawPointer(target)
    let by = UnsafeRawPointer(gains)
    var index = 0
    while index &+ 8 <= count {
      let sum =
        to.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
        + source.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
        * by.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
      to.storeBytes(of: sum, toByteOffset: index &* 4, as: SIMD8<Float>.self)
      index &+= 8
    }
    let single = source.assumingMemoryBound(to: Float.self)
    while index < count {
      target[index] += single[index] * gains[index]
      index += 1
    }
  }
}
