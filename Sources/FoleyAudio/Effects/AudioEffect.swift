import Synchronization

/// An effect on a bus: it processes the bus's summed signal in place, every buffer, on the
/// mixing thread. The effects Foley provides are ``FilterEffect``, ``ReverbEffect``,
/// ``DelayEffect`` and ``CompressorEffect``; the
/// class cannot be subclassed outside Foley (an effect runs where nothing may allocate, lock or
/// wait, which the engine cannot check for a game's own code).
///
/// An effect belongs to one engine: it is prepared for that engine's format when it is first put
/// on a bus, and putting it on another engine's bus throws.
///
/// ```swift
/// let muffle = FilterEffect(.lowPass, frequency: 900)
/// try engine.bus(.ambience).setEffects([muffle])
/// muffle.setFrequency(4_000, tween: 2)     // the door opens
/// ```
///
/// Invariant behind `@unchecked Sendable`: parameters are atomics; the processing state is
/// prepared on the audio queue under the audio lock and then touched only by the mixing thread.
public class AudioEffect: @unchecked Sendable {
  private let owner = Atomic<Int>(0)
  /// The sample rate it was prepared for (0 before).
  package private(set) var sampleRate = 0
  package private(set) var channels = 0

  package init() {}

  /// Claims the effect for an engine (by its identity); false if another engine has it.
  func claim(for engine: ObjectIdentifier, sampleRate: Int, channels: Int) -> Bool {
    let id = Int(bitPattern: UInt(bitPattern: engine.hashValue))
    let (exchanged, current) = owner.compareExchange(
      expected: 0, desired: id, ordering: .acquiringAndReleasing)
    guard exchanged || current == id else { return false }
    if self.sampleRate == 0 {
      self.sampleRate = sampleRate
      self.channels = channels
      prepare()
    }
    return true
  }

  /// Allocates the processing state for ``sampleRate`` and ``channels`` (on the audio queue).
  package func prepare() {}

  /// Processes `frames` interleaved frames in place. `hasInput` is false when nothing was summed
  /// into the bus in this block (the buffer is silence); `sidechain` is the block of the bus that
  /// keys it, if it has one and that bus had input. Returns whether the effect still has a tail
  /// to give, so the bus keeps running it. An effect without a tail returns false.
  package func process(
    _ samples: UnsafeMutablePointer<Float>, frames: Int, channels: Int, hasInput: Bool,
    sidechain: UnsafePointer<Float>?, clock: UInt64
  ) -> Bool {
    false
  }

  /// The bus that keys the effect, in the mixer (-1: none); set under the audio lock.
  var keyBus: Int { -1 }
}
