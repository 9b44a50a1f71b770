package import FoleyCore
import Foundation
package import Synchronization

/// The first stage of a streamed voice's lane (music, speech, anything decoded as it plays): it
/// overwrites the silent carrier chunk's samples with the stream's, from a ``StreamRing``.
/// The voice's ``ChannelGain`` comes after it, so buses, the session, de-click ramps and device
/// restore apply to streams as to any voice. The voice mixer does not render a paused lane, so
/// nothing is consumed while it is paused.
///
/// It also shapes the stream itself: an equal-power fade in or out (a crossfade's two halves,
/// `sin` and `cos` of the progress, so the summed power of two uncorrelated tracks stays level),
/// and a seek without a click (the old audio fades out over the de-click time, the new fades in).
/// When the stream has ended and everything was heard, or a fade-out finished, it raises the
/// engine's wake signal once so the queue can halt the channel.
///
/// Invariant behind `@unchecked Sendable`: the `var`s belong to the mixing thread; other threads
/// talk to it through atomics only, except ``rewind(frames:)``, which the queue calls only while
/// the channel is paused (the voice mixer skips a paused lane, and the pause was set under the
/// audio lock, so no render is running), and ``discard(frames:scratch:capacity:)``, which it
/// calls only while the voice is virtual and no lane plays the stream.
package final class StreamEffect: @unchecked Sendable {
  package enum Fade: UInt8 {
    case none = 0
    case fadeIn = 1
    case fadeOut = 2
  }

  package let ring: StreamRing
  private let isFloat: Bool
  private let channels: Int
  private let bytesPerFrame: Int
  private let declickFrames: Int
  private let wake: WakeSignal

  // Requests (from the queue and the filler).
  private let fadeRequest = Atomic<UInt64>(0)  // generation << 48 | kind << 40 | frames
  /// The mix frame the requested fade starts on (-1: the next buffer); stored before the request.
  private let fadeStartRequest = Atomic<Int>(-1)
  /// The easing of the fades requested from here on (``Easing/bits``).
  private let fadeEasingRequest = Atomic<UInt16>(Easing.linear.bits)
  private let producerEnded = Atomic<Bool>(false)
  /// The ring byte at which to stop and wait (-1: none): a pause at a word's end.
  private let holdRequest = Atomic<Int>(-1)
  /// Stopped at a hold mark, waiting for ``release()``.
  package let isHolding = Atomic<Bool>(false)
  // Reports (to anyone).
  /// Frames of stream audio played so far (not counting silence or audio skipped by a seek).
  let framesHeard = Atomic<Int>(0)
  /// Frames of silence put out while the stream had audio still to come: underruns.
  package let underrunFrames = Atomic<Int>(0)
  /// Ended and fully heard, or faded out: the channel may be halted.
  package let drained = Atomic<Bool>(false)
  /// The mix frame at which ring frame 0 would have been mixed, as of the last callback: ring
  /// frame `r` is mixed at `ringOrigin + r` while the stream plays on at rate 1 (Int.min until
  /// the voice has played).
  package let ringOrigin = Atomic<Int>(Int.min)
  /// Its channel was paused (by the session or the game) and has not played since: ``ringOrigin``
  /// is as of the last block before the pause, and the stream goes on from wherever the mix is
  /// when it resumes. Cleared by the first block it plays after the resume.
  package let isPaused = Atomic<Bool>(false)

  // The mixing thread's own state.
  private var fade = Fade.none
  private var fadePosition = 0
  private var fadeLength = 0
  /// Frames still to play before the fade begins.
  private var fadeDelay = 0
  private var fadeEasing = Easing.linear
  private var seenFadeGeneration: UInt64 = 0
  private var seenSeekGeneration = 0
  private var seekFadeOutLeft = 0
  private var seekMark = 0
  private var seekFadeInDone = Int.max
  private var faderSilenced = false
  private var seenHoldRequest = -1
  /// The ring byte being held at (with the fade-out before it), if a hold is under way.
  private var activeHold: Int?

  /// How far the ring's read position may move back (what the producer never overwrites).
  private let rewindLimit: Int

  package init(
    ring: StreamRing, format: AudioDeviceFormat, declickFrames: Int, rewindLimit: Int, wake: WakeSignal
  ) {
    self.ring = ring
    self.rewindLimit = rewindLimit
    isFloat = format.sampleFormat == .float32
    channels = format.channels
    bytesPerFrame = format.bytesPerFrame
    self.declickFrames = max(1, declickFrames)
    self.wake = wake
  }

  /// Starts an equal-power fade of `frames` frames at the next buffer, or on mix frame
  /// `mixFrame` when it is later (to the sample while the stream plays at rate 1); a fade-out
  /// ends the stream.
  package func requestFade(_ kind: Fade, frames: Int, atMixFrame mixFrame: UInt64? = nil) {
    fadeStartRequest.store(mixFrame.map { Int(truncatingIfNeeded: $0) } ?? -1, ordering: .relaxed)
    let generation = (fadeRequest.load(ordering: .relaxed) >> 48) &+ 1
    fadeRequest.store(
      generation << 48 | UInt64(kind.rawValue) << 40 | UInt64(max(1, min(frames, 1 << 39))),
      ordering: .releasing)
  }

  /// The easing the next fades' progress moves along (their curves stay equal-power).
  package func setFadeEasing(_ easing: Easing) {
    fadeEasingRequest.store(easing.bits, ordering: .relaxed)
  }

  /// Plays up to ring frame `frame` (fading out over the de-click time before it), then outputs
  /// silence without consuming anything until ``release()``. A mark too close to fade to is moved
  /// to the earliest frame that can.
  package func hold(atFrame frame: Int) {
    holdRequest.store(max(0, frame) * bytesPerFrame, ordering: .releasing)
  }

  /// Ends a hold: the stream continues from where it stopped, fading in.
  package func release() {
    holdRequest.store(-1, ordering: .releasing)
  }

  /// The producer will write nothing more: once the ring is heard out, the stream is done.
  package func markEnded() {
    producerEnded.store(true, ordering: .releasing)
  }

  /// The producer has more after all (a seek after the end was decoded). False when the stream
  /// was already heard out: it is over.
  package func reopen() -> Bool {
    producerEnded.store(false, ordering: .releasing)
    return !drained.load(ordering: .acquiring)
  }

  /// Moves back `frames` that were consumed but not heard (played at zero gain before a pause).
  /// Only while the channel is paused, so the mixing thread is not in ``process(_:byteCount:)``;
  /// nothing moves back across a seek or beyond what the producer leaves untouched.
  func rewind(frames: Int) {
    guard frames > 0, frames <= rewindLimit, seekFadeOutLeft == 0, seekFadeInDone >= declickFrames,
      ring.seek.generation == seenSeekGeneration, !drained.load(ordering: .acquiring)
    else { return }
    let bytes = min(frames * bytesPerFrame, ring.capacity - (ring.totalWritten - ring.totalRead))
    ring.rewind(by: bytes / bytesPerFrame * bytesPerFrame)
    framesHeard.subtract(bytes / bytesPerFrame, ordering: .relaxed)
  }

  /// Called by the voice mixer after each block the stream played in: `frame` is the mix frame
  /// after the block's last.
  @inline(__always)
  func noteMixed(through frame: UInt64) {
    ringOrigin.store(Int(truncatingIfNeeded: frame) - ring.totalRead / bytesPerFrame, ordering: .releasing)
    isPaused.store(false, ordering: .releasing)
  }

  /// The mix frame after the last one the stream was played on (its ring read through it); nil
  /// until it has played.
  var mixedThrough: UInt64? {
    let origin = ringOrigin.load(ordering: .acquiring)
    guard origin != Int.min else { return nil }
    return UInt64(clamping: origin + ring.totalRead / bytesPerFrame)
  }

  /// Plays `frames` frames that nobody hears, for a virtual voice: the ring is read into
  /// `scratch` (`capacity` bytes) and thrown away, with fades, seeks, holds and the end taken
  /// exactly as the mix would take them. The queue calls it only while no lane plays the stream
  /// (before one is armed again, or after the last was collected), so it owns the mixing
  /// thread's state meanwhile; the audio lock taken to arm a lane orders the two.
  func discard(frames: Int, scratch: UnsafeMutableRawPointer, capacity: Int) {
    let chunk = max(1, capacity / bytesPerFrame)
    var left = frames
    while left > 0 {
      let count = min(left, chunk)
      scratch.initializeMemory(as: UInt8.self, repeating: 0, count: count * bytesPerFrame)
      process(scratch, byteCount: count * bytesPerFrame)
      left -= count
    }
  }

  /// Called on the mixing thread with the channel's buffer (the carrier's silence).
  package func process(_ stream: UnsafeMutableRawPointer, byteCount: Int) {
    takeRequests()
    let frames = byteCount / bytesPerFrame
    if faderSilenced || drained.load(ordering: .relaxed) {
      stream.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
      return
    }
    var filled = 0
    while filled < frames {
      if seekFadeOutLeft > 0 {
        // The old audio's last few milliseconds, faded out, then the jump to the new.
        let wanted = min(seekFadeOutLeft, frames - filled)
        let got =
          ring.read(into: stream + filled * bytesPerFrame, count: wanted * bytesPerFrame, limit: seekMark)
          / bytesPerFrame
        ramp(stream, from: filled, count: got) {
          1 - Float(self.declickFrames - self.seekFadeOutLeft + $0 + 1) / Float(self.declickFrames)
        }
        filled += got
        seekFadeOutLeft = got < wanted ? 0 : seekFadeOutLeft - got
        if seekFadeOutLeft == 0 {
          ring.skip(to: seekMark)
          seekFadeInDone = 0
        }
        continue
      }
      if let hold = activeHold, ring.totalRead >= hold {
        isHolding.store(true, ordering: .releasing)
        break
      }
      let position = ring.totalRead / bytesPerFrame
      let got =
        ring.read(
          into: stream + filled * bytesPerFrame, count: (frames - filled) * bytesPerFrame,
          limit: activeHold ?? .max)
        / bytesPerFrame
      if got == 0 { break }
      if let hold = activeHold {
        // Fading out towards the hold mark.
        let holdFrame = hold / bytesPerFrame
        let fadeFrom = max(0, holdFrame - declickFrames - position)
        if fadeFrom < got {
          ramp(stream, from: filled + fadeFrom, count: got - fadeFrom) {
            Float(holdFrame - (position + fadeFrom + $0)) / Float(self.declickFrames)
          }
        }
      }
      if seekFadeInDone < declickFrames {
        let start = seekFadeInDone
        ramp(stream, from: filled, count: min(got, declickFrames - start)) {
          Float(start + $0 + 1) / Float(self.declickFrames)
        }
        seekFadeInDone += got
      }
      framesHeard.add(got, ordering: .relaxed)
      filled += got
    }
    if filled < frames {
      (stream + filled * bytesPerFrame).initializeMemory(
        as: UInt8.self, repeating: 0, count: (frames - filled) * bytesPerFrame)
      if isHolding.load(ordering: .relaxed) {
        // Waiting at a hold mark: silence is what was asked for.
      } else if producerEnded.load(ordering: .acquiring) {
        finish()
      } else if seekFadeInDone != 0 {
        // Silence while more was due (not the moment after a seek, before the new audio lands).
        underrunFrames.add(frames - filled, ordering: .relaxed)
      }
    }
    applyFade(stream, frames: filled)
  }

  private func takeRequests() {
    let request = fadeRequest.load(ordering: .acquiring)
    if request >> 48 != seenFadeGeneration {
      seenFadeGeneration = request >> 48
      fade = Fade(rawValue: UInt8((request >> 40) & 0xFF)) ?? .none
      fadeLength = Int(request & ((1 << 40) - 1))
      fadeEasing = Easing.decoded(fadeEasingRequest.load(ordering: .relaxed))
      fadePosition = 0
      let start = fadeStartRequest.load(ordering: .relaxed)
      let origin = ringOrigin.load(ordering: .relaxed)
      // The ring frame the start is heard on, less where the ring is: frames to wait.
      fadeDelay =
        start >= 0 && origin != Int.min ? max(0, start - origin - ring.totalRead / bytesPerFrame) : 0
    }
    let hold = holdRequest.load(ordering: .acquiring)
    if hold != seenHoldRequest {
      seenHoldRequest = hold
      if hold < 0 {
        if isHolding.exchange(false, ordering: .acquiringAndReleasing) { seekFadeInDone = 0 }
        activeHold = nil
      } else {
        activeHold = max(hold, ring.totalRead + declickFrames * bytesPerFrame)
      }
    }
    let seek = ring.seek
    if seek.generation != seenSeekGeneration {
      seenSeekGeneration = seek.generation
      seekMark = seek.mark
      seekFadeOutLeft = declickFrames
    }
  }

  /// The stream's fade envelope over the frames just filled.
  private func applyFade(_ stream: UnsafeMutableRawPointer, frames: Int) {
    guard fade != .none, frames > 0 else { return }
    let skip = min(fadeDelay, frames)
    fadeDelay -= skip
    guard skip < frames else { return }
    let length = Float(fadeLength)
    let start = fadePosition
    let kind = fade
    let easing = fadeEasing
    let count = min(frames - skip, fadeLength - start)
    ramp(stream, from: skip, count: count) { index in
      let linear = Float(start + index + 1) / length
      let progress = easing.shape == .linear ? linear : Float(easing.apply(Double(linear)))
      return kind == .fadeIn ? sin(progress * .pi / 2) : cos(progress * .pi / 2)
    }
    fadePosition += count
    guard fadePosition >= fadeLength else { return }
    if kind == .fadeOut {
      // Faded out: the rest is silence, and the stream is over.
      (stream + (skip + count) * bytesPerFrame).initializeMemory(
        as: UInt8.self, repeating: 0, count: (frames - skip - count) * bytesPerFrame)
      faderSilenced = true
      finish()
    }
    fade = .none
  }

  private func finish() {
    if !drained.exchange(true, ordering: .acquiringAndReleasing) { wake.signal() }
  }

  /// Multiplies `count` frames from `start` by `gain(index)`.
  private func ramp(_ stream: UnsafeMutableRawPointer, from start: Int, count: Int, gain: (Int) -> Float) {
    guard count > 0 else { return }
    if isFloat {
      let samples = stream.assumingMemoryBound(to: Float.self) + start * channels
      for frame in 0..<count {
        let value = gain(frame)
        for channel in 0..<channels { samples[frame * channels + channel] *= value }
      }
    } else {
      let samples = stream.assumingMemoryBound(to: Int16.self) + start * channels
      for frame in 0..<count {
        let value = gain(frame)
        for channel in 0..<channels {
          samples[frame * channels + channel] = Int16(Float(samples[frame * channels + channel]) * value)
        }
      }
    }
  }
}
